package external_test

// What the providers' official Go SDKs read of an answer's bytes, for the
// differential check of traffic reading against them (sdkdiff_test.go,
// sdkfuzz_test.go): each reader decodes the bytes into the SDK's own types
// (a stream with the SDK's decoder and, where it has one, its accumulator)
// and takes the text, tool calls, raw finish reason, model and token
// counts from them as the SDK's helpers do, in the units llm.Usage keeps.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	anthropic "github.com/anthropics/anthropic-sdk-go"
	anthropicsse "github.com/anthropics/anthropic-sdk-go/packages/ssestream"
	openai "github.com/openai/openai-go/v3"
	openaisse "github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/external"
	"github.com/agentreplay/testbed/harness/wire"
)

// reading is what one side read of an answer.
type reading struct {
	Text   string
	Calls  []string // each "id name arguments", arguments compacted when JSON
	Finish string   // the provider's own finish reason
	Model  string
	Usage  llm.Usage // the token counts and tier, without web searches
}

// call is one tool call as a reading lists it.
func call(id, name, args string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(args)) == nil {
		args = b.String()
	}
	return id + " " + name + " " + args
}

// sseHeader and jsonHeader are the headers of a streamed and a whole answer.
var (
	sseHeader  = http.Header{"Content-Type": {"text/event-stream"}}
	jsonHeader = http.Header{"Content-Type": {"application/json"}}
)

// testbedRead is what testbed reads of the answer b of dialect d, sent with
// header h.
func testbedRead(d wire.Dialect, h http.Header, b []byte) (reading, error) {
	out, err := external.ReadAnswer(d, h, b)
	if err != nil {
		return reading{}, err
	}
	r := reading{Text: out.Message.Content, Finish: out.RawFinishReason, Model: out.Model, Usage: out.Usage}
	r.Usage.WebSearches = 0
	for _, c := range out.Message.ToolCalls {
		r.Calls = append(r.Calls, call(c.ID, c.Name, string(c.Arguments)))
	}
	return r, nil
}

// sseBody is a response carrying the event stream b, for the SDKs' decoders.
func sseBody(b []byte) *http.Response {
	return &http.Response{StatusCode: 200, Header: sseHeader, Body: io.NopCloser(bytes.NewReader(b))}
}

// sdkChat reads a whole Chat Completions answer as openai-go does.
func sdkChat(b []byte) (reading, error) {
	var c openai.ChatCompletion
	if err := json.Unmarshal(b, &c); err != nil {
		return reading{}, err
	}
	return chatReading(&c), nil
}

// sdkChatStream puts a Chat Completions stream together with openai-go's
// ChatCompletionAccumulator. The accumulator adds up every usage count but
// prompt_tokens_details.cache_write_tokens, which it leaves out: that one
// is the chunk's that carried it, as the SDK's chunk type reads it.
func sdkChatStream(b []byte) (reading, error) {
	s := openaisse.NewStream[openai.ChatCompletionChunk](openaisse.NewDecoder(sseBody(b)), nil)
	defer s.Close()
	var acc openai.ChatCompletionAccumulator
	written := int64(0)
	for s.Next() {
		chunk := s.Current()
		if !acc.AddChunk(chunk) {
			return reading{}, fmt.Errorf("the accumulator refused a chunk")
		}
		written += chunk.Usage.PromptTokensDetails.CacheWriteTokens
	}
	if err := s.Err(); err != nil {
		return reading{}, err
	}
	acc.Usage.PromptTokensDetails.CacheWriteTokens = written
	return chatReading(&acc.ChatCompletion), nil
}

// chatReading is what a chat completion's first choice and usage say.
func chatReading(c *openai.ChatCompletion) reading {
	u := c.Usage
	r := reading{Model: c.Model, Usage: llm.Usage{InputTokens: int(u.PromptTokens), OutputTokens: int(u.CompletionTokens),
		ReasoningTokens: int(u.CompletionTokensDetails.ReasoningTokens), CacheReadTokens: int(u.PromptTokensDetails.CachedTokens),
		CacheWriteTokens: int(u.PromptTokensDetails.CacheWriteTokens), InputAudioTokens: int(u.PromptTokensDetails.AudioTokens), OutputAudioTokens: int(u.CompletionTokensDetails.AudioTokens),
		ServiceTier: llm.StandardTier(string(c.ServiceTier))}}
	if len(c.Choices) == 0 {
		return r
	}
	ch := c.Choices[0]
	r.Text, r.Finish = ch.Message.Content, ch.FinishReason
	for _, tc := range ch.Message.ToolCalls {
		if tc.Type == "custom" {
			input, _ := json.Marshal(tc.Custom.Input)
			r.Calls = append(r.Calls, call(tc.ID, tc.Custom.Name, string(input)))
			continue
		}
		r.Calls = append(r.Calls, call(tc.ID, tc.Function.Name, tc.Function.Arguments))
	}
	//lint:ignore SA1019 the legacy functions API: deprecated in the SDK, still served by the API
	if fc := ch.Message.FunctionCall; fc.Name != "" {
		r.Calls = append(r.Calls, call("", fc.Name, fc.Arguments))
	}
	return r
}

