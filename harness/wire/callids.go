package wire

import "fmt"

// NumberGeminiCallIDs replaces, in v (a decoded generateContent request, as
// encoding/json decodes into any), the ids of its function calls and
// function responses by their order of first appearance: "<call-1>",
// "<call-2>", …. Gemini often gives a call no id, and clients then make one
// up (the Vercel AI SDK's Google provider, Google's ADK), differently on
// every run; numbered, two runs' requests compare equal while a response
// that answers a different call than before still does not.
func NumberGeminiCallIDs(v any) {
	req, _ := v.(map[string]any)
	contents, _ := req["contents"].([]any)
	ids := map[string]string{}
	for _, c := range contents {
		content, _ := c.(map[string]any)
		parts, _ := content["parts"].([]any)
		for _, p := range parts {
			part, _ := p.(map[string]any)
			for _, key := range []string{"functionCall", "function_call", "functionResponse", "function_response"} {
				f, _ := part[key].(map[string]any)
				id, ok := f["id"].(string)
				if !ok || id == "" {
					continue
				}
				if _, seen := ids[id]; !seen {
					ids[id] = fmt.Sprintf("<call-%d>", len(ids)+1)
				}
				f["id"] = ids[id]
			}
		}
	}
}
