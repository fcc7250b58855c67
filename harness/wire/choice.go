package wire

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/agentreplay/testbed/agents/llm"
)

// Choice is what a request lets its answer call, read alike from every
// dialect's tool choice: Chat Completions' and the Responses API's
// tool_choice and parallel_tool_calls (and the legacy function_call),
// Anthropic's tool_choice, Gemini's toolConfig.functionCallingConfig.
// The zero Choice lets the answer call any of the request's tools, as
// many at once as it likes.
type Choice struct {
	// None: the answer calls no tool (tool_choice none, Anthropic's type
	// none, Gemini's mode NONE, function_call none).
	None bool
	// Required: the answer calls a tool (tool_choice required, a forced
	// function or tool, Anthropic's any, Gemini's mode ANY), as the real
	// APIs guarantee.
	Required bool
	// One: the answer makes one call at most (parallel_tool_calls false,
	// Anthropic's disable_parallel_tool_use, and the legacy functions API,
	// whose answer carries a single function_call).
	One bool
	// Only names the tools the answer may call when the request narrows
	// them (a forced function or tool, allowed_tools, Gemini's
	// allowedFunctionNames with mode ANY); nil when it does not.
	Only []string
}

// Offered returns r with the tools its Choice lets the answer call: none
// when it may call none, else those it names. The tokens of the request
// are still those of all its tools: the model is shown them all.
func (r Request) Offered() Request {
	switch {
	case r.Choice.None:
		r.Tools = nil
	case r.Choice.Only != nil:
		r.Tools = slices.DeleteFunc(slices.Clone(r.Tools), func(t llm.Tool) bool { return !slices.Contains(r.Choice.Only, t.Name) })
	}
	return r
}

// Limit returns msg with only the calls c lets an answer make: none, only
// the tools it names, the first one.
func (c Choice) Limit(msg llm.Message) llm.Message {
	calls := msg.ToolCalls
	switch {
	case c.None:
		calls = nil
	case c.Only != nil:
		calls = slices.DeleteFunc(slices.Clone(calls), func(tc llm.ToolCall) bool { return !slices.Contains(c.Only, tc.Name) })
	}
	if c.One && len(calls) > 1 {
		calls = calls[:1]
	}
	msg.ToolCalls = calls
	return msg
}

// openAIChoice reads an OpenAI tool_choice, of either API, or the legacy
// function_call: "none", "auto" or "required"; a tool forced, as Chat
// Completions ({"type": "function", "function": {"name"}}, {"type":
// "custom", "custom": {"name"}}), the Responses API ({"type": "function" or
// "custom", "name"}; {"type": "apply_patch"} and {"type": "shell"}, its
// built-in tools the program runs, which Decode reads as tools so named)
// or function_call ({"name"}) name it; allowed_tools, in either API's
// shape, of the same tools, required when its mode says so. A hosted tool
// or one it does not know narrows nothing, and an allowed_tools entry for
// one is left out.
func openAIChoice(raw json.RawMessage) Choice {
	var mode string
	if json.Unmarshal(raw, &mode) == nil {
		return Choice{None: mode == "none", Required: mode == "required"}
	}
	var c struct {
		choiceTool
		Mode         string       `json:"mode"`  // Responses' allowed_tools
		Tools        []choiceTool `json:"tools"` // Responses' allowed_tools
		AllowedTools *struct {
			Mode  string       `json:"mode"`
			Tools []choiceTool `json:"tools"`
		} `json:"allowed_tools"` // Chat Completions'
	}
	if json.Unmarshal(raw, &c) != nil {
		return Choice{}
	}
	if c.Type == "allowed_tools" {
		tools, mode := c.Tools, c.Mode
		if c.AllowedTools != nil {
			tools, mode = c.AllowedTools.Tools, c.AllowedTools.Mode
		}
		only := []string{}
		for _, t := range tools {
			if name := t.name(); name != "" {
				only = append(only, name)
			}
		}
		return Choice{Only: only, Required: mode == "required"}
	}
	if name := c.name(); name != "" {
		return Choice{Only: []string{name}, Required: true}
	}
	return Choice{}
}

// choiceTool is a tool as an OpenAI tool_choice names it, forced or
// among allowed_tools.
type choiceTool struct {
	Type     string `json:"type"`
	Name     string `json:"name"` // the Responses API's, and function_call's
	Function struct {
		Name string `json:"name"`
	} `json:"function"` // Chat Completions' function
	Custom struct {
		Name string `json:"name"`
	} `json:"custom"` // Chat Completions' custom tool
}

// name is the name of the tool t names as Decode reads it ("" for a
// hosted tool, or one it does not know): a function's or a custom tool's,
// or apply_patch and shell, named by their type.
func (t choiceTool) name() string {
	switch {
	case t.Type == "function" || t.Type == "": // function_call names it with no type
		return cmp.Or(t.Name, t.Function.Name)
	case t.Type == "custom":
		return cmp.Or(t.Name, t.Custom.Name)
	case clientTools[t.Type]:
		return t.Type
	}
	return ""
}

// notParallel reports whether a parallel_tool_calls flag was given false.
func notParallel(p *bool) bool { return p != nil && !*p }

// CallID is the id the package gives the n-th tool call of a
// conversation (from 1) that came without one: a Gemini functionCall
// without an id, a legacy Chat Completions function_call.
func CallID(n int) string { return "call_" + strconv.Itoa(n) }
