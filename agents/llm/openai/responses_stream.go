package openai

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agentreplay/testbed/agents/llm"
)

// Streaming returns c set to stream its calls when on: Chat then sends
// stream: true through the SDK's Responses.NewStreaming and reads the
// events (response.created, response.output_item.added,
// response.output_text.delta, response.function_call_arguments.delta, …)
// to the terminal one, response.completed or response.incomplete, whose
// response is the whole answer, mapped as an unstreamed one is; the text
// deltas must add up to its text. A stream that ends without a terminal
// event, carries an event the SDK cannot read, or ends with
// response.failed or an error event is an error: a partial answer is never
// a success.
func (c *Responses) Streaming(on bool) *Responses {
	out := *c
	out.stream = on
	return &out
}

func (c *Responses) chatStream(ctx context.Context, p responses.ResponseNewParams) (llm.Response, error) {
	return readResponsesStream(c.sdk.Responses.NewStreaming(ctx, p))
}

// ResponsesStreamResponse reads a whole Responses API event stream as the
// streamed Chat does, with the same errors: the harness can read an outside
// agent's streamed Responses calls with it.
func ResponsesStreamResponse(body []byte) (llm.Response, error) {
	d := ssestream.NewDecoder(&http.Response{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(body))})
	return readResponsesStream(ssestream.NewStream[responses.ResponseStreamEventUnion](d, nil))
}

// readResponsesStream reads s to its terminal event.
func readResponsesStream(s *ssestream.Stream[responses.ResponseStreamEventUnion]) (llm.Response, error) {
	defer s.Close()
	var deltas strings.Builder
	events := 0
	for s.Next() {
		e := s.Current()
		events++
		switch e.Type {
		case "response.output_text.delta":
			deltas.WriteString(e.Delta)
		case "response.completed", "response.incomplete":
			out, err := FromResponses(&e.Response)
			if err == nil && out.Message.Content != deltas.String() {
				return llm.Response{}, fmt.Errorf("openai: the responses stream's text deltas (%d bytes) do not add up to its %s text (%d bytes)", deltas.Len(), e.Type, len(out.Message.Content))
			}
			return out, err
		case "response.failed":
			return llm.Response{}, fmt.Errorf("openai: the response failed: %s: %s", e.Response.Error.Code, e.Response.Error.Message)
		case "error":
			return llm.Response{}, fmt.Errorf("openai: the responses stream sent an error event: %s: %s", e.Code, e.Message)
		}
	}
	if err := s.Err(); err != nil {
		return llm.Response{}, fmt.Errorf("openai: responses stream event %d: %w", events+1, apiError(err))
	}
	return llm.Response{}, fmt.Errorf("openai: the responses stream ended after %d events without response.completed: %w", events, io.ErrUnexpectedEOF)
}
