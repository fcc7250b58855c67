package wire

import (
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// Embeddings, in OpenAI's shape (POST …/embeddings) and Gemini's (POST
// …/models/<model>:embedContent answers {"embedding": {"values": […]}},
// :batchEmbedContents, what the genai SDKs call, {"embeddings": [{"values":
// […]}, …]}). Gemini's taskType and title are read and change nothing. The
// vectors are the caller's; errors are in the dialect's shape (ErrorBody
// with Chat or Gemini).

// Embeddings is an embeddings request: its texts, in order, and the
// dimensions each vector is to have (0: the model's own).
type Embeddings struct {
	Model string
	Texts []string
	Dims  []int
	// Base64 asks for OpenAI's encoding_format "base64".
	Base64 bool
}

// ReadEmbeddings reads an OpenAI embeddings request body.
func ReadEmbeddings(body []byte) (Embeddings, error) {
	var req struct {
		Model          string          `json:"model"`
		Input          json.RawMessage `json:"input"`
		Dimensions     int             `json:"dimensions"`
		EncodingFormat string          `json:"encoding_format"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return Embeddings{}, fmt.Errorf("request is not JSON: %w", err)
	}
	var texts []string
	if err := json.Unmarshal(req.Input, &texts); err != nil {
		var one string
		if err := json.Unmarshal(req.Input, &one); err != nil {
			return Embeddings{}, fmt.Errorf("input must be a string or a list of strings")
		}
		texts = []string{one}
	}
	if req.EncodingFormat != "" && req.EncodingFormat != "float" && req.EncodingFormat != "base64" {
		return Embeddings{}, fmt.Errorf(`encoding_format must be "float" or "base64"`)
	}
	e := Embeddings{Model: req.Model, Texts: texts, Base64: req.EncodingFormat == "base64"}
	for range texts {
		e.Dims = append(e.Dims, req.Dimensions)
	}
	return e, nil
}

// EmbeddingsBody is OpenAI's answer to e: one vector per text, and the
// tokens counted in the texts.
func EmbeddingsBody(e Embeddings, vectors [][]float64, tokens int) any {
	var data []map[string]any
	for i, v := range vectors {
		var out any = v
		if e.Base64 {
			out = base64Vector(v)
		}
		data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": out})
	}
	return map[string]any{
		"object": "list", "model": e.Model, "data": data,
		"usage": map[string]any{"prompt_tokens": tokens, "total_tokens": tokens},
	}
}

// base64Vector is a vector as OpenAI sends it for encoding_format "base64":
// its float32 values, little-endian, base64-encoded.
func base64Vector(v []float64) string {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(x)))
	}
	return base64.StdEncoding.EncodeToString(b)
}

// geminiEmbedDims are the output dimensions of Gemini's embedding models,
// as Google's model pages give them; a model not listed gets
// defaultGeminiEmbedDims.
var geminiEmbedDims = map[string]int{
	"gemini-embedding-001": 3072, "gemini-embedding-exp-03-07": 3072,
	"text-embedding-004": 768, "embedding-001": 768,
}

const defaultGeminiEmbedDims = 768

// geminiEmbedRequest is an EmbedContentRequest.
type geminiEmbedRequest struct {
	Model                string         `json:"model"`
	Content              *geminiContent `json:"content"`
	TaskType             string         `json:"taskType"`
	Title                string         `json:"title"`
	OutputDimensionality int            `json:"outputDimensionality"`
	// The proto's snake_case name, which the API takes too.
	OutputDimensionalitySnake int `json:"output_dimensionality"`
}

// The embedding methods of a Gemini model path.
const (
	EmbedContent       = ":embedContent"
	BatchEmbedContents = ":batchEmbedContents"
)

// GeminiEmbedMethod returns the model and method (EmbedContent or
// BatchEmbedContents) of an embedding path.
func GeminiEmbedMethod(path string) (model, method string, ok bool) {
	i := strings.LastIndex(path, "/models/")
	if i < 0 {
		return "", "", false
	}
	for _, m := range []string{EmbedContent, BatchEmbedContents} {
		if rest, found := strings.CutSuffix(path[i+len("/models/"):], m); found && rest != "" && !strings.Contains(rest, "/") {
			return rest, m, true
		}
	}
	return "", "", false
}

// ReadGeminiEmbed reads the body of a call of method to model, with each
// text's dimensions: the model's documented ones, or the fewer a request
// asks for. It refuses what the API refuses: no content or no parts; in a
// batch, no request, or a request without the URL's model
// (models/<model>); an outputDimensionality above the model's.
func ReadGeminiEmbed(model, method string, body []byte) (Embeddings, error) {
	var reqs []geminiEmbedRequest
	var err error
	single := method == EmbedContent
	if single {
		var one geminiEmbedRequest
		err = json.Unmarshal(body, &one)
		reqs = append(reqs, one)
	} else {
		var batch struct {
			Requests []geminiEmbedRequest `json:"requests"`
		}
		err = json.Unmarshal(body, &batch)
		reqs = batch.Requests
		if err == nil && len(reqs) == 0 {
			err = fmt.Errorf("* BatchEmbedContentsRequest.requests: requests is not specified")
		}
	}
	if err != nil {
		return Embeddings{}, fmt.Errorf("request is not valid: %w", err)
	}
	limit, ok := geminiEmbedDims[model]
	if !ok {
		limit = defaultGeminiEmbedDims
	}
	e := Embeddings{Model: model}
	for i, q := range reqs {
		q.OutputDimensionality = cmp.Or(q.OutputDimensionality, q.OutputDimensionalitySnake)
		if err := checkEmbed(q, model, limit, i, single); err != nil {
			return Embeddings{}, err
		}
		dims := limit
		if q.OutputDimensionality > 0 {
			dims = q.OutputDimensionality
		}
		e.Texts, e.Dims = append(e.Texts, q.Content.text()), append(e.Dims, dims)
	}
	return e, nil
}

// GeminiEmbedBody is the answer to a call of method: one vector per text.
func GeminiEmbedBody(method string, vectors [][]float64) any {
	var out []map[string]any
	for _, v := range vectors {
		out = append(out, map[string]any{"values": v})
	}
	if method == EmbedContent {
		return map[string]any{"embedding": out[0]}
	}
	return map[string]any{"embeddings": out}
}

// checkEmbed returns what the API refuses in the i-th request of a call to
// model: no content or no parts; in a batch, a request without the URL's
// model (models/<model>); an outputDimensionality above the model's.
func checkEmbed(q geminiEmbedRequest, model string, limit, i int, single bool) error {
	at := "EmbedContentRequest"
	if !single {
		at = fmt.Sprintf("BatchEmbedContentsRequest.requests[%d]", i)
	}
	switch {
	case q.Content == nil:
		return fmt.Errorf("* %s.content: content is not specified", at)
	case len(q.Content.Parts) == 0:
		return fmt.Errorf("* %s.content.parts: contents.parts must not be empty", at)
	case !single && q.Model == "":
		return fmt.Errorf("* %s.model: model is not specified", at)
	case !single && strings.TrimPrefix(q.Model, "models/") != model:
		return fmt.Errorf("* %s.model: %s is not the model of the URL, models/%s", at, q.Model, model)
	case q.OutputDimensionality < 0 || q.OutputDimensionality > limit:
		return fmt.Errorf("* %s.output_dimensionality: %d is not between 1 and %s's %d dimensions", at, q.OutputDimensionality, model, limit)
	}
	return nil
}
