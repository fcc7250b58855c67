package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/agentreplay/testbed/agents/llm"
)

// Streaming returns c set to stream its calls when on: Chat then calls
// :streamGenerateContent?alt=sse through the SDK's GenerateContentStream
// and merges the chunks (their parts in order, the last finish reason,
// usage and model version), so the llm.Response is the one the same call
// gives unstreamed (a blocked prompt's one chunk, ErrNoContent). A stream
// that carries a malformed chunk, or ends before a chunk gives the
// candidate's finishReason, is an error: a partial answer is never a
// success.
func (c *Client) Streaming(on bool) *Client {
	out := *c
	out.stream = on
	return &out
}

// ErrStreamEnded is the error of a stream that ended before a chunk gave
// its finishReason.
var ErrStreamEnded = errors.New("gemini: the stream ended early")

func (c *Client) chatStream(ctx context.Context, contents []*genai.Content, cfg *genai.GenerateContentConfig) (llm.Response, error) {
	merged := &genai.GenerateContentResponse{}
	chunks := 0
	for chunk, err := range c.sdk.Models.GenerateContentStream(ctx, c.model, contents, cfg) {
		if err != nil {
			return llm.Response{}, fmt.Errorf("gemini: stream chunk %d: %w", chunks+1, apiError(err))
		}
		chunks++
		merge(merged, chunk)
	}
	return ended(merged, chunks)
}

// StreamResponse reads a whole streamGenerateContent?alt=sse event stream
// as the streamed Chat does, with the same errors; the harness reads an
// outside agent's streamed responses with it.
func StreamResponse(body []byte) (llm.Response, error) {
	merged := &genai.GenerateContentResponse{}
	chunks := 0
	for _, block := range strings.Split(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n\n") {
		var data []string
		for _, line := range strings.Split(block, "\n") {
			if d, ok := strings.CutPrefix(line, "data:"); ok {
				data = append(data, strings.TrimPrefix(d, " "))
			}
		}
		if len(data) == 0 {
			continue
		}
		var chunk genai.GenerateContentResponse
		if err := json.Unmarshal([]byte(strings.Join(data, "\n")), &chunk); err != nil {
			return llm.Response{}, fmt.Errorf("gemini: stream chunk %d: %w", chunks+1, err)
		}
		chunks++
		merge(merged, &chunk)
	}
	return ended(merged, chunks)
}

// ended is the response of a merged stream of n chunks, or ErrStreamEnded
// when none gave a finishReason. A prompt Gemini blocked is a stream of
// one chunk with no candidate and the reason in its promptFeedback: it
// ended, with no content, as the call unstreamed does.
func ended(merged *genai.GenerateContentResponse, n int) (llm.Response, error) {
	if len(merged.Candidates) == 0 && merged.PromptFeedback != nil && merged.PromptFeedback.BlockReason != "" {
		return response(merged)
	}
	if len(merged.Candidates) == 0 || merged.Candidates[0].FinishReason == "" {
		return llm.Response{}, fmt.Errorf("%w: %d chunks and no finishReason", ErrStreamEnded, n)
	}
	return response(merged)
}

// merge adds a stream chunk to what came before it.
func merge(into, chunk *genai.GenerateContentResponse) {
	if chunk.ModelVersion != "" {
		into.ModelVersion = chunk.ModelVersion
	}
	if chunk.ResponseID != "" {
		into.ResponseID = chunk.ResponseID
	}
	if chunk.UsageMetadata != nil {
		into.UsageMetadata = chunk.UsageMetadata
	}
	if chunk.PromptFeedback != nil {
		into.PromptFeedback = chunk.PromptFeedback
	}
	for _, c := range chunk.Candidates {
		i := max(int(c.Index), 0)
		for i >= len(into.Candidates) {
			into.Candidates = append(into.Candidates, &genai.Candidate{Index: int32(len(into.Candidates))})
		}
		m := into.Candidates[i]
		if c.Content != nil {
			if m.Content == nil {
				m.Content = &genai.Content{Role: c.Content.Role}
			}
			m.Content.Parts = append(m.Content.Parts, c.Content.Parts...)
		}
		if c.FinishReason != "" {
			m.FinishReason = c.FinishReason
		}
		if c.GroundingMetadata != nil {
			// the grounding of the answer so far: the last chunk's
			m.GroundingMetadata = c.GroundingMetadata
		}
	}
}
