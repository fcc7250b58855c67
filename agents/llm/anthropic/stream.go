package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/ssestream"

	"github.com/agentreplay/testbed/agents/llm"
)

// Streaming returns c set to stream its calls when on: Chat then sends
// stream: true through the SDK's Messages.NewStreaming and builds the
// message with Message.Accumulate from its events (message_start,
// content_block_start/delta/stop with text_delta and the input_json_delta
// that carries tool input, message_delta with the stop reason and output
// usage, message_stop; ping ignored), so the llm.Response is the one the
// same call gives unstreamed. A stream that carries a malformed or
// out-of-order event, or ends before message_stop, is an error, and so is
// tool input whose deltas do not add up to JSON: a partial answer is never
// a success.
func (c *Client) Streaming(on bool) *Client {
	out := *c
	out.stream = on
	return &out
}

// ErrStreamEnded is the error of a stream that ended before message_stop.
var ErrStreamEnded = errors.New("anthropic: the stream ended early")

func (c *Client) chatStream(ctx context.Context, p sdk.MessageNewParams) (llm.Response, error) {
	return accumulate(c.sdk.Messages.NewStreaming(ctx, p))
}

// StreamResponse reads a whole Messages event stream as the streamed Chat
// does, with the same errors; the harness reads an outside agent's
// streamed responses with it.
func StreamResponse(body []byte) (llm.Response, error) {
	d := ssestream.NewDecoder(&http.Response{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(body))})
	return accumulate(ssestream.NewStream[sdk.MessageStreamEventUnion](d, nil))
}

// accumulate builds the message the events of s carry.
func accumulate(s *ssestream.Stream[sdk.MessageStreamEventUnion]) (llm.Response, error) {
	defer s.Close()
	var msg sdk.Message
	events, stopped := 0, false
	var compact compacted // a compaction's usage, which message_delta gives
	for s.Next() {
		ev := s.Current()
		events++
		if err := msg.Accumulate(ev); err != nil {
			return llm.Response{}, fmt.Errorf("anthropic: stream event %d (%s): %w", events, ev.Type, err)
		}
		if ev.Type == "message_delta" {
			compact = compaction(ev.Usage.RawJSON())
		}
		stopped = stopped || ev.Type == "message_stop"
	}
	if err := s.Err(); err != nil {
		return llm.Response{}, fmt.Errorf("anthropic: stream event %d: %w", events+1, apiError(err))
	}
	if !stopped {
		return llm.Response{}, fmt.Errorf("%w: %d events and no message_stop", ErrStreamEnded, events)
	}
	for _, b := range msg.Content {
		if b.Type == "tool_use" && !json.Valid(b.Input) {
			return llm.Response{}, fmt.Errorf("anthropic: tool_use %s: its input_json_delta events add up to %q, not JSON", b.Name, b.Input)
		}
	}
	resp, err := Response(&msg)
	if compact != (compacted{}) {
		// message_delta has the last word, over message_start's.
		start := compaction(msg.Usage.RawJSON())
		resp.Usage.InputTokens += compact.in - start.in
		resp.Usage.OutputTokens += compact.out - start.out
		resp.Usage.CacheReadTokens += compact.read - start.read
		resp.Usage.CacheWriteTokens += compact.write - start.write
	}
	return resp, err
}
