// Package llm is provider-neutral chat: messages, tools, tool calls and usage.
//
// Adapters for real wire formats live in subpackages (openai, gemini,
// anthropic); each is built over an injected *http.Client so that cassettes
// see every call.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Chat roles of a Message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one chat message.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"` // for RoleTool
	Name       string     `json:"name,omitempty"`         // tool name, for RoleTool
	// Signature is the provider's opaque token on the message's text (see
	// ToolCall.Signature), sent back with it.
	Signature []byte `json:"signature,omitempty"`
	// IsError, for RoleTool, says the tool failed and Content is its
	// error. Anthropic's wire carries it (tool_result is_error); the others
	// carry only the content.
	IsError bool `json:"is_error,omitempty"`
}

// Tool is a function the model may call.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // a JSON Schema object
}

// ToolCall is the model's request to call a Tool.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	// Signature is an opaque token the provider attached to the call
	// (Gemini's thoughtSignature) and wants back with it in the next
	// request; Gemini 3 models refuse a history that drops it.
	Signature []byte `json:"signature,omitempty"`
}

// Request is one chat call.
type Request struct {
	// Role names the agent role making the call ("router", "planner", …);
	// it is not sent to the provider.
	Role        string
	Messages    []Message
	Tools       []Tool
	Temperature *float64
	MaxTokens   int
	// Output is the kind of output the request asks for, "" for none
	// in particular (see Output).
	Output Output
	// Sampling are the request's other settings of how the model
	// answers; an adapter whose API has no field for one it gives
	// refuses the request (Refuse).
	Sampling
	// Conversation is the id of a conversation the provider keeps that
	// the call is part of (the Responses API's conversation), as read
	// from an outside agent's traffic; no adapter sends one (Refuse).
	Conversation string
}

// Output is a kind of output a request asks for, named by the value the
// OpenTelemetry GenAI conventions give gen_ai.output.type (the content
// type the client requests). The adapters ask for OutputJSON with their
// API's JSON mode and for OutputText with its plain-text format, where it
// has one; a Response holds text only, so each refuses OutputImage and
// OutputSpeech (Refuse).
type Output string

// The kinds of output of the conventions' gen_ai.output.type.
const (
	OutputText   Output = "text"   // plain text
	OutputJSON   Output = "json"   // a JSON object, of a known schema or not
	OutputImage  Output = "image"  // an image
	OutputSpeech Output = "speech" // speech: audio
)

// Sampling are a request's settings of how the model picks its answer's
// tokens and how many answers it gives, beyond Request.Temperature and
// MaxTokens; the zero value gives none, and a nil field is one not given.
type Sampling struct {
	TopP *float64 `json:"top_p,omitempty"`
	// TopK is a number of tokens, a float as some SDKs send it (40.0).
	TopK *float64 `json:"top_k,omitempty"`
	// Stop are the sequences at which the answer's text must end.
	Stop             []string `json:"stop,omitempty"`
	Seed             *int     `json:"seed,omitempty"`
	FrequencyPenalty *float64 `json:"frequency_penalty,omitempty"`
	PresencePenalty  *float64 `json:"presence_penalty,omitempty"`
	// Choices is how many answers are asked for (Chat Completions' n,
	// Gemini's candidateCount), 0 when not given. A Response holds one,
	// so no adapter asks for more.
	Choices int `json:"choices,omitempty"`
}

// Refuse returns an error naming the settings r gives that api (an
// adapter's name, for the message) has no field for: every one whose
// name (Sampling's JSON names top_p, top_k, stop, seed,
// frequency_penalty, presence_penalty, choices, and conversation) is not
// among takes. Choices of 1 is the default every API gives, and never
// refused; an Output other than text or JSON ("image output", "speech
// output") is refused by every adapter, as a Response holds text only.
func (r Request) Refuse(api string, takes ...string) error {
	s := r.Sampling
	given := []struct {
		name string
		set  bool
	}{
		{"top_p", s.TopP != nil}, {"top_k", s.TopK != nil}, {"stop", len(s.Stop) > 0}, {"seed", s.Seed != nil},
		{"frequency_penalty", s.FrequencyPenalty != nil}, {"presence_penalty", s.PresencePenalty != nil},
		{"choices", s.Choices != 0 && s.Choices != 1}, {"conversation", r.Conversation != ""},
		{"image output", r.Output == OutputImage}, {"speech output", r.Output == OutputSpeech},
	}
	var refused []string
	for _, g := range given {
		if g.set && !slices.Contains(takes, g.name) {
			refused = append(refused, g.name)
		}
	}
	if refused == nil {
		return nil
	}
	return fmt.Errorf("%s takes no %s: leave it unset for this provider", api, strings.Join(refused, ", "))
}

