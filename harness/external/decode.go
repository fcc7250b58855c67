package external

// Reading a model's answer from the traffic: whole or streamed, in each
// dialect, as the provider adapters read it.

import (
	"encoding/json"
	"mime"
	"net/http"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/anthropic"
	geminiadapter "github.com/agentreplay/testbed/agents/llm/gemini"
	"github.com/agentreplay/testbed/agents/llm/openai"
	"github.com/agentreplay/testbed/harness/wire"
)

// eventStream reports whether a response with header h is a server-sent
// event stream.
func eventStream(h http.Header) bool {
	t, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && t == "text/event-stream"
}

// streamOf is the event stream of a streamed answer (b, sent with header
// h): an event stream as it is, an Ollama stream (newline-delimited JSON)
// as it is, or the events a Gemini stream sent as one JSON array (without
// alt=sse) stands for; false when b is a whole answer.
func streamOf(d wire.Dialect, h http.Header, b []byte) ([]byte, bool) {
	if eventStream(h) {
		return b, true
	}
	switch d {
	case wire.Gemini:
		return wire.ArrayEvents(b)
	case wire.Ollama:
		t, _, err := mime.ParseMediaType(h.Get("Content-Type"))
		return b, err == nil && t == wire.OllamaStreamType
	}
	return nil, false
}

// decodeStream reads a streamed model response of dialect d with its
// wire format's adapter (Ollama's and the Interactions API's: the wire
// package's readers).
func decodeStream(d wire.Dialect, b []byte) (llm.Response, error) {
	switch d {
	case wire.Ollama:
		return wire.ReadOllama(b)
	case wire.Interactions:
		return wire.ReadInteractions(b)
	case wire.Gemini:
		return geminiadapter.StreamResponse(b)
	case wire.Anthropic:
		return anthropic.StreamResponse(b)
	case wire.Responses:
		return openai.ResponsesStreamResponse(b)
	}
	return openai.StreamResponse(b)
}

// decodeResponse reads a model response of dialect d as its adapter does.
func decodeResponse(d wire.Dialect, b []byte) (llm.Response, error) {
	switch d {
	case wire.Ollama:
		return wire.ReadOllama(b)
	case wire.Interactions:
		return wire.ReadInteractions(b)
	case wire.Gemini:
		return decodeGeminiResponse(b)
	case wire.Anthropic:
		return decodeAs(b, anthropic.Response)
	case wire.Responses:
		return decodeAs(b, openai.FromResponses)
	}
	return decodeChatResponse(b)
}

