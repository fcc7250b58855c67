package kura

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	_ "time/tzdata" // user time zones resolve the same on every host

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/lexicon"
	"github.com/agentreplay/testbed/harness/standin/policy"
)

// Executor answers the Kura executor: one tool call per plan step, then
// the step's delta from the tool result, by the table kuraExecutorRules.
type Executor struct{}

// Name is "kura/executor".
func (Executor) Name() string { return "kura/executor" }

// Accepts reports whether r follows its protocol.
func (Executor) Accepts(r policy.Request) bool {
	return strings.Contains(r.System(), "You are the Executor of Vaya")
}

// kuraPurpose is the kind of tool a plan step's action needs: the words of
// the action's name ("ReverseGeocode": "reverse geocode"), which the tool
// for it describes (chooseTool). So a step's tool follows the tools'
// descriptions, not a table of names.
func kuraPurpose(action string) policy.Purpose {
	return policy.Purpose{Name: action, Words: strings.ToLower(camelWords.ReplaceAllString(action, "$1 $2"))}
}

// camelWords finds the boundary of two words of a camel-case name.
var camelWords = regexp.MustCompile(`(\p{Ll})(\p{Lu})`)

// kuraStepTurn is what the executor rules read from a request.
type kuraStepTurn struct {
	r    policy.Request
	step struct {
		ID     string         `json:"id"`
		Action string         `json:"action"`
		Args   map[string]any `json:"args"`
	}
	ws   map[string]any
	tool string        // the tool whose description says the step's action, or ""
	call *llm.ToolCall // the call whose result the request holds, or nil
	res  map[string]any
	json bool // the result is a JSON object
	// prose is how its snippet is written: the prompt's language (the
	// query's when it asks for the user's).
	prose lexicon.Prose
}

// Decide answers by kuraExecutorRules and names the rule.
func (Executor) Decide(r policy.Request) (llm.Message, string, error) {
	first := ""
	for _, m := range r.Messages {
		if m.Role == llm.RoleUser {
			first = m.Content
			break
		}
	}
	var in struct {
		Step       json.RawMessage `json:"step"`
		WorldState map[string]any  `json:"world_state"`
	}
	if err := json.Unmarshal([]byte(first), &in); err != nil {
		return llm.Message{}, "", fmt.Errorf("executor input is not JSON: %w", err)
	}
	t := &kuraStepTurn{r: r, ws: in.WorldState}
	t.prose = lexicon.ProseOf(policy.InstructionsOf(r), kuraString(in.WorldState, "query", "raw"))
	json.Unmarshal(in.Step, &t.step)
	if tool, ok := policy.ChooseTool(r.Tools, kuraPurpose(t.step.Action)); ok {
		t.tool = tool.Name
	}
	if c := policy.LastCall(r.Messages); c != nil && slices.ContainsFunc(r.Messages, func(m llm.Message) bool { return m.Role == llm.RoleTool && m.ToolCallID == c.ID }) {
		t.call = c
		t.json = json.Unmarshal([]byte(policy.ResultOf(r.Messages, c.ID)), &t.res) == nil
	}
	return policy.Decide(kuraExecutorRules(), t)
}

// RuleNames lists the names of its rules, in table order.
func (Executor) RuleNames() []string { return policy.Names(kuraExecutorRules()) }

func (t *kuraStepTurn) arg(k string) string { s, _ := t.step.Args[k].(string); return s }

func (t *kuraStepTurn) fail(tool, message string) (llm.Message, error) {
	return kuraReply(map[string]any{
		"deltaState": map[string]any{"errors": []any{map[string]any{"step": t.step.ID, "tool": tool, "message": message}}},
		"snippet":    t.prose.Say("The %s step failed: %s.", t.step.Action, strings.TrimSuffix(message, ".")),
	})
}

func (t *kuraStepTurn) delta(context map[string]any, snippet string) (llm.Message, error) {
	return kuraReply(map[string]any{"deltaState": map[string]any{"context": context}, "snippet": snippet})
}

// coords puts the coordinates of place from the world state into args.
func (t *kuraStepTurn) coords(args map[string]any, place, latKey, lngKey string) {
	if lat, lng, ok := kuraCoords(t.ws, place); ok {
		args[latKey], args[lngKey] = lat, lng
	}
}