// sdkResponses reads a whole Responses API answer as openai-go does.
func sdkResponses(b []byte) (reading, error) {
	var resp responses.Response
	if err := json.Unmarshal(b, &resp); err != nil {
		return reading{}, err
	}
	return responsesReading(&resp), nil
}

// sdkResponsesStream reads a Responses API stream as openai-go does: the
// response its response.completed (or .incomplete) event carries.
func sdkResponsesStream(b []byte) (reading, error) {
	s := openaisse.NewStream[responses.ResponseStreamEventUnion](openaisse.NewDecoder(sseBody(b)), nil)
	defer s.Close()
	for s.Next() {
		if e := s.Current(); e.Type == "response.completed" || e.Type == "response.incomplete" {
			return responsesReading(&e.Response), nil
		}
	}
	if err := s.Err(); err != nil {
		return reading{}, err
	}
	return reading{}, fmt.Errorf("no response.completed")
}

// responsesReading is what a response's output and usage say.
func responsesReading(resp *responses.Response) reading {
	u := resp.Usage
	r := reading{Text: resp.OutputText(), Finish: string(resp.Status), Model: resp.Model,
		Usage: llm.Usage{InputTokens: int(u.InputTokens), OutputTokens: int(u.OutputTokens), ReasoningTokens: int(u.OutputTokensDetails.ReasoningTokens),
			CacheReadTokens: int(u.InputTokensDetails.CachedTokens), CacheWriteTokens: int(u.InputTokensDetails.CacheWriteTokens), ServiceTier: llm.StandardTier(string(resp.ServiceTier))}}
	if why := resp.IncompleteDetails.Reason; resp.Status == responses.ResponseStatusIncomplete && why != "" {
		r.Finish += ": " + why
	}
	for _, item := range resp.Output {
		switch item.Type {
		case "function_call":
			r.Calls = append(r.Calls, call(item.CallID, item.Name, item.Arguments.OfString))
		case "custom_tool_call":
			input, _ := json.Marshal(item.Input)
			r.Calls = append(r.Calls, call(item.CallID, item.Name, string(input)))
		}
	}
	return r
}

// sdkAnthropic reads a whole Messages answer as anthropic-sdk-go does.
func sdkAnthropic(b []byte) (reading, error) {
	var m anthropic.Message
	if err := json.Unmarshal(b, &m); err != nil {
		return reading{}, err
	}
	return anthropicReading(&m), nil
}

// sdkAnthropicStream builds a Messages stream's message with
// anthropic-sdk-go's Message.Accumulate.
func sdkAnthropicStream(b []byte) (reading, error) {
	s := anthropicsse.NewStream[anthropic.MessageStreamEventUnion](anthropicsse.NewDecoder(sseBody(b)), nil)
	defer s.Close()
	var m anthropic.Message
	for s.Next() {
		if err := m.Accumulate(s.Current()); err != nil {
			return reading{}, err
		}
	}
	if err := s.Err(); err != nil {
		return reading{}, err
	}
	return anthropicReading(&m), nil
}

// anthropicReading is what a message's blocks and usage say: input_tokens
// leaves out the cache's reads and writes, which llm.Usage counts in.
func anthropicReading(m *anthropic.Message) reading {
	u := m.Usage
	read, write := int(u.CacheReadInputTokens), int(u.CacheCreationInputTokens)
	r := reading{Finish: string(m.StopReason), Model: string(m.Model),
		Usage: llm.Usage{InputTokens: int(u.InputTokens) + read + write, OutputTokens: int(u.OutputTokens), ReasoningTokens: int(u.OutputTokensDetails.ThinkingTokens),
			CacheReadTokens: read, CacheWriteTokens: write, CacheWrite1hTokens: int(u.CacheCreation.Ephemeral1hInputTokens), ServiceTier: llm.StandardTier(string(u.ServiceTier)),
			InferenceGeo: llm.StandardGeo(u.InferenceGeo)}}
	if u.Speed == anthropic.UsageSpeedFast {
		// fast mode, billed at its own rates: a tier of its own
		if r.Usage.ServiceTier == "" {
			r.Usage.ServiceTier = "fast"
		} else {
			r.Usage.ServiceTier += "+fast"
		}
	}
	for _, block := range m.Content {
		switch block.Type {
		case "text":
			r.Text += block.Text
		case "tool_use":
			r.Calls = append(r.Calls, call(block.ID, block.Name, string(block.Input)))
		}
	}
	return r
}

