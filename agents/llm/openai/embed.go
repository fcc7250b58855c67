package openai

import (
	"context"
	"fmt"
	"net/http"

	sdk "github.com/openai/openai-go/v3"

	"github.com/agentreplay/testbed/agents/llm"
)

// Embedder is an llm.Embedder over the OpenAI embeddings API.
type Embedder struct {
	sdk        sdk.Client
	model      string
	dimensions int
}

// NewEmbedder returns an embedder for model at baseURL; dimensions > 0 asks
// for shortened vectors (text-embedding-3 models support it).
func NewEmbedder(baseURL, model, key string, dimensions int, hc *http.Client) *Embedder {
	return &Embedder{model: model, dimensions: dimensions, sdk: newSDK(baseURL, key, hc)}
}

// Params are what every request of e asks of its vectors: base64, as
// Embed says, and the dimensions it was made with (0: the model's own).
func (e *Embedder) Params() llm.EmbedParams {
	return llm.EmbedParams{Formats: []string{"base64"}, Dimensions: e.dimensions}
}

// Embed implements llm.Embedder, in one request. It asks for base64 vectors,
// as OpenAI's Python SDK does by default: the SDK decodes them from bytes,
// where JSON numbers would be parsed one by one.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, llm.Usage, error) {
	p := sdk.EmbeddingNewParams{
		Model:          sdk.EmbeddingModel(e.model),
		Input:          sdk.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
		EncodingFormat: sdk.EmbeddingNewParamsEncodingFormatBase64,
	}
	if e.dimensions > 0 {
		p.Dimensions = sdk.Int(int64(e.dimensions))
	}
	out, err := e.sdk.Embeddings.New(ctx, p)
	if err != nil {
		return nil, llm.Usage{}, apiError(err)
	}
	if len(out.Data) != len(texts) {
		return nil, llm.Usage{}, fmt.Errorf("embeddings: asked for %d vectors, got %d", len(texts), len(out.Data))
	}
	vecs := make([][]float32, len(texts))
	for _, d := range out.Data {
		if d.Index < 0 || int(d.Index) >= len(texts) {
			return nil, llm.Usage{}, fmt.Errorf("embeddings: index %d out of range", d.Index)
		}
		v := make([]float32, len(d.Embedding))
		for i, f := range d.Embedding {
			v[i] = float32(f)
		}
		vecs[d.Index] = v
	}
	return vecs, llm.Usage{InputTokens: int(out.Usage.PromptTokens)}, nil
}
