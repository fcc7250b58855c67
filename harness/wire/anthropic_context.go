package wire

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/agentreplay/testbed/agents/llm"
)

// Anthropic's context management, from its context editing and
// compaction guides and the official SDKs' beta types: a Messages request
// may ask the server to manage its context (context_management: {"edits":
// […]}) before the model reads it, in the order the edits are given:
//
//   - clear_tool_uses_20250919: past a trigger (input_tokens, 100,000 by
//     default, or a number of tool_uses), every tool result but those of
//     the latest keep tool uses (3 by default) is replaced by a
//     placeholder, except exclude_tools' results; clear_tool_inputs (true,
//     or tool names) empties those uses' inputs too. Nothing is cleared
//     when it would clear fewer input tokens than clear_at_least;
//   - clear_thinking_20251015: thinking blocks of all but the latest keep
//     assistant turns (1 by default; "all" keeps every one) are cleared;
//     the stand-in reads no thinking block, so this clears turns and no
//     input tokens it counts;
//   - compact_20260112: past a trigger of input tokens (150,000 by
//     default, 50,000 at least) the conversation is compacted: the model
//     reads the system prompt, a summary up to the newest input, and that
//     input (compactRead), and the answer starts with a compaction block
//     {"type": "compaction", "content": the summary, "encrypted_content"}
//     standing for the whole conversation, since the API drops every block
//     before a compaction block a later request sends (anthropicRequest's
//     decode reads that block as a user message carrying its summary).
//     With pause_after_compaction the answer is that block alone,
//     stop_reason "compaction". Its usage gives the compaction's tokens
//     and the answer's apart (usage.iterations), the top-level counts the
//     answer's alone. The stand-in ignores the edit's instructions.
//
// An answer to a request that asks for edits says what they cleared
// (context_management.applied_edits, one entry an edit that cleared
// something); streamed, in message_delta. A token count reads the
// conversation edited, and gives the count before the edits as
// context_management.original_input_tokens.

// Anthropic's context edits.
const (
	clearToolUses = "clear_tool_uses_20250919"
	clearThinking = "clear_thinking_20251015"
	compactEdit   = "compact_20260112"
)

// Their defaults and bounds, from Anthropic's guides.
const (
	clearTriggerTokens   = 100_000
	clearKeepToolUses    = 3
	compactTriggerTokens = 150_000
	compactMinTrigger    = 50_000
)

// clearedResult is what a cleared tool result reads.
const clearedResult = "[This tool result was cleared to save context.]"

// anthropicContext is a Messages request's context_management.
type anthropicContext struct {
	Edits []anthropicEdit `json:"edits"`
}

// anthropicEdit is one context edit, of any type.
type anthropicEdit struct {
	Type                 string           `json:"type"`
	Trigger              *anthropicAmount `json:"trigger"`
	Keep                 json.RawMessage  `json:"keep"` // {type, value}; clear_thinking: or "all"
	ClearAtLeast         *anthropicAmount `json:"clear_at_least"`
	ExcludeTools         []string         `json:"exclude_tools"`
	ClearToolInputs      json.RawMessage  `json:"clear_tool_inputs"` // a bool or tool names
	PauseAfterCompaction bool             `json:"pause_after_compaction"`
}

// anthropicAmount is a trigger's, keep's or clear_at_least's amount.
type anthropicAmount struct {
	Type  string `json:"type"`
	Value int    `json:"value"`
}

