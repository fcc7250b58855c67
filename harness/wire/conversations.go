package wire

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// The OpenAI Conversations API, from OpenAI's API reference: a
// conversation is a list of items (the Responses API's input and output
// items) kept server-side under a conv_ id. POST …/conversations creates
// one (with up to 20 items), …/conversations/<id> gets, updates (its
// metadata) or deletes it, …/conversations/<id>/items adds items or lists
// them (limit 1 to 100, default 20; order desc unless asc; after an item
// id), and …/conversations/<id>/items/<item> gets or deletes one. A
// Responses API request naming a conversation is read after its items, and
// its input and output are added to it. Ids derive from the requests, so a
// recording made again gives the same ones.

// maxConversationItems is the most items a request may add at once.
const maxConversationItems = 20

// maxConversations is how many conversations Threads keeps, and
// maxConversationItemsKept how many items they hold in all: past either,
// the oldest conversation is forgotten (and a request naming it refused as
// one naming a conversation never made), or, when the conversation in use
// alone holds more, its oldest items; so a long recording's memory stays
// bounded.
const (
	maxConversations         = 1 << 12
	maxConversationItemsKept = 1 << 16
)

// conversation is one conversation: its items in order, each a JSON object
// with its id, and its metadata.
type conversation struct {
	items    []map[string]any
	metadata any
	// made counts the items ever added, whose ids it numbers: an item
	// deleted leaves its number unused.
	made int
}

// object is the conversation object of c, whose id is id.
func (c *conversation) object(id string) map[string]any {
	return map[string]any{"id": id, "object": "conversation", "created_at": 0, "metadata": c.metadata}
}

