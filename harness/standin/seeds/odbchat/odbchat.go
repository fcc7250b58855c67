// Package odbchat is the stand-in's policies for the ODBchat agent: its
// single-pass classifier+router (Router), its legacy classifier
// (Classifier) and its one-pass answerer (OnePass), each a table of named
// rules over the shared lexicon.
package odbchat

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/instruct"
	"github.com/agentreplay/testbed/harness/standin/lexicon"
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

var (
	bboxRe  = regexp.MustCompile(`\[\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*\]`)
	hemiRe  = regexp.MustCompile(`(?i)(\d+(?:\.\d+)?)\s*°?\s*([EWNS])\b`)
	plainRe = regexp.MustCompile(`[(（]\s*(-?\d+(?:\.\d+)?)\s*[,，]\s*(-?\d+(?:\.\d+)?)\s*[)）]`)
	dateRe  = regexp.MustCompile(`\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})\b`)
)

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

// odbQuestion is what the ODBchat rules read from a question.
type odbQuestion struct {
	q        string
	text     lexicon.Text
	date     string // the date asked for, or ""
	lon, lat float64
	point    bool
	bbox     []float64 // a written bbox list
	region   string    // the registry key the question names, or ""
	// What the request says: the routing rules and output shape of the
	// system prompt, and the tool catalog.
	ins   instruct.Set
	tools []llm.Tool
}

func readODBQuestion(q string, now time.Time, registry map[string][]float64) *odbQuestion {
	o := &odbQuestion{q: q, text: lexicon.Read(q)}
	o.date = dateOf(o.text, q, now)
	o.lon, o.lat, o.point = pointOf(q)
	if m := bboxRe.FindStringSubmatch(q); m != nil {
		for _, s := range m[1:] {
			f, _ := strconv.ParseFloat(s, 64)
			o.bbox = append(o.bbox, f)
		}
	}
	o.region = registryRegion(o.text, registry)
	return o
}

// sst reports an SST word (or a temperature word within three words of a
// sea word), or coordinates with a date word.
func (o *odbQuestion) sst() bool {
	return o.hasSST() || (o.point || o.bbox != nil) && o.date != ""
}