// check refuses edits the API refuses: an unknown type, a trigger of
// another unit than the edit counts, a compaction trigger under its least.
func (c *anthropicContext) check() error {
	if c == nil {
		return nil
	}
	for i, e := range c.Edits {
		at := fmt.Sprintf("context_management.edits.%d", i)
		switch e.Type {
		case clearToolUses:
			if e.Trigger != nil && e.Trigger.Type != "input_tokens" && e.Trigger.Type != "tool_uses" {
				return &invalid{msg: fmt.Sprintf("%s.trigger.type: Input should be 'input_tokens' or 'tool_uses'", at)}
			}
		case clearThinking:
		case compactEdit:
			switch t := e.Trigger; {
			case t != nil && t.Type != "input_tokens":
				return &invalid{msg: fmt.Sprintf("%s.trigger.type: Input should be 'input_tokens'", at)}
			case t != nil && t.Value < compactMinTrigger:
				return &invalid{msg: fmt.Sprintf("%s.trigger.value: Input should be greater than or equal to %d", at, compactMinTrigger)}
			}
		default:
			return &invalid{msg: fmt.Sprintf("%s: Input tag '%s' found using 'type' does not match any of the expected tags: '%s', '%s', '%s'", at, e.Type, clearToolUses, clearThinking, compactEdit)}
		}
	}
	return nil
}

// anthropicManaged is what managing a request's context did, for its
// answer to say.
type anthropicManaged struct {
	asked   bool  // the request asked for edits: the answer says which applied
	applied []any // context_management.applied_edits
	// block is the compaction block the answer starts with, nil when the
	// conversation was not compacted; iteration its usage.
	block, iteration map[string]any
	pause            bool // the answer is the compaction block alone
}

// manage returns the Encoder.Context of a request asking for c, whose
// hash is h and which sends thinking blocks in thinkingTurns assistant
// turns; what it does goes into m.
func (c *anthropicContext) manage(h string, thinkingTurns int, m *anthropicManaged) Manage {
	return func(msgs []llm.Message, count func([]llm.Message) int) []llm.Message {
		m.asked = true
		for _, e := range c.Edits {
			switch e.Type {
			case clearThinking:
				if n := thinkingTurns - e.keepThinking(); n > 0 {
					m.applied = append(m.applied, map[string]any{"type": clearThinking, "cleared_thinking_turns": n, "cleared_input_tokens": 0})
				}
			case clearToolUses:
				var edit map[string]any
				if msgs, edit = e.clearToolUses(msgs, count); edit != nil {
					m.applied = append(m.applied, edit)
				}
			case compactEdit:
				if m.block != nil {
					continue
				}
				in := count(msgs)
				if in <= e.amount(e.Trigger, compactTriggerTokens) {
					continue
				}
				read, carried, ok := compactRead(msgs)
				if !ok {
					continue
				}
				sum := sha256.Sum256([]byte("compaction " + h))
				m.block = map[string]any{"type": "compaction", "content": carried, "encrypted_content": base64.StdEncoding.EncodeToString(sum[:])}
				toks, _ := answerTokens(carried)
				m.iteration = anthropicIteration("compaction", in, len(toks))
				m.pause = e.PauseAfterCompaction
				msgs = read
			}
		}
		return msgs
	}
}

// amount is a's value, else def.
func (e anthropicEdit) amount(a *anthropicAmount, def int) int {
	if a == nil {
		return def
	}
	return a.Value
}

// keepThinking is how many assistant turns' thinking a clear_thinking
// edit keeps: {"type": "thinking_turns", "value"}, or every one for "all"
// or {"type": "all"}; 1 by default.
func (e anthropicEdit) keepThinking() int {
	var all string
	if json.Unmarshal(e.Keep, &all) == nil && all == "all" {
		return math.MaxInt
	}
	var keep anthropicAmount
	switch err := json.Unmarshal(e.Keep, &keep); {
	case err != nil || keep.Type == "":
		return 1
	case keep.Type == "all":
		return math.MaxInt
	}
	return keep.Value
}

// clearsInput reports whether a clear_tool_uses edit empties the input of
// a cleared use of tool name.
func (e anthropicEdit) clearsInput(name string) bool {
	var all bool
	if json.Unmarshal(e.ClearToolInputs, &all) == nil {
		return all
	}
	var names []string
	return json.Unmarshal(e.ClearToolInputs, &names) == nil && slices.Contains(names, name)
}

