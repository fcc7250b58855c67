package generic

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/lexicon"
	"github.com/agentreplay/testbed/harness/standin/policy"
)

// calledResult is one tool result with the name of the tool it answers.
type calledResult struct {
	name, content string
}

// resultsSinceUser returns the tool results after the last user message
// that answer r's agent's own calls (ownCall).
func resultsSinceUser(r policy.Request) []calledResult {
	names := map[string]string{}
	var out []calledResult
	for _, m := range r.Messages {
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
			} else if !ownCall(r, name) {
				continue
			}
			out = append(out, calledResult{name: name, content: m.Content})
		}
	}
	return out
}

// answerFromResults is rule 3's text. A value is salient when its path
// shares terms with the user's words or with the called tool's name and
// description. A tool the prompt forbids naming is "a tool", a value it
// forbids showing or mentioning is left out, and a value a format
// example covers is written as the example is.
func answerFromResults(g genericTurn, results []calledResult) string {
	var parts []string
	for _, res := range results {
		want := lexicon.Terms(g.user)
		for _, t := range g.r.Tools {
			if t.Name == res.name {
				maps.Copy(want, lexicon.Terms(t.Name+" "+t.Description))
			}
		}
		parts = append(parts, resultSentence(g, res, want))
	}
	return strings.Join(parts, " ")
}

func resultSentence(g genericTurn, res calledResult, want map[string]bool) string {
	name, p := nameOf(g.ins, res.name), g.prose
	content := strings.TrimSpace(res.content)
	if content == "" {
		return p.Say("%s returned nothing.", name)
	}
	var v any
	if json.Unmarshal([]byte(content), &v) != nil {
		if strings.HasPrefix(strings.ToLower(content), "error") {
			return p.Say("%s failed: %s", name, policy.ClipText(content, 200))
		}
		return p.Say("From %s: %s", name, policy.ClipText(content, 200))
	}
	if reason, failed := errorOf(v); failed {
		return p.Say("%s failed: %s", name, policy.ClipText(reason, 200))
	}
	q := lexicon.Read(g.user)
	leaves := slices.DeleteFunc(withUnits(flatten(content)), func(l leaf) bool { return !quotable(g.ins, l.path, q) })
	if len(leaves) == 0 {
		return p.Say("%s returned no values.", name)
	}
	sort.SliceStable(leaves, func(i, j int) bool {
		return lexicon.Overlap(lexicon.Terms(leaves[i].path), want) > lexicon.Overlap(lexicon.Terms(leaves[j].path), want)
	})
	var vals []string
	for _, l := range leaves[:min(len(leaves), genericSalient)] {
		vals = append(vals, l.path+": "+formattedValue(g.ins, l.path, l.value))
	}
	return p.Say("From %s: %s.", name, strings.Join(vals, "; "))
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

// plainAnswer is rule 8's text: the tools it has, but those the prompt
// forbids naming.
func plainAnswer(g genericTurn) string {
	if len(g.r.Tools) == 0 {
		return g.prose.Say("You said: %q. I have no tools, so this is all I can answer.", policy.ClipText(strings.TrimSpace(g.user), 120))
	}
	var names []string
	for _, t := range g.r.Tools {
		if !g.ins.Forbids("name", t.Name) {
			names = append(names, t.Name)
		}
	}
	if len(names) == 0 {
		return g.prose.Say("I did not need a tool for that.")
	}
	return g.prose.Say("I did not need a tool for that. I can use: %s.", strings.Join(names, ", "))
}
