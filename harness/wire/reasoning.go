package wire

import (
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// Reasoning items, from OpenAI's Responses API reference and the errors
// its clients meet: a reasoning model's answer (o1, o3, o4-mini, gpt-5 and
// their kin, not gpt-5's chat model) starts with a reasoning item, rs_…,
// its summary empty unless reasoning.summary asks for one, with its
// encrypted_content (given by default, as the SDKs' reference says, and
// what include: reasoning.encrypted_content asks for); its tokens are
// billed as output and counted in reasoning_tokens. The
// stand-in's reasoning is one line saying what it decided (thinkingOf).
// The items an answer gives after its reasoning item need it: a request
// that sends one of them back by its id without the reasoning item is
// refused ("Item 'fc_…' of type 'function_call' was provided without its
// required 'reasoning' item: 'rs_…'."), as is a reasoning item sent back
// without its encrypted_content when its answer was not stored ("Item
// with id 'rs_…' not found. Items are not persisted when `store` is set
// to false. …"). A request continuing an answer (previous_response_id)
// carries its items and is not checked for them.

// reasons reports whether model answers with a reasoning item.
func reasons(model string) bool {
	m := model[strings.LastIndex(model, "/")+1:]
	if strings.Contains(m, "-chat") {
		return false
	}
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "codex-"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}

// reasoningItem is the reasoning item of rr's answer msg, whose response
// hash is h, and the output tokens its reasoning takes.
func (rr responsesRequest) reasoningItem(h string, msg llm.Message) (map[string]any, int, error) {
	text := thinkingOf(msg)
	toks, err := answerTokens(text)
	if err != nil {
		return nil, 0, err
	}
	item := map[string]any{"type": "reasoning", "id": "rs_" + h[2:50], "summary": []any{}}
	if r := rr.Reasoning; r != nil && r.Summary != nil && *r.Summary != "" && *r.Summary != "none" {
		item["summary"] = []any{map[string]any{"type": "summary_text", "text": text}}
	}
	sum := sha256.Sum256([]byte("reasoning " + h + " " + text))
	item["encrypted_content"] = "gAAAAA" + base64.URLEncoding.EncodeToString(sum[:])
	return item, len(toks), nil
}

// reasoningKept is what Threads keeps of the reasoning items it gave: the
// reasoning item each later item of an answer needs, by that item's id,
// and the reasoning items of answers not stored.
type reasoningKept struct {
	needs    map[string]string
	unstored map[string]bool
}

// keepReasoning notes the items of an answer, its output, which begins
// with a reasoning item when its model reasons, and whether it was stored.
func (t *Threads) keepReasoning(output []any, stored bool) {
	if t == nil || len(output) == 0 {
		return
	}
	first, _ := output[0].(map[string]any)
	if first["type"] != "reasoning" {
		return
	}
	rs, _ := first["id"].(string)
	t.mu.Lock()
	defer t.mu.Unlock()
	k := &t.reasoning
	if k.needs == nil || len(k.needs) > 4*maxKept {
		// Forgetting costs only leniency: a pair forgotten is not checked.
		k.needs, k.unstored = map[string]string{}, map[string]bool{}
	}
	for _, o := range output[1:] {
		if item, ok := o.(map[string]any); ok {
			if id, _ := item["id"].(string); id != "" {
				k.needs[id] = rs
			}
		}
	}
	if !stored {
		k.unstored[rs] = true
	}
}

// checkReasoning refuses rr as the API does when its input sends an item
// of a reasoning answer back without that answer's reasoning item, or a
// reasoning item of an answer not stored without its encrypted content.
func (t *Threads) checkReasoning(rr responsesRequest) error {
	if t == nil || rr.PreviousResponseID != "" || len(rr.Input) == 0 || rr.Input[0] != '[' {
		return nil
	}
	t.mu.Lock()
	none := len(t.reasoning.needs) == 0 && len(t.reasoning.unstored) == 0
	t.mu.Unlock()
	if none { // no reasoning answer given yet: nothing to check
		return nil
	}
	var items []struct {
		Type             string  `json:"type"`
		ID               string  `json:"id"`
		EncryptedContent *string `json:"encrypted_content"`
	}
	if json.Unmarshal(rr.Input, &items) != nil {
		return nil // read, and refused, as the input it is
	}
	sent := map[string]bool{}
	for _, it := range items {
		if it.Type == "reasoning" {
			sent[it.ID] = true
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, it := range items {
		kind := cmp.Or(it.Type, "message")
		if rs, ok := t.reasoning.needs[it.ID]; ok && kind != "reasoning" && !sent[rs] {
			return &invalid{msg: fmt.Sprintf("Item '%s' of type '%s' was provided without its required 'reasoning' item: '%s'.", it.ID, kind, rs), param: "input"}
		}
		if kind == "reasoning" && it.EncryptedContent == nil && t.reasoning.unstored[it.ID] {
			return &invalid{msg: fmt.Sprintf("Item with id '%s' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.", it.ID), param: "input"}
		}
	}
	return nil
}
