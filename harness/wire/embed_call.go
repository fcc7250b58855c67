package wire

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// EmbedCall is what an embeddings request asks for, read leniently for
// pricing and a recording's spending cap (ReadEmbeddings and ReadGeminiEmbed
// read it strictly, as the APIs do, for the stand-in to answer).
type EmbedCall struct {
	Model string
	// Texts are the inputs given as text; Tokens counts the inputs given
	// already tokenized (OpenAI accepts arrays of token ids), which need no
	// counting.
	Texts  []string
	Tokens int
	// EmbedParams are what the request asks of the vectors: OpenAI's
	// encoding_format; OpenAI's and Ollama's (…/api/embed) dimensions,
	// Gemini's outputDimensionality when every request of a batch gives
	// the same.
	llm.EmbedParams
}

// IsEmbeddings reports whether path is an embeddings endpoint: OpenAI's
// …/embeddings (and the servers that speak it: Ollama, vLLM, OpenRouter),
// Gemini's …/models/<model>:embedContent and :batchEmbedContents, or
// Ollama's native …/api/embed (and its older …/api/embeddings). Like
// Ollama's …/api/chat, an upstream may name its own route so: a caller
// that sees upstream traffic tells them apart by base URL.
func IsEmbeddings(path string) bool {
	_, _, ok := GeminiEmbedMethod(path)
	return ok || strings.HasSuffix(path, "/embeddings") || strings.HasSuffix(path, OllamaEmbedPath)
}

// Ollama's native embeddings: OllamaEmbedPath takes {"model", "input": a
// string or strings} and answers {"embeddings": [[…], …],
// "prompt_eval_count": n}; the older OllamaEmbeddingsPath, which
// ollama-python's embeddings() and older LangChain clients still call,
// takes {"model", "prompt"} and answers {"embedding": […]}, no count.
const (
	OllamaEmbedPath      = "/api/embed"
	OllamaEmbeddingsPath = "/api/embeddings"
)

// IsOllamaEmbed reports whether path is one of Ollama's native embeddings
// endpoints.
func IsOllamaEmbed(path string) bool {
	return strings.HasSuffix(path, OllamaEmbedPath) || strings.HasSuffix(path, OllamaEmbeddingsPath)
}

// ReadEmbedCall reads an embeddings request sent to path. It does not
// count tokens: callers count EmbedCall.Texts with package tokens.
func ReadEmbedCall(path string, body []byte) (EmbedCall, error) {
	if model, method, ok := GeminiEmbedMethod(path); ok {
		return readGeminiEmbedCall(model, method, body)
	}
	if !IsEmbeddings(path) {
		return EmbedCall{}, fmt.Errorf("%s is not an embeddings endpoint", path)
	}
	var r struct {
		Model  string          `json:"model"`
		Input  json.RawMessage `json:"input"`
		Prompt *string         `json:"prompt"` // Ollama's …/api/embeddings
		Format string          `json:"encoding_format"`
		// Dimensions is OpenAI's and Ollama's …/api/embed's.
		Dimensions int `json:"dimensions"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return EmbedCall{}, fmt.Errorf("embeddings request: %w", err)
	}
	out := EmbedCall{Model: r.Model}
	if r.Format != "" {
		out.Formats = []string{r.Format}
	}
	if strings.HasSuffix(path, OllamaEmbeddingsPath) && r.Prompt != nil {
		out.Texts = []string{*r.Prompt}
		return out, nil
	}
	out.Dimensions = r.Dimensions
	if out.Model == "" {
		out.Model, _ = AzureDeployment(path)
	}
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
		return EmbedCall{}, fmt.Errorf("embeddings request: input is not a string, strings or token ids: %.60s", r.Input)
	}
	return out, nil
}

// embedText is a Content whose text parts are embedded.
type embedText struct {
	Parts []struct {
		Text string `json:"text"`
	} `json:"parts"`
}

// embedRequest is one EmbedContentRequest, as read for the trace.
type embedRequest struct {
	Content embedText `json:"content"`
	// OutputDimensionality, by either of its names.
	Dims      int `json:"outputDimensionality"`
	DimsSnake int `json:"output_dimensionality"`
}

func readGeminiEmbedCall(model, method string, body []byte) (EmbedCall, error) {
	var reqs []embedRequest
	if method == EmbedContent {
		reqs = append(reqs, embedRequest{})
		if err := json.Unmarshal(body, &reqs[0]); err != nil {
			return EmbedCall{}, fmt.Errorf("embedContent request: %w", err)
		}
	} else {
		var batch struct {
			Requests []embedRequest `json:"requests"`
		}
		if err := json.Unmarshal(body, &batch); err != nil {
			return EmbedCall{}, fmt.Errorf("batchEmbedContents request: %w", err)
		}
		reqs = batch.Requests
	}
	out := EmbedCall{Model: model}
	for i, r := range reqs {
		var parts []string
		for _, p := range r.Content.Parts {
			parts = append(parts, p.Text)
		}
		out.Texts = append(out.Texts, strings.Join(parts, "\n"))
		// one count for the call: the dimensions every request asks for,
		// none when they differ
		switch dims := cmp.Or(r.Dims, r.DimsSnake); {
		case i == 0:
			out.Dimensions = dims
		case dims != out.Dimensions:
			out.Dimensions = 0
		}
	}
	return out, nil
}

// ReportedEmbedTokens reads the input tokens an embeddings response to path
// says it used: OpenAI's usage.prompt_tokens, Ollama's prompt_eval_count
// (…/api/embed), or the sum of Vertex AI's statistics.tokenCount over the
// vectors. ok is false when it says none (the Gemini API's responses,
// Ollama's older …/api/embeddings, a server that sends no usage, an error).
func ReportedEmbedTokens(path string, body []byte) (n int, ok bool) {
	if strings.HasSuffix(path, OllamaEmbedPath) {
		var r struct {
			Embeddings json.RawMessage `json:"embeddings"`
			Count      *int            `json:"prompt_eval_count"`
		}
		if json.Unmarshal(body, &r) != nil || r.Count == nil || len(r.Embeddings) == 0 {
			return 0, false
		}
		return *r.Count, true
	}
	if _, _, gemini := GeminiEmbedMethod(path); gemini {
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

// geminiStats is a Vertex AI embedding's token count.
type geminiStats struct {
	Statistics *struct {
		TokenCount float64 `json:"tokenCount"`
	} `json:"statistics"`
}
