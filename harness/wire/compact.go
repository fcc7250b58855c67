package wire

import (
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
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
// compaction item as what it carries.
//
// The stand-in's compaction keeps what the conversation did, shorter: its
// compaction item is read as one assistant message that says, in order,
// what the assistant answered, which tools it called with which
// arguments, and what each returned, clipped to compactResult bytes; the
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
	users, summary := compaction(req.Messages)
	var c conversation
	for _, u := range users {
		c.keepItem("cmp_"+h, map[string]any{"type": "message", "role": llm.RoleUser, "content": u})
	}
	item := map[string]any{"type": "compaction", "id": "cmp_" + h[:48], "encrypted_content": encryptedCompaction(h)}
	t.keepCompaction(item["encrypted_content"].(string), summary)
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

// encryptedCompaction is the opaque content of the compaction of the
// request whose hash is h.
func encryptedCompaction(h string) string {
	sum := sha256.Sum256([]byte("compaction " + h))
	return "gAAAAA" + base64.URLEncoding.EncodeToString(sum[:])
}

// compaction is what compacting msgs keeps: the user messages' texts, and
// the summary of the rest the compaction item is read as.
func compaction(msgs []llm.Message) (users []string, summary string) {
	var b strings.Builder
	b.WriteString("Summary of the conversation so far, compacted:")
	names := map[string]string{}
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			users = append(users, m.Content)
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
	return users, b.String()
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
	_, summary := compaction(req.Messages)
	for _, it := range answer.Output {
		if it.Type == "compaction" && it.EncryptedContent != "" {
			t.keepCompaction(it.EncryptedContent, summary)
		}
	}
}