// decodeChatResponse reads a Chat Completions response.
func decodeChatResponse(b []byte) (llm.Response, error) {
	var w struct {
		ID          string `json:"id"`
		Model       string `json:"model"`
		ServiceTier string `json:"service_tier"`
		Choices     []struct {
			FinishReason string `json:"finish_reason"`
			Message      struct {
				Content      string                 `json:"content"`
				ToolCalls    []wire.ChatToolCall    `json:"tool_calls"`
				FunctionCall *wire.ChatFunctionCall `json:"function_call"` // the legacy functions API's
			} `json:"message"`
		} `json:"choices"`
		Usage struct {
			Prompt     int `json:"prompt_tokens"`
			Completion int `json:"completion_tokens"`
			Details    struct {
				Reasoning int `json:"reasoning_tokens"`
				Audio     int `json:"audio_tokens"`
			} `json:"completion_tokens_details"`
			PromptDetails struct {
				Cached  int `json:"cached_tokens"`
				Written int `json:"cache_write_tokens"`
				Audio   int `json:"audio_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
	}
	var out llm.Response
	if err := json.Unmarshal(b, &w); err != nil {
		return out, err
	}
	out.Model, out.ID, out.Message.Role = w.Model, w.ID, llm.RoleAssistant
	out.Usage = llm.Usage{InputTokens: w.Usage.Prompt, OutputTokens: w.Usage.Completion, ReasoningTokens: w.Usage.Details.Reasoning,
		CacheReadTokens: w.Usage.PromptDetails.Cached, CacheWriteTokens: w.Usage.PromptDetails.Written, InputAudioTokens: w.Usage.PromptDetails.Audio, OutputAudioTokens: w.Usage.Details.Audio,
		ServiceTier: llm.StandardTier(w.ServiceTier)}
	if len(w.Choices) == 0 {
		return out, nil
	}
	c := w.Choices[0]
	out.FinishReason, out.RawFinishReason = openai.FinishReason(c.FinishReason), c.FinishReason
	out.Message.Content = c.Message.Content
	for _, tc := range c.Message.ToolCalls {
		out.Message.ToolCalls = append(out.Message.ToolCalls, tc.Call())
	}
	if fc := c.Message.FunctionCall; fc != nil && fc.Name != "" {
		out.Message.ToolCalls = append(out.Message.ToolCalls, llm.ToolCall{Name: fc.Name, Arguments: json.RawMessage(fc.Arguments)})
	}
	return out, nil
}

// decodeAs reads a response into the SDK's type T and converts it as the
// adapter does (anthropic.Response, openai.FromResponses): what the
// conversion makes of it, even when it also says what it could not read.
func decodeAs[T any](b []byte, convert func(*T) (llm.Response, error)) (llm.Response, error) {
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return llm.Response{}, err
	}
	out, _ := convert(&v)
	return out, nil
}

// decodeGeminiResponse reads a generateContent response.
func decodeGeminiResponse(b []byte) (llm.Response, error) {
	var w struct {
		Candidates []struct {
			FinishReason      string `json:"finishReason"`
			GroundingMetadata *struct {
				WebSearchQueries []string `json:"webSearchQueries"`
			} `json:"groundingMetadata"`
			Content struct {
				Parts []struct {
					Text         string `json:"text"`
					Thought      bool   `json:"thought"`
					FunctionCall *struct {
						ID   string          `json:"id"`
						Name string          `json:"name"`
						Args json.RawMessage `json:"args"`
					} `json:"functionCall"`
				} `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
		Usage struct {
			Prompt     int `json:"promptTokenCount"`
			Candidates int `json:"candidatesTokenCount"`
			Thoughts   int `json:"thoughtsTokenCount"`
			Cached     int `json:"cachedContentTokenCount"`
			ToolUse    int `json:"toolUsePromptTokenCount"`
			// by modality: the AUDIO parts
			PromptDetails     modalities `json:"promptTokensDetails"`
			ToolUseDetails    modalities `json:"toolUsePromptTokensDetails"`
			CacheDetails      modalities `json:"cacheTokensDetails"`
			CandidatesDetails modalities `json:"candidatesTokensDetails"`
		} `json:"usageMetadata"`
		Model          string `json:"modelVersion"`
		ID             string `json:"responseId"`
		PromptFeedback struct {
			BlockReason string `json:"blockReason"`
		} `json:"promptFeedback"`
	}
	var out llm.Response
	if err := json.Unmarshal(b, &w); err != nil {
		return out, err
	}
	out.Model, out.ID, out.Message.Role = w.Model, w.ID, llm.RoleAssistant
	// Gemini counts thinking beside the candidates' tokens, and what its
	// built-in tools (search, code execution) added to the prompt beside
	// the prompt's; both are billed.
	out.Usage = llm.Usage{InputTokens: w.Usage.Prompt + w.Usage.ToolUse, OutputTokens: w.Usage.Candidates + w.Usage.Thoughts, ReasoningTokens: w.Usage.Thoughts,
		CacheReadTokens: w.Usage.Cached, CacheReadAudioTokens: w.Usage.CacheDetails.audio(), OutputAudioTokens: w.Usage.CandidatesDetails.audio(),
		InputAudioTokens: geminiadapter.UncachedAudio(w.Usage.PromptDetails.audio()+w.Usage.ToolUseDetails.audio(), w.Usage.CacheDetails.audio())}
	for _, c := range w.Candidates {
		if g := c.GroundingMetadata; g != nil {
			out.Usage.WebSearches += len(g.WebSearchQueries)
		}
	}
	if len(w.Candidates) == 0 {
		// a blocked prompt: no candidate, its tokens counted
		if r := w.PromptFeedback.BlockReason; r != "" {
			out.FinishReason, out.RawFinishReason = geminiadapter.Blocked(r)
		}
		return out, nil
	}
	c := w.Candidates[0]
	out.RawFinishReason = c.FinishReason
	for _, p := range c.Content.Parts {
		if !p.Thought {
			out.Message.Content += p.Text
		}
		if f := p.FunctionCall; f != nil {
			args := f.Args
			if len(args) == 0 || string(args) == "null" {
				// no args (a function of no parameters): no arguments, as
				// the adapter and a request's history read the call
				args = json.RawMessage(`{}`)
			}
			out.Message.ToolCalls = append(out.Message.ToolCalls, llm.ToolCall{ID: f.ID, Name: f.Name, Arguments: args})
		}
	}
	out.FinishReason = geminiadapter.FinishReason(c.FinishReason, len(out.Message.ToolCalls) > 0)
	return out, nil
}

// modalities is a Gemini usage breakdown by modality.
type modalities []struct {
	Modality string `json:"modality"`
	Tokens   int    `json:"tokenCount"`
}

// audio is the AUDIO modality's tokens.
func (m modalities) audio() int {
	n := 0
	for _, d := range m {
		if d.Modality == "AUDIO" {
			n += d.Tokens
		}
	}
	return n
}
