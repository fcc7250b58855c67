// Package family is the stand-in's policies for the family assistant: its
// default assistant (Assistant) and its data visualization service
// (Visualization), each a table of named rules over what the framework put
// in context and the shared lexicon.
package family

import (
	"encoding/json"
	"fmt"
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

// The family assistant policies read what the framework put in context —
// attachment markers, summaries and schemas, the system prompt's current
// time, the tools' schemas — and the user's words through the shared
// lexicon. The default assistant's table is familyRules (this file), the
// data visualization service's vizRules (family_viz.go). Sensor entity ids
// are formed after the example in the history tool's schema
// ("sensor.pool_temperature": domain, then area and measure): the area is a
// home-area concept of the lexicon, the measure a pH or humidity word, else
// the example's; a request for "all sensors" names no entity the request
// carries, so the assistant asks which ones.

var (
	faAttachID     = regexp.MustCompile(`\[Attachment ID: (att-\d+)\]|\[System: Attachment (att-\d+)\b`)
	faMentionedID  = regexp.MustCompile(`\b(att-\d+)\b`)
	faQuotedJQ     = regexp.MustCompile(`jq(?: program)? '([^']+)'`)
	faISODate      = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)
	faNumberUnit   = regexp.MustCompile(`(\d+)\s*(\p{L}+)`)
	faNow          = regexp.MustCompile(`The current time is (\S+?)\.`)
	faSavedAs      = regexp.MustCompile(`saved as attachment (att-\d+)`)
	faRowCount     = regexp.MustCompile(`(?i)\bRows: (\d+)`)
	faLineCount    = regexp.MustCompile(`(?i)\bLines: (\d+)`)
	faCSVHeaderRe  = regexp.MustCompile(`(?m)^([A-Za-z_][\w ]*(?:,[A-Za-z_][\w ]*)+)\s*$`)
	faExampleID    = regexp.MustCompile(`\b([a-z_]+)\.([a-z0-9]+(?:_[a-z0-9]+)*)\b`)
	faInlineMarker = "[Content ("
)

// faAreas are the lexicon's home-area concepts, named as entity ids name
// them.
var faAreas = []string{"pool", "living_room", "garage", "outdoor", "kitchen", "bedroom"}

// faEntities forms the entity ids the words name, after the example in the
// tool's schema, in the order the words name the areas.
func faEntities(t lexicon.Text, tools []llm.Tool) []string {
	domain, measure := "sensor", "temperature"
	for _, tool := range tools {
		var s struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		json.Unmarshal(tool.Parameters, &s)
		if m := faExampleID.FindStringSubmatch(s.Properties["entity_ids"].Description); m != nil {
			domain = m[1]
			if i := strings.LastIndex(m[2], "_"); i >= 0 {
				measure = m[2][i+1:]
			}
		}
	}
	switch {
	case t.Has("ph"):
		measure = "ph"
	case t.Has("humidity"):
		measure = "humidity"
	}
	type named struct {
		id string
		at int
	}
	var found []named
	for _, a := range faAreas {
		if at := t.At(a); len(at) > 0 {
			found = append(found, named{domain + "." + a + "_" + measure, slices.Min(at)})
		}
	}
	slices.SortStableFunc(found, func(a, b named) int { return a.at - b.at })
	var out []string
	for _, f := range found {
		out = append(out, f.id)
	}
	return out
}

// faPeriod resolves the period of a request against now: two dates as
// written, N and a day or hour word, a week word, or a today word.
func faPeriod(q string, t lexicon.Text, now time.Time) (start, end time.Time, ok bool) {
	if ds := faISODate.FindAllString(q, 2); len(ds) == 2 {
		s, err1 := time.Parse(time.DateOnly, ds[0])
		e, err2 := time.Parse(time.DateOnly, ds[1])
		return s, e, err1 == nil && err2 == nil
	}
	for _, m := range faNumberUnit.FindAllStringSubmatch(q, -1) {
		n, _ := strconv.Atoi(m[1])
		unit := lexicon.Read(m[2])
		switch {
		case unit.Has("days"):
			return now.AddDate(0, 0, -n), now, true
		case unit.Has("hours"):
			return now.Add(-time.Duration(n) * time.Hour), now, true
		}
	}
	switch {
	case t.Has("week"):
		return now.AddDate(0, 0, -7), now, true
	case t.Has("today"):
		return now.Add(-24 * time.Hour), now, true
	}
	return time.Time{}, time.Time{}, false
}

// faRequest splits the messages at the user's own last request: injected
// attachment messages ("[System: …") are not requests.
func faRequest(r policy.Request) (req string, at int) {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role == llm.RoleUser && !strings.HasPrefix(m.Content, "[System:") {
			return m.Content, i
		}
	}
	return "", -1
}

// Assistant is the default assistant's policy, by its rules (familyRules).
type Assistant struct{}

// Name is "family/default".
func (Assistant) Name() string { return "family/default" }

// Accepts reports whether r follows its protocol.
func (Assistant) Accepts(r policy.Request) bool {
	return strings.Contains(r.System(), "You are the family assistant")
}

