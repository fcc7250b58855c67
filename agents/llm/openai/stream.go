package openai

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/agentreplay/testbed/agents/llm"
)

// Streaming returns c set to stream its calls when on: Chat then sends
// stream: true with stream_options.include_usage, reads the chunks with the
// SDK's NewStreaming and puts them together with its
// ChatCompletionAccumulator, so the llm.Response is the one the same call
// gives unstreamed (text, tool calls, finish reason, and usage from the
// usage chunk when the server sends it: the last chunk's that carries one,
// as each is the whole so far). A stream that carries a malformed
// chunk, ends before a choice's finish_reason or without its closing
// [DONE] line is an error: a partial answer is never a success.
func (c *Client) Streaming(on bool) *Client {
	out := *c
	out.stream = on
	return &out
}

// ErrStreamEnded is the error of a stream that ended before its end: no
// finish_reason, or no [DONE].
var ErrStreamEnded = errors.New("openai: the stream ended early")

// doneLine is the data of the event that closes a Chat Completions stream.
var doneLine = []byte("data: [DONE]")

func (c *Client) chatStream(ctx context.Context, p sdk.ChatCompletionNewParams) (llm.Response, error) {
	p.StreamOptions = sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)}
	var seen doneWatch
	return accumulate(c.sdk.Chat.Completions.NewStreaming(ctx, p, option.WithMiddleware(seen.middleware)), &seen)
}

// StreamResponse reads a whole Chat Completions event stream as the
// streamed Chat does, with the same errors; the harness reads an outside
// agent's streamed responses with it.
func StreamResponse(body []byte) (llm.Response, error) {
	var seen doneWatch
	rc := &watchedBody{ReadCloser: io.NopCloser(bytes.NewReader(body)), w: &seen}
	d := ssestream.NewDecoder(&http.Response{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: rc})
	return accumulate(ssestream.NewStream[sdk.ChatCompletionChunk](d, nil), &seen)
}

// accumulate puts the chunks of s together; seen tells whether its body
// carried [DONE].
func accumulate(s *ssestream.Stream[sdk.ChatCompletionChunk], seen *doneWatch) (llm.Response, error) {
	defer s.Close()
	var acc sdk.ChatCompletionAccumulator
	// The SDK's accumulator leaves the legacy function_call deltas out,
	// and custom tools' calls (customDeltas).
	var legacyName, legacyArgs strings.Builder
	var custom customDeltas
	// The usage is the last a chunk carried: each is the whole so far.
	// OpenAI sends one, on the chunk after the last choice; compatible
	// servers that send one on every chunk (LiteLLM's proxy, vLLM's
	// continuous_usage_stats, Gemini's OpenAI compatibility) send running
	// totals, which the SDK's accumulator would add up.
	var usage *sdk.CompletionUsage
	finished, chunks := false, 0
	for s.Next() {
		chunk := s.Current()
		chunks++
		if !acc.AddChunk(chunk) {
			return llm.Response{}, fmt.Errorf("openai: stream chunk %d does not follow the ones before it", chunks)
		}
		if chunk.JSON.Usage.Valid() {
			u := chunk.Usage
			usage = &u
		}
		if chunk.ServiceTier != "" {
			// every chunk names the tier that serves the stream
			acc.ChatCompletion.ServiceTier = sdk.ChatCompletionServiceTier(chunk.ServiceTier)
		}
		for _, ch := range chunk.Choices {
			finished = finished || ch.FinishReason != ""
			if ch.Index == 0 {
				//lint:ignore SA1019 the legacy functions API: deprecated in the SDK, still served by the API
				fc := ch.Delta.FunctionCall
				legacyName.WriteString(fc.Name)
				legacyArgs.WriteString(fc.Arguments)
				custom.add(ch.Delta.ToolCalls)
			}
		}
	}
	if err := s.Err(); err != nil {
		return llm.Response{}, fmt.Errorf("openai: stream chunk %d: %w", chunks+1, apiError(err))
	}
	switch {
	case !finished:
		return llm.Response{}, fmt.Errorf("%w: %d chunks and no finish_reason", ErrStreamEnded, chunks)
	case !seen.done:
		return llm.Response{}, fmt.Errorf("%w: no [DONE] after %d chunks", ErrStreamEnded, chunks)
	}
	if c := acc.ChatCompletion.Choices; len(c) > 0 {
		//lint:ignore SA1019 the legacy functions API: deprecated in the SDK, still served by the API
		fc := &c[0].Message.FunctionCall
		if fc.Name == "" {
			fc.Name, fc.Arguments = legacyName.String(), legacyArgs.String()
		}
		custom.fill(c[0].Message.ToolCalls)
	}
	if usage != nil {
		acc.ChatCompletion.Usage = *usage
	}
	return response(&acc.ChatCompletion)
}

// customDeltas puts together the streamed calls of custom tools, by
// their index among the choice's calls, which the SDK's chunk type does
// not describe (its delta tool call has no custom member, as openai-node's
// has): a call's first delta has its index, id, type custom and custom's
// name with empty input, the next ones its index and a piece of the input
// in custom.input. A name given again replaces the one before, as
// openai-node's stream takes it.
type customDeltas map[int64]*customCall

// customCall is a custom tool's call put together so far.
type customCall struct {
	name  string
	input strings.Builder
}

// add notes the custom members of the tool-call deltas of one chunk.
func (d *customDeltas) add(calls []sdk.ChatCompletionChunkChoiceDeltaToolCall) {
	for _, tc := range calls {
		f, ok := tc.JSON.ExtraFields["custom"]
		if !ok {
			continue
		}
		var c struct {
			Name  string `json:"name"`
			Input string `json:"input"`
		}
		if json.Unmarshal([]byte(f.Raw()), &c) != nil {
			continue
		}
		if *d == nil {
			*d = customDeltas{}
		}
		call := (*d)[tc.Index]
		if call == nil {
			call = &customCall{}
			(*d)[tc.Index] = call
		}
		call.name = cmp.Or(c.Name, call.name)
		call.input.WriteString(c.Input)
	}
}

// fill gives the accumulated calls the custom tools' names and inputs,
// as a whole answer's custom tool calls carry them.
func (d customDeltas) fill(calls []sdk.ChatCompletionMessageToolCallUnion) {
	for i, call := range d {
		if i < 0 || i >= int64(len(calls)) {
			continue
		}
		calls[i].Type = cmp.Or(calls[i].Type, "custom")
		calls[i].Custom.Name, calls[i].Custom.Input = call.name, call.input.String()
	}
}

// doneWatch notes whether a response body carried the [DONE] line, which
// the SDK's stream swallows.
type doneWatch struct {
	done bool
	tail []byte // the end of what was read, for a line split across reads
}

func (w *doneWatch) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	resp, err := next(req)
	if err == nil && resp.StatusCode/100 == 2 {
		resp.Body = &watchedBody{ReadCloser: resp.Body, w: w}
	}
	return resp, err
}

type watchedBody struct {
	io.ReadCloser
	w *doneWatch
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && !b.w.done {
		buf := append(b.w.tail, p[:n]...)
		b.w.done = bytes.Contains(buf, doneLine)
		b.w.tail = append([]byte(nil), buf[max(0, len(buf)-len(doneLine)):]...)
	}
	return n, err
}
