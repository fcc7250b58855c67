package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// The Anthropic Messages wire format, from Anthropic's API reference. POST
// …/v1/messages is decoded into the same Request the other dialects give,
// so a reader cannot tell them apart:
//
//   - system (a string or text blocks) becomes a system message;
//   - a user message's text blocks become a user message and each
//     tool_result block a tool message (its content a string or text
//     blocks; is_error kept; the name that of the tool_use it answers), in
//     the order of the blocks; a search_result block, in either, is read
//     as its title, source and text (searchResult), a text document
//     (plain text or content) as its title, context and text
//     (documentText); an assistant message's text and tool_use
//     blocks become one assistant message; thinking blocks are dropped;
//   - tools take their schema from input_schema; Anthropic's typed tools
//     are read as anthropic_tools.go says.
//
// The answer is a message of text and tool_use blocks with stop_reason
// end_turn, tool_use, max_tokens or stop_sequence (with the stop_sequence
// it met, Request.StopAt), and every field the official SDK's
// Message type has (null where the stand-in has nothing to say, as the API
// sends). Its ids, msg_… and toolu_…, derive from a hash of the request and
// its sample, so recordings are reproducible and every distinct request
// gets its own. The stand-in has no prompt cache, so its cache counts are 0. Errors use
// Anthropic's body {"type": "error", "error": {"type", "message"},
// "request_id"} with the type its status documents. A request the stand-in
// cannot serve gets a 400 invalid_request_error saying why, never an empty
// success: a missing max_tokens (the API requires it), an unknown block type, a tool_result
// that answers no tool_use. A request in a thread (thread: {"type":
// "create"} or {"type": "continue", "previous_message_id"}) is read as
// Threads says; one asking the server to manage its context
// (context_management) as anthropic_context.go says, and a compaction
// block sent back is read in place of the blocks before it. The API key,
// anthropic-version and anthropic-beta are ignored.

// anthropicRequest is the part of a Messages request the package reads.
type anthropicRequest struct {
	Model         string   `json:"model"`
	MaxTokens     *int     `json:"max_tokens"`
	Stream        bool     `json:"stream"`
	StopSequences []string `json:"stop_sequences"`
	System        any      `json:"system"` // a string or text blocks
	Messages      []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"` // a string or blocks
	} `json:"messages"`
	Tools []anthropicTool `json:"tools"` // anthropic_tools.go
	// MCPServers are remote MCP servers whose tools the API calls itself
	// (the MCP connector beta), which the stand-in refuses as it refuses
	// server tools (anthropic_tools.go).
	MCPServers []struct {
		Name string `json:"name"`
	} `json:"mcp_servers"`
	// OutputConfig.Format (and the beta's OutputFormat) asks for a JSON
	// answer of a schema: structured outputs.
	OutputConfig *struct {
		Format *anthropicFormat `json:"format"`
	} `json:"output_config"`
	OutputFormat *anthropicFormat `json:"output_format"`
	ToolChoice   *struct {
		Type            string `json:"type"`
		Name            string `json:"name"`
		DisableParallel bool   `json:"disable_parallel_tool_use"`
	} `json:"tool_choice"`
	// Thinking, with the sampling settings it rules out (validateAnthropic):
	// a temperature other than 1, any top_k.
	Thinking *struct {
		Type         string `json:"type"`
		BudgetTokens *int   `json:"budget_tokens"`
		Display      string `json:"display"` // summarized, or omitted (display)
	} `json:"thinking"`
	Temperature *float64 `json:"temperature"`
	TopK        *int     `json:"top_k"`
	TopP        *float64 `json:"top_p"`
	// ContextManagement asks the server to edit or compact the
	// conversation before the model reads it (anthropic_context.go).
	ContextManagement *anthropicContext `json:"context_management"`
	// Thread keeps the conversation server-side (Threads).
	Thread *struct {
		Type              string `json:"type"`
		PreviousMessageID string `json:"previous_message_id"`
	} `json:"thread"`
}

// anthropicFormat is the format structured outputs ask for: type
// json_schema and its schema.
type anthropicFormat struct {
	Type   string          `json:"type"`
	Schema json.RawMessage `json:"schema"`
}

// format is the structured-output format ar asks for, and the field it
// came in: output_config.format, else the beta's output_format; nil when
// it asks for none.
func (ar anthropicRequest) format() (*anthropicFormat, string) {
	if ar.OutputConfig != nil && ar.OutputConfig.Format != nil {
		return ar.OutputConfig.Format, "output_config.format"
	}
	if ar.OutputFormat != nil {
		return ar.OutputFormat, "output_format"
	}
	return nil, ""
}

