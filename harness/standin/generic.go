package standin

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
)

// GenericName is the name of the generic policy, the value of
// cassette.PolicyHeader on the responses it gives.
const GenericName = cassette.GenericPolicy

// Generic returns the generic plumbing policy: the stand-in for an agent it
// has never seen, which the server asks when no agent-specific policy
// accepts a request. It is not a model. It proves the plumbing of an
// agent — its requests reach the model, its tool calls reach its upstreams,
// the results come back and an answer goes out — with rules a reader can
// predict, and its answers say nothing about how well a prompt works.
//
// It decides from the request alone, by these rules, in order:
//
//  1. Answer from results: when tool results follow the last user message,
//     answer in text from them: for each result, the tool's error if it
//     reports one ({"error": …}, {"error": true, "reason": …} or text
//     starting with "error"), else up to genericSalient values of its
//     JSON (leaves in document order, those whose paths share more terms
//     with the user's words and the tool's name and description first, the
//     first item of each array, units from a "units" or "X_units" object
//     appended), else the start of its text. So it calls at most one round
//     of tools.
//  2. Call a tool: score each tool against the last user message (see
//     toolScore) and call the best one when it scores at least
//     genericMinScore (the first in the request's order on a tie), with
//     arguments filled from its schema (see generic_args.go). When the text
//     lists several places ("Paris and Berlin") and the tool wants a place,
//     it calls the tool once per place, in parallel (at most genericMaxCalls).
//  3. Answer plainly: with no tools, or none that scores enough, a short
//     text naming the tools it has, or echoing the message.
//
// In JSON mode (response_format json_object or json_schema) a text answer
// is a JSON object instead: the response schema's properties filled as
// tool arguments are, with the text for strings that want nothing else, or
// {"answer": text} without a schema.
func Generic() Policy { return genericPolicy{} }

// Limits of the generic policy.
const (
	// genericMinScore is the least toolScore that calls a tool: one word of
	// its name or parameters, or two of its description.
	genericMinScore = 2
	// genericMaxCalls bounds the calls of one parallel round.
	genericMaxCalls = 4
	// genericSalient bounds the values quoted from one tool result.
	genericSalient = 6
)

type genericPolicy struct{}

func (genericPolicy) Name() string { return GenericName }

// Accepts takes every request: the server asks it last.
func (genericPolicy) Accepts(Request) bool { return true }

func (genericPolicy) Answer(r Request) (llm.Message, error) {
	user := r.LastUser()
	var text string
	if results := resultsSinceUser(r.Messages); len(results) > 0 {
		text = answerFromResults(results, r.Tools, user)
	} else if tool, ok := bestTool(r.Tools, user); ok {
		return callTool(r, tool, user), nil
	} else {
		text = plainAnswer(r.Tools, user)
	}
	if !r.JSON {
		return llm.Message{Role: llm.RoleAssistant, Content: text}, nil
	}
	obj := map[string]any{"answer": text}
	if s := schemaOf(r.Schema); len(s) > 0 {
		t := newArgText(user, r)
		t.fallback = text
		if v, ok := fillValue("answer", s, t, true, 0); ok {
			if m, isObj := v.(map[string]any); isObj && len(m) > 0 {
				obj = m
			}
		}
	}
	b, err := marshalPlain(obj)
	if err != nil {
		return llm.Message{}, fmt.Errorf("encode the JSON answer: %w", err)
	}
	return llm.Message{Role: llm.RoleAssistant, Content: string(b)}, nil
}

// toolScore is how well a tool matches the user's terms: 3 for each term
// of its name, 2 for each further term of its parameters' names, 1 for each
// further term of its description (terms as generic_words.go cuts them).
func toolScore(t llm.Tool, user map[string]bool) int {
	name := terms(t.Name)
	params := map[string]bool{}
	props, _ := schemaOf(t.Parameters)["properties"].(map[string]any)
	for p := range props {
		for w := range terms(p) {
			if !name[w] {
				params[w] = true
			}
		}
	}
	desc := map[string]bool{}
	for w := range terms(t.Description) {
		if !name[w] && !params[w] {
			desc[w] = true
		}
	}
	return 3*overlap(user, name) + 2*overlap(user, params) + overlap(user, desc)
}

// bestTool is the tool that scores best against text, if any scores
// genericMinScore.
func bestTool(tools []llm.Tool, text string) (llm.Tool, bool) {
	user := terms(text)
	best, score := -1, genericMinScore-1
	for i, t := range tools {
		if s := toolScore(t, user); s > score {
			best, score = i, s
		}
	}
	if best < 0 {
		return llm.Tool{}, false
	}
	return tools[best], true
}

// callTool calls tool once, or once per listed place.
func callTool(r Request, tool llm.Tool, user string) llm.Message {
	schema := schemaOf(tool.Parameters)
	targets := []string{""}
	if listed := listedPlaces(user); len(listed) > 1 && wantsPlace(schema) {
		targets = listed[:min(len(listed), genericMaxCalls)]
	}
	n := priorCalls(r.Messages)
	msg := llm.Message{Role: llm.RoleAssistant}
	for i, place := range targets {
		t := newArgText(user, r)
		t.place = place
		args, _ := marshalPlain(fillObject(schema, t, false, 0))
		msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: "call_" + strconv.Itoa(n+i+1), Name: tool.Name, Arguments: args})
	}
	return msg
}

