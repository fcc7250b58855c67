package wire

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentreplay/testbed/agents/llm"
)

// Compaction, from OpenAI's Responses API reference and its context
// management guide: POST …/responses/compact (the Agents SDK's
// compaction session, Codex) takes a conversation as a create does (a
// model, instructions, input, or the response it continues) and answers a
// response.compaction object whose output is the conversation's user
// messages and one compaction item, {"type": "compaction", "id",
// "encrypted_content"}, opaque, standing for the rest; the client sends
// that output as the next request's input, and the model reads the
// compaction item as what it carries. A create request may ask for the
// same server-side (context_management: compaction past a compact_threshold
// of input tokens): its answer then gives a compaction item first
// (compactServerSide).
//
// The stand-in's compaction keeps what the conversation did, shorter: its
// compaction item is read as one assistant message that says, in order,
// what the user asked (server-side: /compact gives the user messages
// back beside it), what the assistant answered, which tools it called with
// which arguments, and what each returned, clipped to compactResult
// bytes; the
// instructions and system messages are left out, as each request gives
// its own. Threads keeps the latest maxCompactions by their encrypted
// content; a request sending one it does not keep is refused as the API
// refuses content it cannot verify. The traffic scorer follows the
// compactions in an agent's traffic (Follow) and reads a compaction item
// the same way, a real provider's too: its encrypted content is opaque,
// so what the real model read is not known, and the stand-in's summary of
// the same conversation stands for it.

// maxCompactions is how many compactions Threads keeps.
const maxCompactions = 1 << 12

// compactResult is how many bytes of a tool result a compaction keeps.
const compactResult = 400

// IsCompact reports whether path is the Responses API's compaction,
// …/responses/compact.
func IsCompact(path string) bool {
	return strings.HasSuffix(path, "/responses/compact")
}

// Compact answers POST …/responses/compact (its body) as OpenAI's
// Responses API does, counting the conversation's tokens and the
// summary's with count: the status and the body, errors in OpenAI's shape.
func (t *Threads) Compact(body []byte, count func(Request) int) (int, any) {
	rr, err := parse[responsesRequest](body)
	if err == nil && rr.Model == "" {
		err = &invalid{msg: "Missing required parameter: 'model'.", param: "model"}
	}
	var req Request
	if err == nil {
		req, err = t.readCompact(rr, true)
	}
	if err != nil {
		status, _, refused := Refusal(Responses, body, 1, err)
		return status, refused
	}
	sum := requestHash(body, 1)
	h := hex.EncodeToString(sum[:])
	users, rest := splitCompacted(req.Messages)
	var c conversation
	for _, u := range users {
		c.keepItem("cmp_"+h, map[string]any{"type": "message", "role": llm.RoleUser, "content": u})
	}
	summary := summarize(rest)
	item := t.compactionItem(h, summary)
	in := count(req)
	out := count(Request{Messages: []llm.Message{{Role: llm.RoleAssistant, Content: summary}}})
	output := make([]any, 0, len(c.items)+1)
	for _, it := range c.items {
		output = append(output, it)
	}
	return http.StatusOK, map[string]any{
		"id": "resp_" + h[8:56], "object": "response.compaction", "created_at": 0,
		"output": append(output, item),
		"usage": map[string]any{
			"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": out, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": in + out,
		},
	}
}

// readCompact reads the conversation a compaction request rr compacts,
// strict as the stand-in reads it, or as the traffic scorer does.
func (t *Threads) readCompact(rr responsesRequest, strict bool) (Request, error) {
	if len(rr.Input) == 0 || string(rr.Input) == "null" {
		rr.Input = json.RawMessage(`[]`) // the conversation of the response it continues alone
	}
	prior, err := t.priorOf(rr)
	if err != nil && !strict {
		prior, err = nil, nil
	}
	if err == nil {
		rr.Input, err = t.resolve(rr.Input, strict)
	}
	if err != nil {
		return Request{}, err
	}
	req, _, err := rr.decode(strict, prior)
	return req, err
}

// DecodeCompact reads a compaction request's body as the conversation it
// compacts, as Decode reads a call: the traffic scorer's reading.
func (t *Threads) DecodeCompact(body []byte) (Request, error) {
	rr, err := parse[responsesRequest](body)
	if err != nil {
		return Request{}, err
	}
	return t.readCompact(rr, false)
}

// splitCompacted is what compacting msgs (POST …/responses/compact)
// keeps: the user messages' texts, which the answer gives back, and the
// messages its compaction item stands for (the system messages in
// neither).
func splitCompacted(msgs []llm.Message) (users []string, rest []llm.Message) {
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			users = append(users, m.Content)
		case llm.RoleSystem:
		default:
			rest = append(rest, m)
		}
	}
	return users, rest
}