// anthropicBlock is one content block of a request message.
type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   any             `json:"content"` // tool_result: a string or text blocks
	IsError   bool            `json:"is_error"`
	// A search_result block's title and source (a string), and a
	// document's title, context and source (an object: documentText); an
	// image's source is not read.
	Title   string          `json:"title"`
	Context string          `json:"context"`
	Source  json.RawMessage `json:"source"`
}

// searchResult is the text of a search_result block (Anthropic's search
// results, which RAG agents send in a user message or a tool result): its
// title, its source and its text blocks, as the model reads them.
func searchResult(title, source string, content any) string {
	return fmt.Sprintf("%s (%s)\n%s\n", title, source, contentText(content))
}

// documentText is the text of a document block (in a user message or a
// tool result) of title, context and source as the model reads it: a
// plain text source's data, or a content source's text (a string or
// text blocks), after the title and context, each on lines of its own; ""
// for a PDF (base64, URL or file), which the stand-in cannot see.
func documentText(title, context string, source any) string {
	src, _ := source.(map[string]any)
	var body string
	switch src["type"] {
	case "text":
		body, _ = src["data"].(string)
	case "content":
		body = contentText(src["content"])
	}
	if body == "" {
		return ""
	}
	var lines []string
	for _, l := range []string{title, context, body} {
		if l != "" {
			lines = append(lines, strings.TrimSuffix(l, "\n"))
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// decode reads ar as a Request, its messages after those of prior, the
// thread it continues (whose system prompt and tools it takes), and
// returns its own messages apart too; its error is why it cannot be read.
// When strict (the stand-in answering it) a block the stand-in cannot read
// is an error; else (reading recorded traffic) it is left out: server
// tools' calls and results. Either way an image or a PDF document is left
// out: the stand-in cannot see it, and reads the text around it; a text
// document is read as its text (documentText).
func (ar anthropicRequest) decode(strict bool, prior *thread) (Request, []llm.Message, error) {
	if ar.MaxTokens == nil {
		return Request{}, nil, errors.New("max_tokens: Field required")
	}
	r := Request{Model: ar.Model, MaxTokens: *ar.MaxTokens, Temperature: ar.Temperature,
		Sampling: llm.Sampling{TopP: ar.TopP, Stop: ar.StopSequences}}
	if k := ar.TopK; k != nil {
		r.TopK = new(float64)
		*r.TopK = float64(*k)
	}
	if format, _ := ar.format(); format != nil && format.Type == "json_schema" {
		r.Output, r.Schema = llm.OutputJSON, format.Schema
		// A titled schema names the shape asked for, as Gemini's does.
		var titled struct {
			Title string `json:"title"`
		}
		if json.Unmarshal(format.Schema, &titled) == nil {
			r.Shape = titled.Title
		}
	}
	if tc := ar.ToolChoice; tc != nil {
		r.Choice = Choice{None: tc.Type == "none", Required: tc.Type == "any" || tc.Type == "tool", One: tc.DisableParallel}
		if tc.Type == "tool" {
			r.Shape, r.Choice.Only = tc.Name, []string{tc.Name}
		}
	}
	sys := contentText(ar.System)
	tools, err := ar.tools(strict)
	if err != nil {
		return Request{}, nil, err
	}
	names := map[string]string{} // tool_use id → tool name
	if prior != nil {
		sys, tools = prior.system, prior.tools
		for _, m := range prior.msgs {
			for _, c := range m.ToolCalls {
				names[c.ID] = c.Name
			}
		}
	}
	if sys != "" {
		r.Messages = append(r.Messages, llm.Message{Role: llm.RoleSystem, Content: sys})
	}
	var own []llm.Message
	compacted := false
	for i, m := range ar.Messages {
		blocks, err := anthropicBlocks(m.Content)
		if err != nil {
			return Request{}, nil, fmt.Errorf("messages.%d.content: %w", i, err)
		}
		summary, rest, compacts := compactionOf(m.Role, blocks)
		if compacts {
			// The API drops every block before a compaction block: the
			// model reads its summary in their place.
			own, blocks, compacted = []llm.Message{{Role: llm.RoleUser, Content: summary}}, rest, true
		}
		msgs, err := anthropicMessages(m.Role, blocks, names, strict)
		if err != nil {
			return Request{}, nil, fmt.Errorf("messages.%d: %w", i, err)
		}
		if !compacts || len(blocks) > 0 {
			own = append(own, msgs...)
		}
	}
	if prior != nil && !compacted {
		r.Messages = append(r.Messages, prior.msgs...)
	}
	r.Messages, r.Tools = append(r.Messages, own...), tools
	return r, own, nil
}

// compactionOf finds the last compaction block with a summary among an
// assistant message's blocks: its summary and the blocks after it. A
// compaction block without content (one that failed) is no compaction.
func compactionOf(role string, blocks []anthropicBlock) (summary string, rest []anthropicBlock, ok bool) {
	if role != "assistant" {
		return "", nil, false
	}
	for i := len(blocks) - 1; i >= 0; i-- {
		if b := blocks[i]; b.Type == "compaction" && contentText(b.Content) != "" {
			return contentText(b.Content), blocks[i+1:], true
		}
	}
	return "", nil, false
}

// anthropicBlocks reads content that is a string or a list of blocks.
func anthropicBlocks(raw json.RawMessage) ([]anthropicBlock, error) {
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		return []anthropicBlock{{Type: "text", Text: text}}, nil
	}
	var blocks []anthropicBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, errors.New("want a string or a list of content blocks")
	}
	return blocks, nil
}

// anthropicMessages turns one wire message into llm messages, learning the
// names of the tools it calls into names (strict: as decode says).
func anthropicMessages(role string, blocks []anthropicBlock, names map[string]string, strict bool) ([]llm.Message, error) {
	switch role {
	case "assistant":
		msg := llm.Message{Role: llm.RoleAssistant}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				msg.Content += b.Text
			case "tool_use":
				args := objectArgs(b.Input)
				names[b.ID] = b.Name
				msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
			case "thinking", "redacted_thinking", "compaction":
				// A compaction block that failed (no content) is none.
			default:
				if strict {
					return nil, fmt.Errorf("the stand-in reads text, tool_use, thinking and compaction blocks from the assistant, not %q", b.Type)
				}
			}
		}
		return []llm.Message{msg}, nil
	case "user":
		var out []llm.Message
		var text strings.Builder
		flush := func() {
			if text.Len() > 0 {
				out = append(out, llm.Message{Role: llm.RoleUser, Content: text.String()})
				text.Reset()
			}
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				text.WriteString(b.Text)
			case "image":
				// Media the stand-in cannot see, as with the other
				// dialects': it reads the text around it.
			case "document":
				// A text document is read (citations cite it); a PDF,
				// which the stand-in cannot see, is left out.
				var source any
				_ = json.Unmarshal(b.Source, &source)
				text.WriteString(documentText(b.Title, b.Context, source))
			case "search_result":
				var source string
				_ = json.Unmarshal(b.Source, &source)
				text.WriteString(searchResult(b.Title, source, b.Content))
			case "tool_result":
				// Reading traffic, a result whose call came in a thread
				// it does not hold is a tool message with no name.
				name, ok := names[b.ToolUseID]
				if !ok && strict {
					return nil, fmt.Errorf("tool_result answers tool_use_id %q, which no earlier tool_use has", b.ToolUseID)
				}
				flush()
				out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: b.ToolUseID, Name: name, Content: contentText(b.Content), IsError: b.IsError})
			default:
				if strict {
					return nil, fmt.Errorf("the stand-in reads text, image, document, search_result and tool_result blocks from the user, not %q", b.Type)
				}
			}
		}
		flush()
		return out, nil
	case "system":
		// A system message in the conversation (the API takes one from
		// the models that support it, as pydantic-ai sends a changed
		// instruction): its text, in its place.
		var text strings.Builder
		for _, b := range blocks {
			switch b.Type {
			case "text":
				text.WriteString(b.Text)
			default:
				if strict {
					return nil, fmt.Errorf("the stand-in reads text blocks from a system message, not %q", b.Type)
				}
			}
		}
		return []llm.Message{{Role: llm.RoleSystem, Content: text.String()}}, nil
	}
	return nil, fmt.Errorf("role %q: want user, assistant or system", role)
}

// thinks reports whether ar enables thinking (enabled, or adaptive).
func (ar anthropicRequest) thinks() bool {
	return ar.Thinking != nil && (ar.Thinking.Type == "enabled" || ar.Thinking.Type == "adaptive")
}

// thinkingDisplay is how an answer shows the thinking a request asks for.
type thinkingDisplay int

const (
	noThinking      thinkingDisplay = iota // thinking not enabled: no thinking block
	thinkingShown                          // a thinking block with its text (display summarized, the default)
	thinkingOmitted                        // display omitted: the block's thinking is "", its signature kept
)

// display is how ar's answer shows its thinking: display "omitted" leaves
// the thinking block's text empty (and its stream sends no thinking_delta),
// as the API does; the thinking is billed all the same.
func (ar anthropicRequest) display() thinkingDisplay {
	switch {
	case !ar.thinks():
		return noThinking
	case ar.Thinking.Display == "omitted":
		return thinkingOmitted
	}
	return thinkingShown
}
