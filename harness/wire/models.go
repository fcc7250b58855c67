package wire

import "strings"

// The providers' model listings, from their API references: GET
// …/v1/models lists models and GET …/v1/models/<id> describes one (OpenAI:
// {"object": "list", "data": [{"id", "object": "model", "created",
// "owned_by"}]}; Anthropic: {"data": [{"type": "model", "id",
// "display_name", "created_at"}], "has_more", "first_id", "last_id"}), and
// Gemini's GET …/v1beta/models and …/v1beta/models/<model> ({"models":
// [{"name": "models/<model>", "displayName", "supportedGenerationMethods"}]}).
// A server that answers any model (the stand-in) describes any id it is
// asked for.

// ModelsPath returns the model a listing path asks about ("" for the list)
// and whether path is a listing path: …/models or …/models/<id>, where a
// Gemini id has no method (:generateContent) after it.
func ModelsPath(path string) (string, bool) {
	if strings.HasSuffix(path, "/models") {
		return "", true
	}
	i := strings.LastIndex(path, "/models/")
	if i < 0 {
		return "", false
	}
	id := path[i+len("/models/"):]
	return id, id != "" && !strings.ContainsAny(id, ":/")
}

// ModelObject is dialect d's description of the model id (Chat and
// Responses: OpenAI's).
func ModelObject(d Dialect, id string) map[string]any {
	switch d {
	case Anthropic:
		return map[string]any{"type": "model", "id": id, "display_name": id, "created_at": "1970-01-01T00:00:00Z"}
	case Gemini:
		return map[string]any{"name": "models/" + id, "displayName": id,
			"supportedGenerationMethods": []string{"generateContent", "countTokens", "embedContent", "batchEmbedContents"}}
	}
	return map[string]any{"id": id, "object": "model", "created": 0, "owned_by": "system"}
}

// ModelList is dialect d's listing of the models ids.
func ModelList(d Dialect, ids []string) map[string]any {
	models := make([]any, 0, len(ids))
	for _, id := range ids {
		models = append(models, ModelObject(d, id))
	}
	switch d {
	case Anthropic:
		list := map[string]any{"data": models, "has_more": false, "first_id": nil, "last_id": nil}
		if len(ids) > 0 {
			list["first_id"], list["last_id"] = ids[0], ids[len(ids)-1]
		}
		return list
	case Gemini:
		return map[string]any{"models": models}
	}
	return map[string]any{"object": "list", "data": models}
}