// Usage is what the provider reports it counted.
type Usage struct {
	// InputTokens is every input token of the call, those read from or
	// written to a prompt cache included.
	InputTokens int `json:"input_tokens"`
	// OutputTokens counts everything the model generated, its thinking
	// included; ReasoningTokens is that thinking part (OpenAI's
	// reasoning_tokens, Gemini's thoughtsTokenCount, which Gemini reports
	// beside its candidates' tokens rather than in them).
	OutputTokens    int `json:"output_tokens"`
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	// CacheReadTokens and CacheWriteTokens are the parts of InputTokens the
	// provider read from its prompt cache and wrote to it, when it says.
	// (Anthropic reports them beside its input_tokens, which excludes
	// them; the adapter adds them up.)
	CacheReadTokens  int `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	// CacheWrite1hTokens is the part of CacheWriteTokens written to
	// Anthropic's 1-hour cache, billed at its own rate.
	CacheWrite1hTokens int `json:"cache_write_1h_tokens,omitempty"`
	// CacheReadAudioTokens is the audio part of CacheReadTokens, billed at
	// its own rate where the provider publishes one (Gemini's
	// cacheTokensDetails AUDIO; OpenAI's usage does not split its
	// cached_tokens by modality, and leaves it 0).
	CacheReadAudioTokens int `json:"cache_read_audio_tokens,omitempty"`
	// InputAudioTokens and OutputAudioTokens are the audio parts of
	// InputTokens and OutputTokens (OpenAI's prompt_tokens_details and
	// completion_tokens_details audio_tokens, Gemini's AUDIO modality),
	// billed at their own rates.
	InputAudioTokens  int `json:"input_audio_tokens,omitempty"`
	OutputAudioTokens int `json:"output_audio_tokens,omitempty"`
	// ServiceTier is the processing tier that served the call, as the
	// response says (OpenAI's service_tier "flex" or "priority",
	// Anthropic's usage.service_tier "priority" or "batch"); empty for
	// the standard tier ("default", "standard") or when it says none.
	ServiceTier string `json:"service_tier,omitempty"`
	// InferenceGeo is the geography a provider says it ran the call in,
	// when it bills one apart: Anthropic's usage.inference_geo "us"
	// (US-only inference); empty for "global", "not_available" or none.
	InferenceGeo string `json:"inference_geo,omitempty"`
	// WebSearches counts the searches a provider's server-side search
	// tool ran for the call, billed per search beside the tokens
	// (Anthropic's usage.server_tool_use.web_search_requests, the
	// Responses API's web_search_call items, Gemini's grounding
	// webSearchQueries).
	WebSearches int `json:"web_searches,omitempty"`
}

// StandardGeo is the inference geography a provider names, as
// Usage.InferenceGeo keeps it: "" for Anthropic's default "global" and for
// its "not_available" (a model that takes no inference_geo); any other
// (the US-only "us") as it is.
func StandardGeo(geo string) string {
	switch geo {
	case "global", "not_available":
		return ""
	}
	return geo
}

// StandardTier is the service tier a provider names as standard, as
// Usage.ServiceTier keeps it: "" for OpenAI's "default" and "auto" and
// Anthropic's "standard"; any other tier as it is.
func StandardTier(tier string) string {
	switch tier {
	case "default", "auto", "standard", "standard_only":
		return ""
	}
	return tier
}

// Finish reasons of a Response: every adapter maps its provider's reasons
// into this one set, and keeps the provider's own in RawFinishReason.
const (
	FinishStop          = "stop"           // the model ended its turn
	FinishLength        = "length"         // the output hit the token limit
	FinishToolCalls     = "tool_calls"     // the model asks for tool calls
	FinishContentFilter = "content_filter" // a safety, recitation or policy filter stopped the output
	FinishError         = "error"          // the model's output was malformed (a broken or unexpected tool call)
	FinishOther         = "other"          // any other reason the provider gave
)

// FinishReasons returns the neutral finish reasons, in a fixed order.
func FinishReasons() []string {
	return []string{FinishStop, FinishLength, FinishToolCalls, FinishContentFilter, FinishError, FinishOther}
}

// Response is the model's answer.
type Response struct {
	Message Message
	Usage   Usage
	// FinishReason is why the model stopped, one of FinishReasons() (empty
	// when the provider gave none); RawFinishReason is the reason as the
	// provider sent it ("STOP", "end_turn", "tool_calls", …).
	FinishReason    string
	RawFinishReason string
	Model           string
	// ID is the provider's id of the answer, when it gives one: OpenAI's
	// chatcmpl-… or resp_…, Anthropic's msg_…, Gemini's responseId, an
	// interaction's id (Ollama gives none).
	ID string
}

// Client is a chat model.
type Client interface {
	Chat(ctx context.Context, req Request) (Response, error)
}

// Embedder turns texts into vectors, one per text, in order.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, Usage, error)
}

// EmbedParams are what an embeddings request asks of its vectors beyond
// its texts; the zero value asks nothing.
type EmbedParams struct {
	// Formats are the encodings the vectors are asked in (OpenAI's
	// encoding_format, "float" or "base64"), nil when it names none.
	Formats []string `json:"encoding_formats,omitempty"`
	// Dimensions is how many dimensions each vector is asked to have
	// (OpenAI's and Ollama's dimensions, Gemini's outputDimensionality),
	// 0 when it does not say: the model's own.
	Dimensions int `json:"dimensions,omitempty"`
}

// Providers an Endpoint may name.
const (
	ProviderOpenAI    = "openai"    // Chat Completions: OpenAI, Ollama's /v1, llama.cpp, vLLM, OpenRouter
	ProviderGemini    = "gemini"    // generateContent
	ProviderAnthropic = "anthropic" // Messages
	// ProviderAzure is Azure OpenAI: OpenAI's wire formats under the
	// resource's /openai/ path, a chat call at
	// /openai/deployments/<deployment>/chat/completions (the Endpoint's
	// Model is the deployment), with the api-version query and the key in
	// the api-key header.
	ProviderAzure = "azure"
	// ProviderOllama is Ollama's native chat API (POST …/api/chat), which
	// the official ollama clients call. Testbed reads and answers it for
	// an outside agent; no built-in agent speaks it (provider.New).
	ProviderOllama = "ollama"
)

// KeyEnv is the variable a provider's SDKs read their key from
// (OPENAI_API_KEY, GEMINI_API_KEY, ANTHROPIC_API_KEY,
// AZURE_OPENAI_API_KEY), or "" for Ollama, which takes none.
func KeyEnv(provider string) string {
	switch provider {
	case ProviderOllama:
		return ""
	case ProviderGemini:
		return "GEMINI_API_KEY"
	case ProviderAnthropic:
		return "ANTHROPIC_API_KEY"
	case ProviderAzure:
		return "AZURE_OPENAI_API_KEY"
	}
	return "OPENAI_API_KEY"
}

// Providers returns every provider an Endpoint may name.
func Providers() []string {
	return []string{ProviderOpenAI, ProviderGemini, ProviderAnthropic, ProviderAzure, ProviderOllama}
}

// The api-versions an azure Endpoint sends unless its APIVersion says
// another: the Azure OpenAI data plane's generally available version for
// Chat Completions, and the first that serves the Responses API.
const (
	AzureAPIVersion       = "2024-10-21"
	AzureResponsesVersion = "2025-03-01-preview"
)

// The base URLs of the providers' own APIs.
const (
	OpenAIBaseURL    = "https://api.openai.com/v1"
	GeminiBaseURL    = "https://generativelanguage.googleapis.com"
	AnthropicBaseURL = "https://api.anthropic.com" // the SDK appends /v1/messages
	OllamaBaseURL    = "http://localhost:11434"    // a local server's; the clients append /api/chat
)

// DefaultBaseURL is the base URL an endpoint of provider gets when it names
// none: the provider's own API for gemini and anthropic, a local server's
// for ollama; "" for openai, whose wire format many servers speak.
func DefaultBaseURL(provider string) string {
	switch provider {
	case ProviderGemini:
		return GeminiBaseURL
	case ProviderAnthropic:
		return AnthropicBaseURL
	case ProviderOllama:
		return OllamaBaseURL
	}
	return ""
}

// Endpoint says where a model is served.
type Endpoint struct {
	Provider string `json:"provider"`
	BaseURL  string `json:"base_url"`
	Model    string `json:"model"`
	// KeyEnv names the environment variable holding the API key, if any.
	KeyEnv string `json:"key_env,omitempty"`
	// Dimensions asks an embeddings endpoint for shortened vectors (0: the model's own).
	Dimensions int `json:"dimensions,omitempty"`
	// API picks an openai or azure endpoint's API: APIChat (or "") or
	// APIResponses.
	API string `json:"api,omitempty"`
	// APIVersion is an azure endpoint's api-version (AzureVersion says
	// which when it is empty).
	APIVersion string `json:"api_version,omitempty"`
	// Stream asks the chat adapter to stream its calls (server-sent
	// events) and put the answer together from them; the Response is the
	// one the same call would give unstreamed.
	Stream bool `json:"stream,omitempty"`
}

// AzureVersion is the api-version an azure endpoint sends: its APIVersion,
// else AzureAPIVersion, or AzureResponsesVersion for the Responses API.
func (e Endpoint) AzureVersion() string {
	switch {
	case e.APIVersion != "":
		return e.APIVersion
	case e.API == APIResponses:
		return AzureResponsesVersion
	}
	return AzureAPIVersion
}

// APIs an openai Endpoint may speak.
const (
	APIChat      = "chat"      // Chat Completions, the default
	APIResponses = "responses" // the Responses API
)

// StatusError is a non-2xx answer from a provider.
type StatusError struct {
	Code int
	Body string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("model returned HTTP %d: %s", e.Code, e.Body)
}

// ErrNoContent is returned when a response has neither text nor tool calls.
var ErrNoContent = errors.New("model response has no content")

// Float returns a pointer to v, for Request.Temperature.
func Float(v float64) *float64 { return &v }

// FirstJSONObject returns the first balanced {...} in s, or "": models
// often wrap the JSON they were asked for in prose or code fences.
func FirstJSONObject(s string) string {
	start := strings.IndexByte(s, '{')
	if start < 0 {
		return ""
	}
	depth, inString, escaped := 0, false, false
	for i := start; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped:
			escaped = false
		case c == '\\' && inString:
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return s[start : i+1]
			}
		}
	}
	return ""
}