// clearToolUses applies a clear_tool_uses edit to msgs: past its trigger,
// the results of every tool use but the latest keep (and those of
// exclude_tools) read the placeholder, their inputs emptied as
// clear_tool_inputs says. It returns msgs edited and the applied edit,
// or msgs as they were and nil when it clears nothing, or fewer input
// tokens than clear_at_least.
func (e anthropicEdit) clearToolUses(msgs []llm.Message, count func([]llm.Message) int) ([]llm.Message, map[string]any) {
	type use struct{ msg, call int }
	var uses []use
	for i, m := range msgs {
		for j := range m.ToolCalls {
			uses = append(uses, use{i, j})
		}
	}
	before := count(msgs)
	trigger := e.amount(e.Trigger, clearTriggerTokens)
	if e.Trigger != nil && e.Trigger.Type == "tool_uses" {
		if len(uses) <= trigger {
			return msgs, nil
		}
	} else if before <= trigger {
		return msgs, nil
	}
	keep := clearKeepToolUses
	var k anthropicAmount
	if json.Unmarshal(e.Keep, &k) == nil && k.Type != "" {
		keep = k.Value
	}
	edited := slices.Clone(msgs)
	cleared := 0
	for _, u := range uses[:max(0, len(uses)-keep)] {
		call := msgs[u.msg].ToolCalls[u.call]
		if slices.Contains(e.ExcludeTools, call.Name) {
			continue
		}
		for i := u.msg + 1; i < len(edited); i++ {
			if edited[i].Role == llm.RoleTool && edited[i].ToolCallID == call.ID {
				edited[i].Content = clearedResult
				break
			}
		}
		if e.clearsInput(call.Name) {
			calls := slices.Clone(edited[u.msg].ToolCalls)
			calls[u.call].Arguments = json.RawMessage(`{}`)
			edited[u.msg].ToolCalls = calls
		}
		cleared++
	}
	saved := before - count(edited)
	if cleared == 0 || saved < e.amount(e.ClearAtLeast, 0) {
		return msgs, nil
	}
	return edited, map[string]any{"type": clearToolUses, "cleared_tool_uses": cleared, "cleared_input_tokens": saved}
}

// anthropicIteration is one entry of usage.iterations: a sampling of the
// kind given ("compaction", "message") reading in tokens, writing out.
func anthropicIteration(kind string, in, out int) map[string]any {
	return map[string]any{
		"type": kind, "input_tokens": in, "output_tokens": out,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
		"cache_creation": map[string]any{"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
	}
}

// say adds to m, an answer's message (anthropicMessage), what managing
// its request's context did: the compaction block first (alone, when the
// request pauses after it), the usage of each iteration, and the edits
// applied.
func (a *anthropicManaged) say(m map[string]any) {
	if a == nil || !a.asked {
		return
	}
	if a.block != nil {
		usage := m["usage"].(map[string]any)
		if a.pause {
			m["content"], m["stop_reason"], m["stop_sequence"] = []any{a.block}, "compaction", nil
			usage["input_tokens"], usage["output_tokens"] = 0, 0
			usage["iterations"] = []any{a.iteration}
		} else {
			m["content"] = append([]any{a.block}, m["content"].([]any)...)
			usage["iterations"] = []any{a.iteration, anthropicIteration("message", usage["input_tokens"].(int), usage["output_tokens"].(int))}
		}
	}
	m["context_management"] = map[string]any{"applied_edits": append([]any{}, a.applied...)}
}

// thinkingTurns counts the assistant messages of ar that carry thinking.
func (ar anthropicRequest) thinkingTurns() int {
	n := 0
	for _, m := range ar.Messages {
		if m.Role != "assistant" {
			continue
		}
		blocks, _ := anthropicBlocks(m.Content)
		if slices.ContainsFunc(blocks, func(b anthropicBlock) bool { return b.Type == "thinking" || b.Type == "redacted_thinking" }) {
			n++
		}
	}
	return n
}