// hasSST reports an SST word, or a temperature word within three words of
// a sea word ("temperatura del océano").
func (o *odbQuestion) hasSST() bool {
	return o.text.Has("sst") || o.text.Near("temperature", "sea", 3)
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

// routeOf is the prompt's routing rule whose condition names concept c
// (read through the lexicon), or nil.
func (o *odbQuestion) routeOf(c string) *instruct.Route {
	for i, rt := range o.ins.Routes {
		if lexicon.Read(rt.When).Has(c) {
			return &o.ins.Routes[i]
		}
	}
	return nil
}

// otherwise is the decision for a question no other rule takes: the
// prompt's rule for the rest, else the first value the shape lists for
// a field (a weak model's first option), else "".
func (o *odbQuestion) otherwise() string {
	for _, rt := range o.ins.Routes {
		if rt.Else {
			return rt.Target
		}
	}
	for _, f := range o.ins.Shape {
		if v := o.ins.Values[f]; len(v) > 0 {
			return v[0]
		}
	}
	return ""
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

// registryRegion is the key of registry whose place words the question
// names best, or "". A key's words ("taiwan_strait") are read through the
// lexicon's concepts (so 台灣海峽 names both); a key is a candidate when
// its first word is named; it scores one for each word named, and half
// for leaving out only words of the "nearby" concept (a bare place name
// means around it). The first key in sorted order wins a tie.
func registryRegion(t lexicon.Text, registry map[string][]float64) string {
	best, score := "", 0.0
	for _, key := range slices.Sorted(maps.Keys(registry)) {
		words := strings.FieldsFunc(strings.ToLower(key), func(r rune) bool { return r == '_' || r == '-' || r == ' ' })
		if len(words) == 0 || !namesWord(t, words[0]) {
			continue
		}
		s, onlyNearby := 0.0, true
		for _, w := range words {
			switch {
			case namesWord(t, w):
				s++
			case conceptOf(w) != "nearby":
				onlyNearby = false
			}
		}
		if onlyNearby {
			s += 0.5
		}
		if s > score {
			best, score = key, s
		}
	}
	return best
}

// namesWord reports whether t names w: a word of the lexicon concept w
// belongs to, or w itself.
func namesWord(t lexicon.Text, w string) bool {
	if c := conceptOf(w); c != "" {
		return t.Has(c)
	}
	for _, x := range t.Words {
		if x == w {
			return true
		}
	}
	return false
}

// conceptOf is the lexicon concept whose English words include w, or "".
func conceptOf(w string) string {
	for _, c := range lexicon.ConceptNames() {
		for _, e := range lexicon.WordsIn(c, "en") {
			if !strings.Contains(e, " ") && lexicon.WordMatch(w, e) {
				return c
			}
		}
	}
	return ""
}

// pointOf finds a coordinate pair written with hemispheres, or a plain
// "(lon, lat)".
func pointOf(q string) (lon, lat float64, ok bool) {
	var haveLon, haveLat bool
	for _, m := range hemiRe.FindAllStringSubmatch(q, -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		switch strings.ToUpper(m[2]) {
		case "E":
			lon, haveLon = v, true
		case "W":
			lon, haveLon = -v, true
		case "N":
			lat, haveLat = v, true
		case "S":
			lat, haveLat = -v, true
		}
	}
	if haveLon && haveLat {
		return lon, lat, true
	}
	if m := plainRe.FindStringSubmatch(q); m != nil {
		lon, _ = strconv.ParseFloat(m[1], 64)
		lat, _ = strconv.ParseFloat(m[2], 64)
		return lon, lat, true
	}
	return 0, 0, false
}

// dateOf is the date a question asks for: one written, else by its date
// words relative to now, else "".
func dateOf(t lexicon.Text, q string, now time.Time) string {
	if m := dateRe.FindStringSubmatch(q); m != nil {
		y, _ := strconv.Atoi(m[1])
		mo, _ := strconv.Atoi(m[2])
		d, _ := strconv.Atoi(m[3])
		return time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
	}
	switch {
	case t.Has("day_before_yesterday"):
		return now.AddDate(0, 0, -2).Format(time.DateOnly)
	case t.Has("yesterday"):
		return now.AddDate(0, 0, -1).Format(time.DateOnly)
	case t.Has("now"):
		return now.Format(time.DateOnly)
	}
	return ""
}

// Classifier is the legacy two-way classifier. Like the weak
// classifier the seed describes, it sends questions that want data (an SST
// word with a place) to code, since explain cannot fetch numbers. Its
// request carries no registry, so a place is coordinates, a bbox list, or
// a word of the lexicon's place concepts.
type Classifier struct{}

// Name is "odbchat/classifier".
func (Classifier) Name() string { return "odbchat/classifier" }

// Accepts reports whether r follows its protocol.
func (Classifier) Accepts(r policy.Request) bool {
	return strings.Contains(r.System(), "question classifier")
}

// Decide answers by classifierRules and names the rule.
func (Classifier) Decide(r policy.Request) (llm.Message, string, error) {
	o := readODBQuestion(r.LastUser(), time.Time{}, nil)
	o.ins = policy.InstructionsOf(r)
	return policy.Decide(classifierRules(), o)
}

// RuleNames lists the names of its rules, in table order.
func (Classifier) RuleNames() []string { return policy.Names(classifierRules()) }

// odbPlaceConcepts are the lexicon's place concepts the classifier knows.
var odbPlaceConcepts = []string{"taiwan", "hawaii", "strait", "islands", "nearby"}

// classified writes the classifier's answer in the shape its prompt
// requires: the mode in the first field whose values the prompt lists, the
// confidence in a field named for it, in the prompt's order; without a
// shape (the default), prose.
func (o *odbQuestion) classified(mode string, conf float64) (llm.Message, error) {
	if o.ins.Shape == nil {
		return llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprintf("%s (confidence %g)", mode, conf)}, nil
	}
	var parts []string
	said := false
	for _, f := range o.ins.Shape {
		switch {
		case !said && len(o.ins.Values[f]) > 0:
			parts = append(parts, fmt.Sprintf("%q: %q", f, mode))
			said = true
		case strings.Contains(f, "confidence"):
			parts = append(parts, fmt.Sprintf("%q: %g", f, conf))
		}
	}
	return llm.Message{Role: llm.RoleAssistant, Content: "{" + strings.Join(parts, ", ") + "}"}, nil
}

// classifierRules is the legacy classifier's table, tried in order: a code
// word, a definition word, or data (coordinates, an SST word with a place
// word) goes to the prompt's routing rule whose condition names that kind
// (a program, definitions, data); anything else, or a kind with no rule, to
// the rule for the rest, else the shape's first listed value.
func classifierRules() []policy.Rule[*odbQuestion] {
	routed := func(c string, conf float64) func(*odbQuestion) (llm.Message, error) {
		return func(o *odbQuestion) (llm.Message, error) { return o.classified(o.routeOf(c).Target, conf) }
	}
	has := func(c string, f func(*odbQuestion) bool) func(*odbQuestion) bool {
		return func(o *odbQuestion) bool { return o.routeOf(c) != nil && f(o) }
	}
	return []policy.Rule[*odbQuestion]{
		{Name: "code", Doc: "a code word and a routing rule for programs: its mode",
			Match: has("code", func(o *odbQuestion) bool { return o.text.Has("code") }), Act: routed("code", 0.74)},
		{Name: "definition", Doc: "a definition word and a routing rule for definitions: its mode",
			Match: has("definition", func(o *odbQuestion) bool { return o.text.Has("definition") }), Act: routed("definition", 0.7)},
		{Name: "coordinates", Doc: "a point or a bbox list and a routing rule for data: its mode (code in the seed's prompt, the only branch that fetches numbers)",
			Match: has("data", func(o *odbQuestion) bool { return o.point || o.bbox != nil }), Act: routed("data", 0.74)},
		{Name: "sst-and-place", Doc: "an SST word, a place word and a routing rule for data: its mode (code in the seed's prompt: the seed's failure mode)",
			Match: has("data", func(o *odbQuestion) bool {
				if !o.hasSST() {
					return false
				}
				for _, c := range odbPlaceConcepts {
					if o.text.Has(c) {
						return true
					}
				}
				return false
			}), Act: routed("data", 0.74)},
		{Name: "otherwise-explain", Doc: "anything else: the rule for the rest, else the first mode the shape lists",
			Match: func(*odbQuestion) bool { return true },
			Act:   func(o *odbQuestion) (llm.Message, error) { return o.classified(o.otherwise(), 0.7) }},
	}
}
