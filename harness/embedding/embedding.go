// Package embedding reads embeddings calls off the wire, for pricing and
// for a recording's spending cap: OpenAI's POST …/embeddings (and the
// servers that speak it: Ollama, vLLM, OpenRouter) and Gemini's
// …/models/<model>:embedContent and :batchEmbedContents. It tells what a
// request asks to embed (its model and input) and what a response says it
// used (OpenAI's usage.prompt_tokens; the Gemini API reports none, Vertex
// AI a token count per vector). It does not count tokens: callers count
// Request.Texts with package tokens.
package embedding

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Request is what an embeddings request asks for.
type Request struct {
	Model string
	// Texts are the inputs given as text; Tokens counts the inputs given
	// already tokenized (OpenAI accepts arrays of token ids), which need no
	// counting.
	Texts  []string
	Tokens int
}

// Is reports whether path is an embeddings endpoint.
func Is(path string) bool {
	_, ok := geminiModel(path)
	return ok || strings.HasSuffix(path, "/embeddings")
}

// geminiModel is the model of a Gemini embedding path.
func geminiModel(path string) (string, bool) {
	i := strings.LastIndex(path, "/models/")
	if i < 0 {
		return "", false
	}
	for _, m := range []string{":embedContent", ":batchEmbedContents"} {
		if rest, ok := strings.CutSuffix(path[i+len("/models/"):], m); ok && rest != "" && !strings.Contains(rest, "/") {
			return rest, true
		}
	}
	return "", false
}

// Parse reads an embeddings request sent to path.
func Parse(path string, body []byte) (Request, error) {
	if model, ok := geminiModel(path); ok {
		return parseGemini(model, path, body)
	}
	if !strings.HasSuffix(path, "/embeddings") {
		return Request{}, fmt.Errorf("%s is not an embeddings endpoint", path)
	}
	var r struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return Request{}, fmt.Errorf("embeddings request: %w", err)
	}
	out := Request{Model: r.Model}
	// input is a string, an array of strings, an array of token ids or an
	// array of arrays of token ids.
	var one string
	var many []string
	var ids []int
	var idss [][]int
	switch {
	case json.Unmarshal(r.Input, &one) == nil:
		out.Texts = []string{one}
	case json.Unmarshal(r.Input, &many) == nil:
		out.Texts = many
	case json.Unmarshal(r.Input, &ids) == nil:
		out.Tokens = len(ids)
	case json.Unmarshal(r.Input, &idss) == nil:
		for _, t := range idss {
			out.Tokens += len(t)
		}
	default:
		return Request{}, fmt.Errorf("embeddings request: input is not a string, strings or token ids: %.60s", r.Input)
	}
	return out, nil
}

// geminiContent is a Content whose text parts are embedded.
type geminiContent struct {
	Parts []struct {
		Text string `json:"text"`
	} `json:"parts"`
}

func parseGemini(model, path string, body []byte) (Request, error) {
	var reqs []struct {
		Content geminiContent `json:"content"`
	}
	if strings.HasSuffix(path, ":embedContent") {
		reqs = append(reqs, struct {
			Content geminiContent `json:"content"`
		}{})
		if err := json.Unmarshal(body, &reqs[0]); err != nil {
			return Request{}, fmt.Errorf("embedContent request: %w", err)
		}
	} else {
		var batch struct {
			Requests []struct {
				Content geminiContent `json:"content"`
			} `json:"requests"`
		}
		if err := json.Unmarshal(body, &batch); err != nil {
			return Request{}, fmt.Errorf("batchEmbedContents request: %w", err)
		}
		reqs = batch.Requests
	}
	out := Request{Model: model}
	for _, r := range reqs {
		var parts []string
		for _, p := range r.Content.Parts {
			parts = append(parts, p.Text)
		}
		out.Texts = append(out.Texts, strings.Join(parts, "\n"))
	}
	return out, nil
}

// Reported reads the input tokens an embeddings response to path says it
// used: OpenAI's usage.prompt_tokens, or the sum of Vertex AI's
// statistics.tokenCount over the vectors. ok is false when it says none
// (the Gemini API's responses, a server that sends no usage, an error).
func Reported(path string, body []byte) (n int, ok bool) {
	if _, gemini := geminiModel(path); gemini {
		var r struct {
			Embedding  *geminiStats  `json:"embedding"`
			Embeddings []geminiStats `json:"embeddings"`
		}
		if json.Unmarshal(body, &r) != nil {
			return 0, false
		}
		if r.Embedding != nil {
			r.Embeddings = append(r.Embeddings, *r.Embedding)
		}
		for _, e := range r.Embeddings {
			if e.Statistics == nil {
				return 0, false
			}
			n += int(e.Statistics.TokenCount)
		}
		return n, len(r.Embeddings) > 0
	}
	var r struct {
		Usage *struct {
			PromptTokens *int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(body, &r) != nil || r.Usage == nil || r.Usage.PromptTokens == nil {
		return 0, false
	}
	return *r.Usage.PromptTokens, true
}

type geminiStats struct {
	Statistics *struct {
		TokenCount float64 `json:"tokenCount"`
	} `json:"statistics"`
}