// results are the result's "results" list.
func (t *kuraStepTurn) results() []any {
	r, _ := t.res["results"].([]any)
	return r
}

// kuraCallArgs builds each action's tool arguments from the step and the
// world state: coordinates from context.places (or context.location for
// "current"), units from context.units (imperial by default).
var kuraCallArgs = map[string]func(t *kuraStepTurn) map[string]any{
	"Geocode":   func(t *kuraStepTurn) map[string]any { return map[string]any{"address": t.arg("address")} },
	"Geolocate": func(*kuraStepTurn) map[string]any { return map[string]any{} },
	"ReverseGeocode": func(t *kuraStepTurn) map[string]any {
		args := map[string]any{}
		t.coords(args, "current", "lat", "lng")
		return args
	},
	"Weather": func(t *kuraStepTurn) map[string]any {
		args := map[string]any{"units": "imperial"}
		t.coords(args, t.arg("location"), "lat", "lng")
		if u := kuraString(t.ws, "context", "units"); u != "" {
			args["units"] = u
		}
		return args
	},
	"Transit": func(t *kuraStepTurn) map[string]any {
		args := map[string]any{}
		t.coords(args, t.arg("origin"), "origin_lat", "origin_lng")
		t.coords(args, t.arg("destination"), "destination_lat", "destination_lng")
		if d := t.arg("departureTime"); d != "" {
			args["departure_time"] = d
		}
		return args
	},
	"Places": func(t *kuraStepTurn) map[string]any {
		args := map[string]any{"query": t.arg("query")}
		t.coords(args, t.arg("near"), "lat", "lng")
		return args
	},
}

// kuraExecutorRules is the Kura executor's table, tried in order: the step
// checks, the call, then one rule per kind of result.
func kuraExecutorRules() []policy.Rule[*kuraStepTurn] {
	result := func(action string, more func(*kuraStepTurn) bool) func(*kuraStepTurn) bool {
		return func(t *kuraStepTurn) bool {
			return t.call != nil && t.step.Action == action && (more == nil || more(t))
		}
	}
	return append([]policy.Rule[*kuraStepTurn]{
		{Name: "conversation", Doc: "a Conversation step: no tool, an empty delta",
			Match: func(t *kuraStepTurn) bool { return t.step.Action == "Conversation" },
			Act: func(*kuraStepTurn) (llm.Message, error) {
				return kuraReply(map[string]any{"deltaState": map[string]any{}, "snippet": "Nothing to look up for a conversation."})
			}},
		{Name: "unknown-action", Doc: "an action the policy has no arguments for: an error",
			Match: func(t *kuraStepTurn) bool { return kuraCallArgs[t.step.Action] == nil },
			Act: func(t *kuraStepTurn) (llm.Message, error) {
				return t.fail("", fmt.Sprintf("unknown action %q", t.step.Action))
			}},
		{Name: "tool-missing", Doc: "no offered tool's description says the action: an error",
			Match: func(t *kuraStepTurn) bool { return t.tool == "" },
			Act: func(t *kuraStepTurn) (llm.Message, error) {
				return t.fail("", fmt.Sprintf("no %s tool is available", t.step.Action))
			}},
		{Name: "call-tool", Doc: "no result yet: call the action's tool with arguments from the step and the world state (kuraCallArgs)",
			Match: func(t *kuraStepTurn) bool { return t.call == nil },
			Act: func(t *kuraStepTurn) (llm.Message, error) {
				return policy.ToolCaller(t.r)(t.tool, kuraCallArgs[t.step.Action](t))
			}},
		{Name: "unreadable-result", Doc: "a result that is not a JSON object: an error",
			Match: func(t *kuraStepTurn) bool { return !t.json },
			Act: func(t *kuraStepTurn) (llm.Message, error) {
				return t.fail(t.call.Name, "the tool returned something that is not JSON")
			}},
		{Name: "tool-error", Doc: `an {"error"} result (a string, or Google's {"message"}): an error with its message`,
			Match: func(t *kuraStepTurn) bool { _, ok := t.res["error"]; return ok },
			Act: func(t *kuraStepTurn) (llm.Message, error) {
				e := t.res["error"]
				msg, _ := e.(string)
				if m, ok := e.(map[string]any); ok {
					msg, _ = m["message"].(string)
				}
				return t.fail(t.call.Name, msg)
			}},
	}, kuraResultRules(result)...)
}