// wantsPlace reports whether a required property of schema s is a place.
func wantsPlace(s map[string]any) bool {
	req, _ := s["required"].([]any)
	for _, n := range req {
		if n, ok := n.(string); ok && (overlap(stems(strings.ReplaceAll(n, "_", " ")), genericPlaceWords) > 0 || terms(n)["place"]) {
			return true
		}
	}
	return false
}

// priorCalls counts the tool calls already in msgs, so that new calls get
// fresh ids.
func priorCalls(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.ToolCalls)
	}
	return n
}

// calledResult is one tool result with the name of the tool it answers.
type calledResult struct {
	name, content string
}

// resultsSinceUser returns the tool results after the last user message.
func resultsSinceUser(msgs []llm.Message) []calledResult {
	names := map[string]string{}
	var out []calledResult
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			out = nil
		case llm.RoleAssistant:
			for _, c := range m.ToolCalls {
				names[c.ID] = c.Name
			}
		case llm.RoleTool:
			name := m.Name
			if name == "" {
				name = names[m.ToolCallID]
			}
			if name == "" {
				name = "the tool"
			}
			out = append(out, calledResult{name: name, content: m.Content})
		}
	}
	return out
}

// answerFromResults is rule 1's text. A value is salient when its path
// shares terms with the user's words or with the called tool's name and
// description.
func answerFromResults(results []calledResult, tools []llm.Tool, user string) string {
	var parts []string
	for _, res := range results {
		want := terms(user)
		for _, t := range tools {
			if t.Name == res.name {
				maps.Copy(want, terms(t.Name+" "+t.Description))
			}
		}
		parts = append(parts, resultSentence(res, want))
	}
	return strings.Join(parts, " ")
}

func resultSentence(res calledResult, want map[string]bool) string {
	content := strings.TrimSpace(res.content)
	if content == "" {
		return res.name + " returned nothing."
	}
	var v any
	if json.Unmarshal([]byte(content), &v) != nil {
		if strings.HasPrefix(strings.ToLower(content), "error") {
			return res.name + " failed: " + clipText(content, 200)
		}
		return "From " + res.name + ": " + clipText(content, 200)
	}
	if reason, failed := errorOf(v); failed {
		return res.name + " failed: " + clipText(reason, 200)
	}
	leaves := withUnits(flatten(content))
	if len(leaves) == 0 {
		return res.name + " returned no values."
	}
	sort.SliceStable(leaves, func(i, j int) bool {
		return overlap(terms(leaves[i].path), want) > overlap(terms(leaves[j].path), want)
	})
	var vals []string
	for _, l := range leaves[:min(len(leaves), genericSalient)] {
		vals = append(vals, l.path+": "+l.value)
	}
	return "From " + res.name + ": " + strings.Join(vals, "; ") + "."
}

// withUnits folds unit objects into the values they describe: a leaf
// "X_units.k" or "units.k" is not quoted itself but appended to the value
// of "X.k" or of a sibling "k".
func withUnits(leaves []leaf) []leaf {
	units := map[string]string{}
	var out []leaf
	for _, l := range leaves {
		parent, key, nested := strings.Cut(l.path, ".")
		if nested && !strings.Contains(key, ".") && (parent == "units" || strings.HasSuffix(parent, "_units")) {
			units[strings.TrimSuffix(strings.TrimSuffix(parent, "units"), "_")+"."+key] = l.value
			continue
		}
		out = append(out, l)
	}
	for i, l := range out {
		u, ok := units[l.path]
		if !ok {
			u, ok = units["."+l.path]
		}
		if ok && u != "" {
			out[i].value += " " + u
		}
	}
	return out
}

// errorOf reads the error a JSON tool result reports.
func errorOf(v any) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	switch e := m["error"].(type) {
	case string:
		return e, true
	case bool:
		if e {
			reason, _ := m["reason"].(string)
			return cmp.Or(reason, "an error"), true
		}
	case map[string]any:
		msg, _ := e["message"].(string)
		return cmp.Or(msg, "an error"), true
	}
	return "", false
}

// leaf is one scalar of a JSON document with its dotted path.
type leaf struct{ path, value string }

// flatten returns the scalars of a JSON document in document order, with
// only the first item of each array.
func flatten(doc string) []leaf {
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	var out []leaf
	var walk func(path string) bool
	walk = func(path string) bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch d := tok.(type) {
		case json.Delim:
			for i := 0; dec.More(); i++ {
				key := path
				if d == '{' {
					k, err := dec.Token()
					if err != nil {
						return false
					}
					key = strings.TrimPrefix(path+"."+fmt.Sprint(k), ".")
				}
				keep := len(out)
				if !walk(key) {
					return false
				}
				if d == '[' && i > 0 {
					out = out[:keep]
				}
			}
			_, err := dec.Token()
			return err == nil
		case nil:
			return true
		default:
			out = append(out, leaf{path: cmp.Or(path, "value"), value: fmt.Sprint(d)})
			return true
		}
	}
	walk("")
	return out
}

// plainAnswer is rule 3's text.
func plainAnswer(tools []llm.Tool, user string) string {
	if len(tools) == 0 {
		return fmt.Sprintf("You said: %q. I have no tools, so this is all I can answer.", clipText(strings.TrimSpace(user), 120))
	}
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	return "I did not need a tool for that. I can use: " + strings.Join(names, ", ") + "."
}
