// Package odbchat is the stand-in's policies for the ODBchat agent: its
// single-pass classifier+router (Router), its legacy classifier
// (Classifier) and its one-pass answerer (OnePass), each a table of named
// rules over the shared lexicon.
package odbchat

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/instruct"
	"github.com/agentreplay/testbed/harness/standin/policy"
)

// ODBchat policies. They recognise the agent's prompts by the protocol each
// demands, and decide by tables of named rules over the shared lexicon's
// concepts (code, definition, sst, temperature near sea, now, yesterday, day_before_yesterday,
// and the place words of registry keys), coordinates, bbox lists and
// dates:
//
//   - code: the question asks for a program;
//   - explain: a definition question, or one with neither an SST word nor
//     coordinates with a date word (the catalog's tools take nothing but a
//     place and a day);
//   - mcp: a point (121.7E,24.0N · (23N, 123E) · (123,25)), a bbox list of
//     four numbers, or a key of the request's geo_registry whose place
//     words the question names (registryRegion).
//
// Dates: YYYY-MM-DD as written; a now word → now; yesterday → now−1; the
// day before yesterday → now−2; no date word → no date argument. A
// paraphrase without these words is routed to explain, as a weak model
// might.

// Router answers the single-pass classifier+router with a route (mode,
// tool, arguments) by its rules (routerRules).
type Router struct{}

// Name is "odbchat/router".
func (Router) Name() string { return "odbchat/router" }

// Accepts reports whether r follows its protocol.
func (Router) Accepts(r policy.Request) bool {
	return strings.Contains(r.System(), "single-pass classifier+router")
}

// routerInput is the JSON user message the router sends.
type routerInput struct {
	Query       string               `json:"query"`
	Now         string               `json:"now"`
	GeoRegistry map[string][]float64 `json:"geo_registry"`
	ToolCatalog []struct {
		Name        string            `json:"name"`
		Description string            `json:"description"`
		ArgsSchema  map[string]string `json:"args_schema"`
	} `json:"tool_catalog"`
}

// catalog is the router input's tool catalog as tools: each argument a
// parameter described by what the catalog says of it.
func (in routerInput) catalog() []llm.Tool {
	var out []llm.Tool
	for _, c := range in.ToolCatalog {
		props := map[string]any{}
		for k, v := range c.ArgsSchema {
			props[strings.TrimSuffix(k, "?")] = map[string]any{"description": v}
		}
		params, _ := json.Marshal(map[string]any{"type": "object", "properties": props})
		out = append(out, llm.Tool{Name: c.Name, Description: c.Description, Parameters: params})
	}
	return out
}

// Decide answers by routerRules and names the rule.
func (Router) Decide(r policy.Request) (llm.Message, string, error) {
	var in routerInput
	if err := json.Unmarshal([]byte(r.LastUser()), &in); err != nil || in.Query == "" {
		return llm.Message{}, "", fmt.Errorf("router user message is not the JSON {query, now, …} the protocol asks for")
	}
	now, err := time.Parse(time.DateOnly, in.Now)
	if err != nil {
		return llm.Message{}, "", fmt.Errorf("router input has no valid now: %q", in.Now)
	}
	o := readODBQuestion(in.Query, now, in.GeoRegistry)
	o.tools = in.catalog()
	o.ins = instruct.Read(r.System(), policy.ToolNames(o.tools))
	return policy.Decide(routerRules(), o)
}

// RuleNames lists the names of its rules, in table order.
func (Router) RuleNames() []string { return policy.Names(routerRules()) }

type plan struct {
	Decision         string         `json:"decision"`
	Confidence       float64        `json:"confidence"`
	Tool             map[string]any `json:"tool"`
	Rationale        string         `json:"rationale"`
	NeedsFollowup    bool           `json:"needs_followup"`
	FollowupQuestion *string        `json:"followup_question"`
}

// answer writes p in the shape the prompt requires: a JSON object of the
// fields it names, in the prompt's order. Without a required shape (the
// default) it is prose.
func (o *odbQuestion) answer(p plan) (llm.Message, error) {
	if o.ins.Shape == nil {
		s := fmt.Sprintf("%s (confidence %.2f). %s", p.Decision, p.Confidence, p.Rationale)
		if p.Tool != nil {
			b, _ := json.Marshal(p.Tool)
			s += " Tool: " + string(b)
		}
		return llm.Message{Role: llm.RoleAssistant, Content: s}, nil
	}
	b, _ := json.Marshal(p)
	var all map[string]json.RawMessage
	json.Unmarshal(b, &all)
	var out strings.Builder
	out.WriteString("{")
	n := 0
	for _, f := range o.ins.Shape {
		if v, ok := all[f]; ok {
			if n > 0 {
				out.WriteString(",")
			}
			k, _ := json.Marshal(f)
			out.Write(k)
			out.WriteString(":")
			out.Write(v)
			n++
		}
	}
	out.WriteString("}")
	return llm.Message{Role: llm.RoleAssistant, Content: out.String()}, nil
}

