package wire

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
)

// Follow applies a Conversations API exchange its provider answered with
// success (method and path as sent, the request body and the response
// body) to the conversations t keeps, so that the Responses API requests
// naming one are read after its items (Decode), as the provider reads
// them: a conversation is made under the id its answer gives, with the
// items its request holds; items added are kept as the answer lists them
// (with the provider's ids), or else as the request holds them; a deleted
// item or conversation is forgotten. A Gemini cached content made is kept
// likewise, for the generateContent requests naming it (cache.go), and a
// compaction made, for the requests sending its item (compact.go). Other
// exchanges change nothing.
func (t *Threads) Follow(method, path string, body, resp []byte) {
	if IsCompact(path) {
		t.followCompact(body, resp)
		return
	}
	if IsCachedContents(path) {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.followCache(method, path, body, resp)
		return
	}
	_, rest, ok := strings.Cut(path, "/conversations")
	if !ok {
		return
	}
	parts := strings.Split(strings.Trim(rest, "/"), "/")
	if parts[0] == "" {
		parts = nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case len(parts) == 0 && method == http.MethodPost:
		id := responseID(resp)
		if id == "" {
			return
		}
		if t.convs == nil {
			t.convs = map[string]*conversation{}
		}
		t.forget(id)
		c := &conversation{}
		t.convs[id] = c
		t.convOrder = append(t.convOrder, id)
		t.keepItems(id, c, requestItems(body))
	case len(parts) == 1 && method == http.MethodDelete:
		t.forget(parts[0])
	case len(parts) == 2 && parts[1] == "items" && method == http.MethodPost:
		if c, ok := t.convs[parts[0]]; ok {
			var list struct {
				Data []map[string]any `json:"data"`
			}
			items := requestItems(body)
			if json.Unmarshal(resp, &list) == nil && len(list.Data) > 0 {
				items = list.Data
			}
			t.keepItems(parts[0], c, items)
		}
	case len(parts) == 3 && parts[1] == "items" && method == http.MethodDelete:
		if c, ok := t.convs[parts[0]]; ok {
			if i := slices.IndexFunc(c.items, func(it map[string]any) bool { return it["id"] == parts[2] }); i >= 0 {
				c.items = slices.Delete(c.items, i, i+1)
				t.convItems--
			}
		}
	}
}

// keepItems adds items to c, the conversation id, and bounds what t keeps.
func (t *Threads) keepItems(id string, c *conversation, items []map[string]any) {
	for _, it := range items {
		c.keepItem(id, it)
	}
	t.convItems += len(items)
	t.bound(id)
}

// requestItems are the items a Conversations API request body holds (none
// when it holds none it can read).
func requestItems(body []byte) []map[string]any {
	var req struct {
		Items []map[string]any `json:"items"`
	}
	_ = json.Unmarshal(body, &req)
	return req.Items
}

// responseOutput is the output items of a Responses API answer, whole or
// streamed (the response.completed event's), nil when it has none.
func responseOutput(resp []byte) []any {
	raw := responseOutputRaw(resp)
	out := make([]any, 0, len(raw))
	for _, r := range raw {
		var item any
		if json.Unmarshal(r, &item) == nil {
			out = append(out, item)
		}
	}
	return out
}

// responseOutputRaw is responseOutput, each item as JSON.
func responseOutputRaw(resp []byte) []json.RawMessage {
	var whole struct {
		Output []json.RawMessage `json:"output"`
	}
	if json.Unmarshal(resp, &whole) == nil {
		return whole.Output
	}
	for line := range bytes.Lines(resp) {
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok || !bytes.Contains(data, []byte(`"response.completed"`)) {
			continue
		}
		var ev struct {
			Type     string `json:"type"`
			Response struct {
				Output []json.RawMessage `json:"output"`
			} `json:"response"`
		}
		if json.Unmarshal(data, &ev) == nil && ev.Type == "response.completed" {
			return ev.Response.Output
		}
	}
	return nil
}

// anyItems is items, each as an any.
func anyItems(items []json.RawMessage) []any {
	out := make([]any, len(items))
	for i, it := range items {
		out[i] = it
	}
	return out
}