// Conversations answers a request of the Conversations API (method, and
// path below …/conversations, query and body as sent) from the
// conversations t keeps: the status and the JSON body, an error in
// OpenAI's shape.
func (t *Threads) Conversations(method, path string, query url.Values, body []byte) (int, any) {
	_, rest, _ := strings.Cut(path, "/conversations")
	parts := strings.Split(strings.Trim(rest, "/"), "/")
	if parts[0] == "" {
		parts = nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(parts) == 0 {
		if method != http.MethodPost {
			return http.StatusMethodNotAllowed, openAIStatusError(http.StatusMethodNotAllowed, "the stand-in creates conversations (POST …/conversations) and serves each by its id; it does not list them")
		}
		return t.createConversation(body)
	}
	id := parts[0]
	c, ok := t.convs[id]
	if !ok {
		return http.StatusNotFound, OpenAIError(fmt.Sprintf("Conversation with id '%s' not found.", id), "invalid_request_error", "", "")
	}
	switch {
	case len(parts) == 1 && method == http.MethodGet:
		return http.StatusOK, c.object(id)
	case len(parts) == 1 && method == http.MethodPost:
		var req struct {
			Metadata any `json:"metadata"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			return http.StatusBadRequest, openAIStatusError(http.StatusBadRequest, "request is not JSON: "+err.Error())
		}
		c.metadata = req.Metadata
		return http.StatusOK, c.object(id)
	case len(parts) == 1 && method == http.MethodDelete:
		t.forget(id)
		return http.StatusOK, map[string]any{"id": id, "object": "conversation.deleted", "deleted": true}
	case len(parts) == 2 && parts[1] == "items" && method == http.MethodPost:
		var req struct {
			Items json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			return http.StatusBadRequest, openAIStatusError(http.StatusBadRequest, "request is not JSON: "+err.Error())
		}
		added, err := c.add(id, req.Items)
		if err != nil {
			return http.StatusBadRequest, OpenAIError(err.Error(), "invalid_request_error", "items", "")
		}
		t.convItems += len(added)
		t.bound(id)
		return http.StatusOK, itemList(added, false)
	case len(parts) == 2 && parts[1] == "items" && method == http.MethodGet:
		return c.list(query)
	case len(parts) == 3 && parts[1] == "items":
		i := slices.IndexFunc(c.items, func(it map[string]any) bool { return it["id"] == parts[2] })
		switch {
		case i < 0:
			return http.StatusNotFound, OpenAIError(fmt.Sprintf("Item with id '%s' not found.", parts[2]), "invalid_request_error", "", "")
		case method == http.MethodGet:
			return http.StatusOK, c.items[i]
		case method == http.MethodDelete:
			c.items = slices.Delete(c.items, i, i+1)
			t.convItems--
			return http.StatusOK, c.object(id)
		}
	}
	return http.StatusNotFound, openAIStatusError(http.StatusNotFound, method+" "+path+": the stand-in serves the Conversations API's create, get, update and delete of a conversation and its items")
}

// createConversation creates a conversation from a create request's body:
// its id derives from the body and how many were created from the same
// body before.
func (t *Threads) createConversation(body []byte) (int, any) {
	var req struct {
		Items    json.RawMessage `json:"items"`
		Metadata any             `json:"metadata"`
	}
	if len(body) > 0 {
		if err := json.Unmarshal(body, &req); err != nil {
			return http.StatusBadRequest, openAIStatusError(http.StatusBadRequest, "request is not JSON: "+err.Error())
		}
	}
	if t.convs == nil || len(t.created) > 4*maxConversations {
		if t.convs == nil {
			t.convs = map[string]*conversation{}
		}
		t.created = map[[32]byte]int{} // the ids of those kept are skipped below
	}
	key := requestHash(body, 0)
	var id string
	for {
		t.created[key]++
		sum := requestHash(body, t.created[key])
		id = "conv_" + hex.EncodeToString(sum[:24])
		if _, taken := t.convs[id]; !taken {
			break
		}
	}
	c := &conversation{metadata: req.Metadata}
	if c.metadata == nil {
		c.metadata = map[string]any{}
	}
	if _, err := c.add(id, req.Items); err != nil {
		return http.StatusBadRequest, OpenAIError(err.Error(), "invalid_request_error", "items", "")
	}
	t.convs[id] = c
	t.convOrder = append(t.convOrder, id)
	t.convItems += len(c.items)
	t.bound(id)
	return http.StatusOK, c.object(id)
}

// forget forgets the conversation id and its items.
func (t *Threads) forget(id string) {
	if c, ok := t.convs[id]; ok {
		t.convItems -= len(c.items)
		delete(t.convs, id)
		t.convOrder = slices.DeleteFunc(t.convOrder, func(o string) bool { return o == id })
	}
}

// bound forgets the oldest conversations other than the one in use (id)
// while t keeps more than maxConversations or more than
// maxConversationItemsKept items, and then, if that one alone holds too
// many, its oldest items.
func (t *Threads) bound(id string) {
	for len(t.convs) > maxConversations || t.convItems > maxConversationItemsKept {
		i := slices.IndexFunc(t.convOrder, func(o string) bool { return o != id })
		if i < 0 {
			c := t.convs[id]
			n := t.convItems - maxConversationItemsKept
			c.items = slices.Delete(c.items, 0, n)
			t.convItems -= n
			return
		}
		t.forget(t.convOrder[i])
	}
}

// add adds the items raw holds (none when raw is empty) to c, whose id is
// id, as the API keeps them, and returns them.
func (c *conversation) add(id string, raw json.RawMessage) ([]map[string]any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var items []map[string]any
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("items: want a list of items: %w", err)
	}
	if len(items) > maxConversationItems {
		return nil, fmt.Errorf("items: at most %d items can be added at once, got %d", maxConversationItems, len(items))
	}
	added := make([]map[string]any, 0, len(items))
	for _, it := range items {
		added = append(added, c.keepItem(id, it))
	}
	return added, nil
}

// keepItem adds item to c as the API keeps it: a message with its content
// as parts and a status, every item with an id of its own.
func (c *conversation) keepItem(id string, item map[string]any) map[string]any {
	kept := map[string]any{}
	for k, v := range item {
		kept[k] = v
	}
	kind, _ := kept["type"].(string)
	if kind == "" {
		kind = "message"
		kept["type"] = kind
	}
	prefix := map[string]string{"message": "msg_", "function_call": "fc_", "function_call_output": "fco_", "reasoning": "rs_"}[kind]
	if prefix == "" {
		prefix = "item_"
	}
	if kind == "message" {
		role, _ := kept["role"].(string)
		if text, ok := kept["content"].(string); ok {
			part := "input_text"
			if role == "assistant" {
				part = "output_text"
			}
			kept["content"] = []any{map[string]any{"type": part, "text": text}}
		}
	}
	if _, ok := kept["status"]; !ok && kind != "reasoning" {
		kept["status"] = "completed"
	}
	if _, ok := kept["id"].(string); !ok {
		c.made++
		sum := requestHash([]byte(id), c.made)
		kept["id"] = prefix + hex.EncodeToString(sum[:24])
	}
	c.items = append(c.items, kept)
	return kept
}

// list answers a list of c's items as query asks (limit, order, after).
func (c *conversation) list(query url.Values) (int, any) {
	return listItems(c.items, query)
}

// listItems answers a list of items, oldest first, as query asks: limit
// (1 to 100, default 20), order (desc unless asc), after or before an
// item's id.
func listItems(all []map[string]any, query url.Values) (int, any) {
	limit := 20
	if s := query.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 100 {
			return http.StatusBadRequest, OpenAIError(fmt.Sprintf("Invalid 'limit': expected an integer from 1 to 100, got %q.", s), "invalid_request_error", "limit", "")
		}
		limit = n
	}
	items := slices.Clone(all)
	if query.Get("order") != "asc" {
		slices.Reverse(items)
	}
	at := func(id string) int {
		return slices.IndexFunc(items, func(it map[string]any) bool { return it["id"] == id })
	}
	if after := query.Get("after"); after != "" {
		items = items[at(after)+1:] // from the start when after is no item's
	}
	if before := query.Get("before"); before != "" {
		if i := at(before); i >= 0 {
			more := i > limit
			return http.StatusOK, itemList(items[max(0, i-limit):i], more)
		}
	}
	more := len(items) > limit
	if more {
		items = items[:limit]
	}
	return http.StatusOK, itemList(items, more)
}

// itemList is a list of items as the API answers one.
func itemList(items []map[string]any, more bool) map[string]any {
	list := map[string]any{"object": "list", "data": items, "has_more": more, "first_id": nil, "last_id": nil}
	if len(items) > 0 {
		list["first_id"], list["last_id"] = items[0]["id"], items[len(items)-1]["id"]
	}
	return list
}

// conversationOf is the id of the conversation a Responses API request
// names (a string, or an object with its id), "" when it names none.
func conversationOf(raw json.RawMessage) string {
	var id string
	if json.Unmarshal(raw, &id) == nil {
		return id
	}
	var obj struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(raw, &obj)
	return obj.ID
}

// conversationItems are the messages of the conversation id, read as a
// Responses API request's input, and false when t keeps no such
// conversation.
func (t *Threads) conversationItems(id string) ([]llm.Message, bool) {
	if t == nil {
		return nil, false
	}
	t.mu.Lock()
	c, ok := t.convs[id]
	var raw []byte
	if ok {
		raw, _ = json.Marshal(c.items)
	}
	t.mu.Unlock()
	if !ok {
		return nil, false
	}
	raw, _ = t.resolve(raw, false) // its compaction items read as their summaries
	msgs, err := responsesInput(raw, false, map[string]string{})
	return msgs, err == nil
}

// extend adds a Responses API request's input (raw, a string or items)
// and its answer's output items to the conversation id, and returns how
// many items the conversation held before the output: those the answer
// was made from.
func (t *Threads) extend(id string, input json.RawMessage, output []any) int {
	if t == nil {
		return 0
	}
	items := inputItems(input)
	own := len(items)
	for _, o := range output {
		if m, ok := o.(map[string]any); ok {
			items = append(items, m)
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	c, ok := t.convs[id]
	if !ok {
		return 0
	}
	for _, it := range items {
		c.keepItem(id, it)
	}
	t.convItems += len(items)
	t.bound(id)
	return len(c.items) - (len(items) - own)
}

// inputItems are the items of a Responses API request's input (raw, a
// string, which is one user message, or items).
func inputItems(raw json.RawMessage) []map[string]any {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return []map[string]any{{"type": "message", "role": "user", "content": text}}
	}
	var items []map[string]any
	_ = json.Unmarshal(raw, &items)
	return items
}

// priorOf is the conversation a Responses API request is read after: the
// answer it continues (previous_response_id) or the conversation it names,
// which t must keep; its error is the API's refusal.
func (t *Threads) priorOf(rr responsesRequest) ([]llm.Message, error) {
	conv := conversationOf(rr.Conversation)
	switch {
	case conv != "" && rr.PreviousResponseID != "":
		return nil, &invalid{msg: "previous_response_id and conversation: give one or the other, not both", param: "conversation"}
	case rr.PreviousResponseID != "":
		return t.previousResponse(rr.PreviousResponseID)
	case conv != "":
		msgs, ok := t.conversationItems(conv)
		if !ok {
			return nil, &invalid{msg: fmt.Sprintf("Conversation with id '%s' not found.", conv), param: "conversation"}
		}
		return msgs, nil
	}
	return nil, nil
}

// Stateful reports whether a request to path may start or extend a
// conversation its provider keeps server-side (Threads): a Responses API,
// Anthropic Messages or Interactions API call, one of the Conversations
// API, one of Gemini's cachedContents API, or a compaction.
func Stateful(path string) bool {
	d, model := Of(path)
	return (model && (d == Responses || d == Anthropic || d == Interactions)) || strings.Contains(path, "/v1/conversations") || IsCachedContents(path) || IsCompact(path)
}