// The kinds of catalog tool the router needs, in the words a description
// says them.
var (
	odbPoint = policy.Purpose{Name: "point", Words: "point"}
	odbBox   = policy.Purpose{Name: "box", Words: "bbox box area region"}
)

// toolPlan is the data route's decision with a call of the catalog tool
// chosen for p, its arguments filled from the question and the prompt's
// stated defaults.
func (o *odbQuestion) toolPlan(p policy.Purpose, conf float64, why string, slots ...policy.Slot) (llm.Message, error) {
	tool, ok := policy.ChooseTool(o.tools, p)
	rt := o.routeOf("sst")
	if !ok || rt == nil {
		return o.answer(plan{Decision: o.otherwise(), Confidence: 0.4, Rationale: "No tool of the catalog fits."})
	}
	var date any
	if o.date != "" {
		date = o.date
	}
	slots = append(slots, policy.Slot{Word: "date", Value: date})
	for k, v := range o.ins.Defaults {
		slots = append(slots, policy.Slot{Word: k, Value: v})
	}
	return o.answer(plan{Decision: rt.Target, Confidence: conf, Tool: map[string]any{"name": tool.Name, "arguments": policy.ArgsFor(tool, slots)}, Rationale: why})
}

// routerRules is the ODBchat router's table, tried in order: a question's
// kind (a code word, a definition word, SST data at a place) goes to the
// prompt's routing rule whose condition names that kind; a kind with no
// rule, and anything else, to the rule for the rest.
func routerRules() []policy.Rule[*odbQuestion] {
	routed := func(c string) func(o *odbQuestion) bool {
		return func(o *odbQuestion) bool { return o.text.Has(c) && o.routeOf(c) != nil }
	}
	data := func(f func(o *odbQuestion) bool) func(o *odbQuestion) bool {
		return func(o *odbQuestion) bool { return o.sst() && o.routeOf("sst") != nil && f(o) }
	}
	return []policy.Rule[*odbQuestion]{
		{Name: "code", Doc: "a code word and a routing rule for programs: that rule's decision",
			Match: routed("code"),
			Act: func(o *odbQuestion) (llm.Message, error) {
				return o.answer(plan{Decision: o.routeOf("code").Target, Confidence: 0.76, Rationale: "Asks for a program."})
			}},
		{Name: "definition", Doc: "a definition word and a routing rule for definitions: that rule's decision, even with an SST word",
			Match: routed("definition"),
			Act: func(o *odbQuestion) (llm.Message, error) {
				return o.answer(plan{Decision: o.routeOf("definition").Target, Confidence: 0.71, Rationale: "A concept or documentation question."})
			}},
		{Name: "point", Doc: "SST data at a coordinate pair and a routing rule for SST data: its decision, with the catalog tool described as for a point",
			Match: data(func(o *odbQuestion) bool { return o.point }),
			Act: func(o *odbQuestion) (llm.Message, error) {
				return o.toolPlan(odbPoint, 0.82, "SST at a point.", policy.Slot{Word: "longitude", Value: o.lon}, policy.Slot{Word: "latitude", Value: o.lat})
			}},
		{Name: "bbox", Doc: "SST data over a written bbox list and a routing rule for SST data: its decision, with the catalog tool described as for a box",
			Match: data(func(o *odbQuestion) bool { return o.bbox != nil }),
			Act: func(o *odbQuestion) (llm.Message, error) {
				return o.toolPlan(odbBox, 0.78, "Mean SST over a box.", policy.Slot{Word: "bbox", Value: o.bbox})
			}},
		{Name: "registry-region", Doc: "SST data over a region the request's geo_registry lists, whose place words the question names: the box tool over its key",
			Match: data(func(o *odbQuestion) bool { return o.region != "" }),
			Act: func(o *odbQuestion) (llm.Message, error) {
				return o.toolPlan(odbBox, 0.83, "SST over a registry region.", policy.Slot{Word: "bbox", Value: o.region})
			}},
		{Name: "no-place", Doc: "an SST question without a place it can resolve: the rule for the rest, with low confidence",
			Match: func(o *odbQuestion) bool { return o.sst() },
			Act: func(o *odbQuestion) (llm.Message, error) {
				return o.answer(plan{Decision: o.otherwise(), Confidence: 0.4, Rationale: "SST question without a place I can resolve."})
			}},
		{Name: "otherwise", Doc: "anything else (or a kind the prompt has no rule for): the rule for the rest, else the first value the shape lists",
			Match: func(*odbQuestion) bool { return true },
			Act: func(o *odbQuestion) (llm.Message, error) {
				return o.answer(plan{Decision: o.otherwise(), Confidence: 0.71, Rationale: "A concept or documentation question."})
			}},
	}
}
