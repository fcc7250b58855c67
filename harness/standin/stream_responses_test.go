package standin_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/openai"
	"github.com/agentreplay/testbed/harness/standin"
	"github.com/agentreplay/testbed/harness/stream"
)

// responsesStreamer is the OpenAI Responses wire format's streamer.
var responsesStreamer = streamer{
	client: func(srv *standin.Server, hc *http.Client, on bool) llm.Client {
		return openai.NewResponses(srv.URL()+"/v1", gpt, "sk-test", hc).Streaming(on)
	},
	path: "/v1/responses",
	body: `{"model":"` + gpt + `","stream":true,"instructions":"` + echoPrompt + `","input":"%s",` +
		`"tools":[{"type":"function","name":"get_sst","parameters":{"type":"object"}},{"type":"function","name":"get_date","parameters":{"type":"object"}}]}`,
}

// sdkStream asks srv for a streamed answer to user through the official
// SDK's Responses.NewStreaming, checks every event's shape against the
// SDK's own types and returns the events.
func sdkStream(srv *standin.Server, user string, maxTokens int64) []responses.ResponseStreamEventUnion {
	GinkgoHelper()
	c := officialOpenAI(srv)
	params := responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt), Input: userInput(user),
		Tools: []responses.ToolUnionParam{sdkSST}}
	if maxTokens > 0 {
		params.MaxOutputTokens = sdk.Int(maxTokens)
	}
	s := c.Responses.NewStreaming(context.Background(), params)
	defer s.Close()
	var events []responses.ResponseStreamEventUnion
	for s.Next() {
		e := s.Current()
		Expect(sdkShapeProblems(reflect.ValueOf(e), "event", responsesDiffers...)).To(BeEmpty(), "event %d: %s", len(events), e.RawJSON())
		events = append(events, e)
	}
	Expect(s.Err()).NotTo(HaveOccurred())
	return events
}

// accumulated puts a stream's events together as a client would: the
// output items from their added, delta and done events, checked against
// each other.
func accumulated(events []responses.ResponseStreamEventUnion) []string {
	GinkgoHelper()
	var items []string
	var text, args strings.Builder
	for i, e := range events {
		Expect(e.SequenceNumber).To(BeEquivalentTo(i), "sequence_number counts the events")
		switch e.Type {
		case "response.output_item.added":
			Expect(e.OutputIndex).To(BeEquivalentTo(len(items)))
			Expect(e.Item.Status).To(Equal("in_progress"))
			text.Reset()
			args.Reset()
		case "response.output_text.delta":
			text.WriteString(e.Delta)
		case "response.output_text.done":
			Expect(e.Text).To(Equal(text.String()), "the deltas add up to the text")
		case "response.content_part.done":
			Expect(e.Part.Text).To(Equal(text.String()))
		case "response.function_call_arguments.delta":
			args.WriteString(e.Delta)
		case "response.function_call_arguments.done":
			Expect(e.Arguments).To(Equal(args.String()), "the deltas add up to the arguments")
		case "response.output_item.done":
			Expect(e.OutputIndex).To(BeEquivalentTo(len(items)))
			items = append(items, e.Item.RawJSON())
		}
	}
	return items
}

var _ = Describe("streaming the OpenAI Responses API", func() {
	var srv *standin.Server

	BeforeEach(func() {
		srv = startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
	})

	DescribeTable("writes events the official SDK reads with no unknown or missing field, that add up to the whole response",
		func(user string, maxTokens int64, types []string, terminal string) {
			events := sdkStream(srv, user, maxTokens)
			var got []string // a run of deltas counts once
			deltas := 0
			for _, e := range events {
				if strings.HasSuffix(e.Type, ".delta") {
					deltas++
					if got[len(got)-1] == e.Type {
						continue
					}
				}
				got = append(got, e.Type)
			}
			Expect(deltas).To(BeNumerically(">", 3), "text and arguments stream in pieces")
			Expect(got).To(Equal(append(append([]string{"response.created", "response.in_progress"}, types...), terminal)))
			Expect(events[0].Response.Status).To(BeEquivalentTo("in_progress"))
			Expect(events[0].Response.Output).To(BeEmpty())
			Expect(events[0].Response.JSON.Usage.Raw()).To(Equal("null"))
			last := events[len(events)-1].Response
			items := accumulated(events)
			Expect(last.Output).To(HaveLen(len(items)))
			for i, it := range last.Output {
				Expect(items[i]).To(MatchJSON(it.RawJSON()), "output_item.done carries the item the whole response has")
			}
			Expect(last.Usage.OutputTokens).To(BeNumerically(">", 0))
			Expect(last.Usage.TotalTokens).To(Equal(last.Usage.InputTokens + last.Usage.OutputTokens))
		},
		Entry("text", "hello there, a long enough text to take several events to stream", int64(0), []string{
			"response.output_item.added", "response.content_part.added", "response.output_text.delta", "response.output_text.done", "response.content_part.done", "response.output_item.done"}, "response.completed"),
		Entry("two function calls", "call get_sst get_date", int64(0), []string{
			"response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.done", "response.output_item.done",
			"response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.done", "response.output_item.done"}, "response.completed"),
	)

	It("sends each event with its type as the event name and no [DONE]", func() {
		_, body := responsesStreamer.post(srv, "call get_sst", "")
		events := stream.Parse(body)
		for i, e := range events {
			var v struct {
				Type string `json:"type"`
				Seq  *int   `json:"sequence_number"`
			}
			Expect(json.Unmarshal(e.Data, &v)).To(Succeed(), "event %d: %s", i, e.Data)
			Expect(e.Type).To(Equal(v.Type))
			Expect(v.Seq).To(HaveValue(Equal(i)))
		}
		Expect(events[len(events)-1].Type).To(Equal("response.completed"))
	})

	It("closes an answer cut at max_output_tokens with response.incomplete", func() {
		faulty := startStandin(standin.Options{Policies: []standin.Policy{echo{}}, FaultRate: 1, Faults: []string{standin.FaultTruncated}})
		events := sdkStream(faulty, "hello there", 0)
		last := events[len(events)-1]
		Expect(last.Type).To(Equal("response.incomplete"))
		Expect(last.Response.IncompleteDetails.Reason).To(Equal("max_output_tokens"))
		Expect(accumulated(events)).To(HaveLen(1))
	})

	It("answers the same request unstreamed and streamed with the same response", func() {
		unstreamed := sdkResponse(srv, responses.ResponseNewParams{Input: userInput("call get_sst"), Tools: []responses.ToolUnionParam{sdkSST}})
		events := sdkStream(srv, "call get_sst", 0)
		streamed := events[len(events)-1].Response
		Expect(streamed.Output).To(HaveLen(len(unstreamed.Output)))
		Expect(streamed.Output[0].Name).To(Equal(unstreamed.Output[0].Name))
		Expect(streamed.Output[0].Arguments).To(Equal(unstreamed.Output[0].Arguments))
		Expect(streamed.Usage.RawJSON()).To(MatchJSON(unstreamed.Usage.RawJSON()))
		Expect(streamed.ID).NotTo(Equal(unstreamed.ID), "ids of its own: the request differs by stream: true")
	})
})