// summarize is the summary a compaction item of msgs is read as: in
// order, what the user asked, what the assistant answered, which tools it
// called with which arguments, and what each returned, clipped.
func summarize(msgs []llm.Message) string {
	var b strings.Builder
	b.WriteString("Summary of the conversation so far, compacted:")
	names := map[string]string{}
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			fmt.Fprintf(&b, "\n- the user asked: %s", m.Content)
		case llm.RoleAssistant:
			if m.Content != "" {
				fmt.Fprintf(&b, "\n- the assistant answered: %s", m.Content)
			}
			for _, c := range m.ToolCalls {
				names[c.ID] = c.Name
				fmt.Fprintf(&b, "\n- the assistant called %s with %s", c.Name, c.Arguments)
			}
		case llm.RoleTool:
			fmt.Fprintf(&b, "\n- %s returned: %s", cmp.Or(m.Name, names[m.ToolCallID], "a tool"), clipBytes(m.Content, compactResult))
		}
	}
	return b.String()
}

// compactionItem is the compaction item of the request whose hash is h,
// read as summary, which t keeps.
func (t *Threads) compactionItem(h, summary string) map[string]any {
	sum := sha256.Sum256([]byte("compaction " + h))
	item := map[string]any{"type": "compaction", "id": "cmp_" + h[:48], "encrypted_content": "gAAAAA" + base64.URLEncoding.EncodeToString(sum[:])}
	t.keepCompaction(item["encrypted_content"].(string), summary)
	return item
}

// compactServerSide compacts msgs, the conversation of the request whose
// hash is h, as a create request asking for it (context_management) is
// compacted past its threshold (compactRead). It returns what the model
// reads, the compaction item and what the item is read as; the item nil
// when there is nothing before the newest input.
func (t *Threads) compactServerSide(h string, msgs []llm.Message) ([]llm.Message, map[string]any, []llm.Message) {
	read, carried, ok := compactRead(msgs)
	if !ok {
		return msgs, nil, nil
	}
	return read, t.compactionItem(h, carried), []llm.Message{{Role: llm.RoleAssistant, Content: carried}}
}

// compactRead is what a model asked to compact msgs server-side reads:
// the system messages, a summary of the rest up to the newest input, and
// that input (the messages after the last answer, with that answer when
// they are its tools' results). Its compaction stands for the whole
// conversation but the system messages (carried, its summary), as a
// client that drops what came before it relies on (the Agents SDK, and
// Anthropic's API itself). ok is false when there is nothing before the
// newest input to compact.
func compactRead(msgs []llm.Message) (read []llm.Message, carried string, ok bool) {
	var system, rest []llm.Message
	for _, m := range msgs {
		if m.Role == llm.RoleSystem {
			system = append(system, m)
		} else {
			rest = append(rest, m)
		}
	}
	newest := len(rest) - 1
	for i := len(rest) - 1; i >= 0; i-- {
		if rest[i].Role == llm.RoleAssistant {
			newest = i + 1
			if i+1 < len(rest) && rest[i+1].Role == llm.RoleTool {
				newest = i
			}
			break
		}
	}
	if newest <= 0 {
		return msgs, "", false
	}
	read = append(slices.Clip(system), llm.Message{Role: llm.RoleAssistant, Content: summarize(rest[:newest])})
	return append(read, rest[newest:]...), summarize(rest), true
}

// followCompaction keeps the compaction item an answer in an agent's
// traffic gives (resp, whole or streamed; context_management), read as
// the stand-in's summary of the conversation the request sent (msgs, its
// system messages left out).
func (t *Threads) followCompaction(msgs []llm.Message, resp []byte) {
	if !bytes.Contains(resp, []byte(`"compaction"`)) {
		return
	}
	summary := summarize(slices.DeleteFunc(slices.Clone(msgs), func(m llm.Message) bool { return m.Role == llm.RoleSystem }))
	for _, raw := range responseOutputRaw(resp) {
		var it struct {
			Type             string `json:"type"`
			EncryptedContent string `json:"encrypted_content"`
		}
		if json.Unmarshal(raw, &it) == nil && it.Type == "compaction" && it.EncryptedContent != "" {
			t.keepCompaction(it.EncryptedContent, summary)
		}
	}
}

// clipBytes is s cut to at most n bytes, at a rune's start, with an
// ellipsis when cut.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// keepCompaction keeps the summary a compaction item of encrypted content
// is read as.
func (t *Threads) keepCompaction(encrypted, summary string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.compactions.put(encrypted, summary, maxCompactions)
}

// compacted is the summary a compaction item of encrypted content is read
// as, and whether t keeps it.
func (t *Threads) compacted(encrypted string) (string, bool) {
	if t == nil {
		return "", false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.compactions.get(encrypted)
}

// followCompact keeps the compaction a compaction exchange in an agent's
// traffic made (its request body and its answer resp), summarized from
// the request as the stand-in summarizes it.
func (t *Threads) followCompact(body, resp []byte) {
	req, err := t.DecodeCompact(body)
	if err != nil {
		return
	}
	var answer struct {
		Output []struct {
			Type             string `json:"type"`
			EncryptedContent string `json:"encrypted_content"`
		} `json:"output"`
	}
	if json.Unmarshal(resp, &answer) != nil {
		return
	}
	_, rest := splitCompacted(req.Messages)
	summary := summarize(rest)
	for _, it := range answer.Output {
		if it.Type == "compaction" && it.EncryptedContent != "" {
			t.keepCompaction(it.EncryptedContent, summary)
		}
	}
}