// sdkGemini reads a whole generateContent answer into genai's types.
func sdkGemini(b []byte) (reading, error) {
	var resp genai.GenerateContentResponse
	if err := json.Unmarshal(b, &resp); err != nil {
		return reading{}, err
	}
	r := reading{Model: resp.ModelVersion, Usage: geminiUsage(resp.UsageMetadata)}
	if len(resp.Candidates) > 0 {
		r.Finish = string(resp.Candidates[0].FinishReason)
	}
	r.Text, r.Calls = geminiParts(&resp, 0)
	return r, nil
}

// sdkGeminiStream reads each chunk of a streamGenerateContent?alt=sse
// stream into genai's types: the first candidate's parts in order, its
// last finish reason, the last usage and model version.
func sdkGeminiStream(b []byte) (reading, error) {
	var r reading
	for _, event := range strings.Split(string(b), "\n\n") {
		data, ok := strings.CutPrefix(strings.TrimSpace(event), "data:")
		if !ok {
			continue
		}
		var chunk genai.GenerateContentResponse
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			return reading{}, err
		}
		r.Model = cmpOr(chunk.ModelVersion, r.Model)
		if chunk.UsageMetadata != nil {
			r.Usage = geminiUsage(chunk.UsageMetadata)
		}
		for i, c := range chunk.Candidates {
			if c.Index == 0 && c.FinishReason != "" {
				r.Finish = string(c.FinishReason)
			}
			if c.Index == 0 {
				text, calls := geminiParts(&chunk, i)
				r.Text += text
				r.Calls = append(r.Calls, calls...)
			}
		}
	}
	return r, nil
}

// sdkGeminiArray reads a stream sent as one JSON array (streamGenerateContent
// without alt=sse), each element a chunk, as sdkGeminiStream reads events.
func sdkGeminiArray(b []byte) (reading, error) {
	var chunks []json.RawMessage
	if err := json.Unmarshal(b, &chunks); err != nil {
		return reading{}, err
	}
	var events strings.Builder
	for _, c := range chunks {
		events.WriteString("data: " + oneLine(string(c)) + "\n\n")
	}
	return sdkGeminiStream([]byte(events.String()))
}

// cmpOr is a unless it is empty, else b.
func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// geminiParts is the text (thoughts left out, as GenerateContentResponse.Text
// leaves them) and function calls of candidate i.
func geminiParts(resp *genai.GenerateContentResponse, i int) (string, []string) {
	if i >= len(resp.Candidates) || resp.Candidates[i].Content == nil {
		return "", nil
	}
	var text string
	var calls []string
	for _, p := range resp.Candidates[i].Content.Parts {
		if p.Text != "" && !p.Thought {
			text += p.Text
		}
		if f := p.FunctionCall; f != nil {
			args := []byte("{}") // no args: a call without arguments, as a request's history reads it
			if f.Args != nil {
				args, _ = json.Marshal(f.Args)
			}
			calls = append(calls, call(f.ID, f.Name, string(args)))
		}
	}
	return text, calls
}

// geminiUsage is Gemini's usage in llm.Usage's units: thinking beside the
// candidates' tokens and the built-in tools' prompt beside the prompt's,
// both counted in; the audio of the prompt less the cached audio.
func geminiUsage(u *genai.GenerateContentResponseUsageMetadata) llm.Usage {
	if u == nil {
		return llm.Usage{}
	}
	audio := func(details []*genai.ModalityTokenCount) int {
		n := 0
		for _, d := range details {
			if d != nil && d.Modality == genai.MediaModalityAudio {
				n += int(d.TokenCount)
			}
		}
		return n
	}
	return llm.Usage{InputTokens: int(u.PromptTokenCount + u.ToolUsePromptTokenCount), OutputTokens: int(u.CandidatesTokenCount + u.ThoughtsTokenCount),
		ReasoningTokens: int(u.ThoughtsTokenCount), CacheReadTokens: int(u.CachedContentTokenCount), CacheReadAudioTokens: audio(u.CacheTokensDetails),
		InputAudioTokens:  max(audio(u.PromptTokensDetails)+audio(u.ToolUsePromptTokensDetails)-audio(u.CacheTokensDetails), 0),
		OutputAudioTokens: audio(u.CandidatesTokensDetails)}
}
