package wire

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
)

// Item references, from OpenAI's Responses API reference: an input item
// {"type": "item_reference", "id": …} stands for an item of an earlier
// answer that was stored, which the API reads in its place (the Vercel AI
// SDK sends its reasoning and, when it may, its text that way unless
// store is false). Threads keeps the output items of the answers stored,
// the latest maxKeptItems of them, by id; a reference to one it does not
// keep is refused as the API refuses it ("Item with id '…' not found.")
// by the stand-in, and left out by the traffic scorer. A compaction item
// is read likewise, as the summary it carries (compact.go).

// maxKeptItems is how many stored output items Threads keeps by id.
const maxKeptItems = 1 << 16

// keepOutput keeps the output items of an answer that was stored, by id:
// each the stand-in's own (a map) or read from traffic (JSON).
func (t *Threads) keepOutput(output []any) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, o := range output {
		var id string
		switch item := o.(type) {
		case map[string]any:
			id, _ = item["id"].(string)
		case json.RawMessage:
			var withID struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal(item, &withID)
			id = withID.ID
		}
		if id == "" {
			continue
		}
		t.items.put(id, o, maxKeptItems)
	}
}

// mayRefer reports whether input may hold an item reference (one of type
// item_reference, or an item of an id alone, which the SDKs write with
// its id first) or a compaction item.
func mayRefer(input json.RawMessage) bool {
	return bytes.Contains(input, []byte(`"item_reference"`)) || bytes.Contains(input, []byte(`{"id"`)) || bytes.Contains(input, []byte(`{ "id"`)) ||
		bytes.Contains(input, []byte(`"compaction"`))
}

// resolve is input (a Responses API request's: a string or items) with
// each item reference replaced by the item it stands for. When strict,
// a reference to an item t does not keep is the API's refusal; else it
// stays, to be left out.
func (t *Threads) resolve(input json.RawMessage, strict bool) (json.RawMessage, error) {
	if t := bytes.TrimSpace(input); len(t) == 0 || t[0] != '[' || !mayRefer(t) {
		return input, nil
	}
	var items []json.RawMessage
	if json.Unmarshal(input, &items) != nil {
		return input, nil // read, and refused, as the input it is
	}
	resolved := false
	for i, raw := range items {
		// A reference's type may be left out: an item of an id alone.
		var ref struct {
			Type             string          `json:"type"`
			ID               string          `json:"id"`
			Role             json.RawMessage `json:"role"`
			Content          json.RawMessage `json:"content"`
			EncryptedContent string          `json:"encrypted_content"`
		}
		if json.Unmarshal(raw, &ref) != nil {
			continue
		}
		if ref.Type == "compaction" {
			// Read as the summary it carries (compact.go).
			summary, ok := t.compacted(ref.EncryptedContent)
			switch {
			case ok:
				items[i], _ = json.Marshal(map[string]any{"type": "message", "role": "assistant", "content": summary})
				resolved = true
			case strict:
				return nil, &invalid{msg: fmt.Sprintf("The encrypted content for item %s could not be verified.", cmp.Or(ref.ID, fmt.Sprintf("input.%d", i))), param: "input"}
			}
			continue
		}
		if ref.Type != "item_reference" && (ref.Type != "" || ref.ID == "" || ref.Role != nil || ref.Content != nil) {
			continue
		}
		resolved = true
		var kept any
		if t != nil {
			t.mu.Lock()
			kept, _ = t.items.get(ref.ID)
			t.mu.Unlock()
		}
		raw, err := json.Marshal(kept)
		switch {
		case kept != nil && err == nil:
			items[i] = raw
		case strict:
			return nil, &invalid{msg: fmt.Sprintf("Item with id '%s' not found.", ref.ID), param: "input"}
		}
	}
	if !resolved {
		return input, nil
	}
	return json.Marshal(items)
}