// faTurn is what the family assistant's rules read from a request.
type faTurn struct {
	r      policy.Request
	req    string       // the request, with the attachments the framework injected
	ask    string       // the words before any injected attachment
	text   lexicon.Text // of ask
	turn   []llm.Message
	last   *llm.ToolCall
	result string
	ids    []string // the attachments shown with the request
	// jqTold: the system prompt or a hint in the conversation routes
	// questions to the jq tool (without it, the default, the policy
	// answers from what it was shown).
	jqTold bool
	prose  lexicon.Prose // how it writes: the prompt's language and length
}

// Decide answers by familyRules and names the rule.
func (Assistant) Decide(r policy.Request) (llm.Message, string, error) {
	req, at := faRequest(r)
	if at < 0 {
		return llm.Message{}, "", fmt.Errorf("no user request")
	}
	t := &faTurn{r: r, req: req, ask: strings.SplitN(req, "\n\n", 2)[0], turn: r.Messages[at+1:]}
	t.text = lexicon.Read(t.ask)
	if t.last = policy.LastCall(t.turn); t.last != nil {
		t.result = policy.ResultOf(t.turn, t.last.ID)
	}
	for _, m := range faAttachID.FindAllStringSubmatch(req, -1) {
		t.ids = append(t.ids, attachID(m))
	}
	ins := policy.InstructionsOf(r)
	t.jqTold = jqTold(r, ins)
	t.prose = lexicon.ProseOf(ins, t.ask)
	return policy.Decide(familyRules(), t)
}

// RuleNames lists the names of its rules, in table order.
func (Assistant) RuleNames() []string { return policy.Names(familyRules()) }

// say answers in the prompt's language and length (prose).
func (t *faTurn) say(format string, a ...any) (llm.Message, error) {
	return llm.Message{Role: llm.RoleAssistant, Content: t.prose.Finish(t.prose.Say(format, a...))}, nil
}

// jqTold reports whether the system prompt (ins) or a hint in the
// conversation routes work to the jq tool r offers; without it (the
// default) a policy works from what it was shown.
func jqTold(r policy.Request, ins instruct.Set) bool {
	jq, ok := policy.ChooseTool(r.Tools, faJQ)
	return ok && (policy.RoutedTo(ins, jq.Name) || policy.RoutedTo(policy.HintsOf(r), jq.Name))
}

// delegate hands the request and attachments ids to the service the
// delegate tool's schema names first.
func (t *faTurn) delegate(ids []string) (llm.Message, error) {
	service := "data_visualization"
	for _, tool := range t.r.Tools {
		if e := policy.SchemaEnum(tool.Parameters, "service"); len(e) > 0 {
			service = e[0]
		}
	}
	return t.callFor(faDelegate, policy.Slot{Word: "service", Value: service}, policy.Slot{Word: "request", Value: t.ask}, policy.Slot{Word: "attachment", Value: ids})
}

// The kinds of tool the family policies call, in the words a tool's
// description would say them; chooseTool takes the offered tool for each.
var (
	faHistory  = policy.Purpose{Name: "history", Words: "download history entities period"}
	faDelegate = policy.Purpose{Name: "delegate", Words: "hand request another service"}
	faJQ       = policy.Purpose{Name: "jq", Words: "query json attachment jq program"}
	faChart    = policy.Purpose{Name: "chart", Words: "create vega chart"}
)

// callFor calls the tool chosen for p, its arguments filled from slots.
func (t *faTurn) callFor(p policy.Purpose, slots ...policy.Slot) (llm.Message, error) {
	return policy.CallFor(t.r, p, slots...)
}

// now is the system prompt's current time, else the wall clock's.
func (t *faTurn) now() time.Time {
	if m := faNow.FindStringSubmatch(t.r.System()); m != nil {
		if at, err := time.Parse(time.RFC3339, m[1]); err == nil {
			return at
		}
	}
	return time.Now().UTC()
}

// savedID is the attachment a history download saved.
func (t *faTurn) savedID() string {
	if m := faSavedAs.FindStringSubmatch(t.result); m != nil {
		return m[1]
	}
	return ""
}

// attachID returns the id of a faAttachID match, whichever form matched.
func attachID(m []string) string {
	if m[1] != "" {
		return m[1]
	}
	return m[2]
}

// rowAnswer counts CSV rows from what the framework showed, in p's
// language.
func rowAnswer(p lexicon.Prose, req string) string {
	switch {
	case strings.Contains(req, "Binary content not accessible"):
		return p.Say("I cannot read the attachment's content, so I cannot count its rows.")
	case faRowCount.MatchString(req):
		return p.Say("The attached file has %s rows.", faRowCount.FindStringSubmatch(req)[1])
	case strings.Contains(req, faInlineMarker):
		body := req[strings.Index(req, faInlineMarker):]
		body = body[strings.Index(body, "\n")+1:]
		lines := strings.Split(strings.TrimSpace(body), "\n")
		return p.Say("The attached file has %d rows.", max(0, len(lines)-1))
	}
	return p.Say("I cannot tell how many rows the attachment has.")
}
