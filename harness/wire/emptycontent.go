package wire

// DropEmptyCallContent removes the content of every message of v's
// top-level "messages" (a decoded Chat Completions or Ollama chat request
// body) that calls tools and says nothing, whatever form its empty content
// takes (null, "", [] or none), so that two requests that write it
// differently become equal. SDK versions differ there (go-openai leaves
// out the "" an older version sent; @langchain/openai sends "" where it
// sent null), and the model is asked the same. A message with text, or
// without tool calls, is left as it is.
func DropEmptyCallContent(v any) {
	body, _ := v.(map[string]any)
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		if msg, ok := m.(map[string]any); ok && CallsToolsSilently(msg) {
			delete(msg, "content")
		}
	}
}

// CallsToolsSilently reports whether msg, a decoded chat message, calls
// tools and its content is empty: null, "", [] or none.
func CallsToolsSilently(msg map[string]any) bool {
	if calls, _ := msg["tool_calls"].([]any); len(calls) == 0 {
		return false
	}
	switch c := msg["content"].(type) {
	case nil:
		return true
	case string:
		return c == ""
	case []any:
		return len(c) == 0
	}
	return false
}
