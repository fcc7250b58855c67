package standin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"time"

	asdk "github.com/anthropics/anthropic-sdk-go"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	osdk "github.com/openai/openai-go/v3"
	"google.golang.org/genai"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/anthropic"
	"github.com/agentreplay/testbed/agents/llm/gemini"
	"github.com/agentreplay/testbed/agents/llm/openai"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/standin"
	"github.com/agentreplay/testbed/harness/stream"
)

// streamer is one wire format's adapter, streamed or not, and how to ask
// for its stream by hand.
type streamer struct {
	client func(srv *standin.Server, hc *http.Client, stream bool) llm.Client
	// post sends a streamed request for "call get_sst get_date" or text.
	path, body string
}

var (
	openAIStreamer = streamer{
		client: func(srv *standin.Server, hc *http.Client, on bool) llm.Client {
			return openai.New(srv.URL()+"/v1", "gpt-4.1", "", hc).Streaming(on)
		},
		path: "/v1/chat/completions",
		body: `{"model":"gpt-4.1","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"system","content":"` + echoPrompt + `"},{"role":"user","content":"%s"}],` +
			`"tools":[{"type":"function","function":{"name":"get_sst","parameters":{"type":"object"}}},{"type":"function","function":{"name":"get_date","parameters":{"type":"object"}}}]}`,
	}
	geminiStreamer = streamer{
		client: func(srv *standin.Server, hc *http.Client, on bool) llm.Client {
			c, err := gemini.New(context.Background(), srv.URL(), "gemini-2.5-flash", "test-key", hc)
			Expect(err).NotTo(HaveOccurred())
			return c.Streaming(on)
		},
		path: "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
		body: `{"systemInstruction":{"parts":[{"text":"` + echoPrompt + `"}]},"contents":[{"role":"user","parts":[{"text":"%s"}]}],` +
			`"tools":[{"functionDeclarations":[{"name":"get_sst"},{"name":"get_date"}]}]}`,
	}
	anthropicStreamer = streamer{
		client: func(srv *standin.Server, hc *http.Client, on bool) llm.Client {
			c, err := anthropic.New(srv.URL(), claude, "sk-ant-test", hc)
			Expect(err).NotTo(HaveOccurred())
			return c.Streaming(on)
		},
		path: "/v1/messages",
		body: `{"model":"` + claude + `","max_tokens":256,"stream":true,"system":"` + echoPrompt + `","messages":[{"role":"user","content":"%s"}],` +
			`"tools":[{"name":"get_sst","input_schema":{"type":"object"}},{"name":"get_date","input_schema":{"type":"object"}}]}`,
	}
)

// eachStreamer is an entry per wire format, with args after it.
func eachStreamer(args ...any) []TableEntry {
	return []TableEntry{
		Entry("OpenAI", append([]any{openAIStreamer}, args...)...),
		Entry("Gemini", append([]any{geminiStreamer}, args...)...),
		Entry("Anthropic", append([]any{anthropicStreamer}, args...)...),
		Entry("OpenAI Responses", append([]any{responsesStreamer}, args...)...),
	}
}

// post sends a streamed request with the user's text and returns the
// response, its body read.
func (f streamer) post(srv *standin.Server, user, fault string) (*http.Response, string) {
	GinkgoHelper()
	req, err := http.NewRequest(http.MethodPost, srv.URL()+f.path, strings.NewReader(strings.Replace(f.body, "%s", user, 1)))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	if fault != "" {
		req.Header.Set(cassette.FaultHeader, fault)
	}
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", b)
	return resp, string(b)
}

// withoutIDs blanks tool-call ids: Anthropic's derive from the request's
// bytes, and a streamed request has stream: true in them.
func withoutIDs(r llm.Response) llm.Response {
	r.ID = "" // each answer has an id of its own
	r.Message.ToolCalls = append([]llm.ToolCall(nil), r.Message.ToolCalls...)
	for i := range r.Message.ToolCalls {
		r.Message.ToolCalls[i].ID = ""
	}
	return r
}

var _ = Describe("streaming", func() {
	var srv *standin.Server

	BeforeEach(func() {
		srv = startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
	})

	DescribeTable("gives through the streamed adapter the Response of the unstreamed call",
		func(f streamer, user string) {
			req := echoRequest(llm.Message{Role: llm.RoleUser, Content: user})
			req.Tools = sstTools()
			whole := chat(f.client(srv, http.DefaultClient, false), req)
			streamed := chat(f.client(srv, http.DefaultClient, true), req)
			Expect(withoutIDs(streamed)).To(Equal(withoutIDs(whole)))
			Expect(streamed.Usage.OutputTokens).To(BeNumerically(">", 0), "usage from the final event")
		},
		eachStreamer("hello there, a long enough text to take several events to stream"),
		eachStreamer("call get_sst"),
		eachStreamer("call get_sst get_date"),
	)

	DescribeTable("times every event: the first token at Latency.FirstToken, the next ones as tokens are generated, the last at the unstreamed call's latency",
		func(f streamer) {
			lat := standin.Latency{Fixed: 100 * time.Millisecond, PerOutputToken: 10 * time.Millisecond}
			srv := startStandin(standin.Options{Policies: []standin.Policy{echo{}}, Latency: lat})
			resp, body := f.post(srv, "hello there, a long enough text to take several events to stream", "")
			Expect(stream.Is(resp.Header)).To(BeTrue())
			events, offsets := stream.Parse(body), stream.Offsets(resp.Header)
			Expect(offsets).To(HaveLen(len(events)))
			Expect(len(events)).To(BeNumerically(">", 4))
			t := stream.Measure(events, offsets)
			Expect(t.TokenEvents).To(BeNumerically(">", 2))
			Expect(t.FirstToken).To(Equal(lat.Fixed))
			Expect(t.GapMean).To(BeNumerically(">", 0))
			out := (t.Duration - t.FirstToken) / lat.PerOutputToken
			Expect(out*lat.PerOutputToken).To(Equal(t.Duration-t.FirstToken), "the whole answer's tokens, 10 ms each")
			Expect(out).To(BeNumerically(">", t.TokenEvents))
			Expect(resp.Header.Get(cassette.LatencyHeader)).To(Equal(t.Duration.String()))
			for i := 1; i < len(offsets); i++ {
				Expect(offsets[i]).To(BeNumerically(">=", offsets[i-1]))
			}
		},
		eachStreamer(),
	)

	DescribeTable("times a stream with the model's thinking as the same answer without it: every event at or after the one before, the last at the unstreamed call's latency",
		func(f streamer, thinking string) {
			lat := standin.Latency{Fixed: 100 * time.Millisecond, PerOutputToken: 10 * time.Millisecond}
			srv := startStandin(standin.Options{Policies: []standin.Policy{echo{}}, Latency: lat})
			for _, user := range []string{"hello there, a long enough text to take several events to stream", "call get_sst"} {
				thinks := f
				thinks.body = strings.Replace(f.body, "{", "{"+thinking+",", 1)
				resp, body := thinks.post(srv, user, "")
				plain, _ := f.post(srv, user, "")
				offsets := stream.Offsets(resp.Header)
				Expect(offsets).To(HaveLen(len(stream.Parse(body))))
				Expect(body).To(Or(ContainSubstring("thinking_delta"), ContainSubstring(`"thought":true`)), "it thought")
				for i := 1; i < len(offsets); i++ {
					Expect(offsets[i]).To(BeNumerically(">=", offsets[i-1]), "event %d of %v", i, offsets)
				}
				Expect(resp.Header.Get(cassette.LatencyHeader)).To(Equal(plain.Header.Get(cassette.LatencyHeader)))
				Expect(offsets[len(offsets)-1].String()).To(Equal(resp.Header.Get(cassette.LatencyHeader)))
			}
		},
		Entry("Anthropic", anthropicStreamer, `"thinking":{"type":"enabled","budget_tokens":1024}`),
		Entry("Gemini", geminiStreamer, `"generationConfig":{"thinkingConfig":{"includeThoughts":true}}`),
	)

	DescribeTable("says the role in the first OpenAI chunk: with empty content before text, with content null in the first call of an answer that only calls tools, as recorded streams do",
		func(user string, want string) {
			_, body := openAIStreamer.post(srv, user, "")
			var first struct {
				Choices []struct {
					Delta json.RawMessage `json:"delta"`
				} `json:"choices"`
			}
			Expect(json.Unmarshal(stream.Parse(body)[0].Data, &first)).To(Succeed())
			Expect(first.Choices).To(HaveLen(1))
			delta := regexp.MustCompile(`"call_[0-9a-f]+"`).ReplaceAll(first.Choices[0].Delta, []byte(`"call_ID"`))
			Expect(delta).To(MatchJSON(want))
		},
		Entry("text", "hello there", `{"role": "assistant", "content": "", "refusal": null}`),
		Entry("only a call", "call get_sst", `{"role": "assistant", "content": null, "refusal": null,
			"tool_calls": [{"index": 0, "id": "call_ID", "type": "function", "function": {"name": "get_sst", "arguments": ""}}]}`),
	)

	It("writes OpenAI chunks the SDK reads with no unknown or missing field, usage only when asked, and [DONE]", func() {
		for _, includeUsage := range []bool{true, false} {
			s := openAIStreamer
			if !includeUsage {
				s.body = strings.Replace(s.body, `"stream_options":{"include_usage":true},`, "", 1)
			}
			_, body := s.post(srv, "call get_sst get_date", "")
			events := stream.Parse(body)
			Expect(string(events[len(events)-1].Data)).To(Equal("[DONE]\n"))
			var acc osdk.ChatCompletionAccumulator
			usage := 0
			for i, e := range events[:len(events)-1] {
				var chunk osdk.ChatCompletionChunk
				Expect(json.Unmarshal(e.Data, &chunk)).To(Succeed())
				Expect(sdkShapeProblems(reflect.ValueOf(chunk), "chunk")).To(BeEmpty(), "event %d: %s", i, e.Data)
				Expect(acc.AddChunk(chunk)).To(BeTrue())
				if chunk.JSON.Usage.Valid() {
					usage++
					Expect(chunk.Choices).To(BeEmpty())
				}
				Expect(chunk.JSON.Usage.Raw() == "null").To(Equal(includeUsage && !chunk.JSON.Usage.Valid()), "usage: null on the other chunks when asked")
			}
			Expect(usage).To(Equal(map[bool]int{true: 1, false: 0}[includeUsage]))
			calls := acc.Choices[0].Message.ToolCalls
			Expect(calls).To(HaveLen(2))
			Expect(calls[1].Function.Arguments).To(MatchJSON(`{"lon":121.5,"lat":25,"n":2}`))
			Expect(acc.Choices[0].FinishReason).To(Equal("tool_calls"))
		}
	})

	It("writes Anthropic events the SDK reads with no unknown or missing field, tool input in input_json_delta, and a ping", func() {
		_, body := anthropicStreamer.post(srv, "call get_sst get_date", "")
		var msg asdk.Message
		var types []string
		for i, e := range stream.Parse(body) {
			if e.Type == "ping" {
				Expect(string(e.Data)).To(MatchJSON(`{"type":"ping"}`)) // the SDK's stream drops it
				types = append(types, e.Type)
				continue
			}
			var ev asdk.MessageStreamEventUnion
			Expect(json.Unmarshal(e.Data, &ev)).To(Succeed())
			Expect(e.Type).To(Equal(ev.Type), "the event: field names the type")
			Expect(sdkShapeProblems(reflect.ValueOf(ev), "event", anthropicOmits...)).To(BeEmpty(), "event %d: %s", i, e.Data)
			Expect(msg.Accumulate(ev)).To(Succeed())
			switch ev.Type { // the fields of a recorded stream's events, no more
			case "content_block_start":
				Expect(keyPaths(string(e.Data), "input")).To(Equal(keyPaths(`{"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_01", "name": "get_tides", "input": {}, "caller": {"type": "direct"}}}`)))
			case "message_delta":
				Expect(keyPaths(string(e.Data))).To(ContainElements("delta.stop_reason", "delta.stop_sequence", "delta.stop_details", "usage.output_tokens"))
				Expect(keyPaths(string(e.Data))).NotTo(ContainElement("delta.container"))
			}
			types = append(types, ev.Type)
			if ev.Type == "content_block_delta" {
				Expect(ev.Delta.Type).To(Equal("input_json_delta"))
			}
		}
		Expect(types[:4]).To(Equal([]string{"message_start", "content_block_start", "ping", "content_block_delta"}))
		Expect(types[len(types)-2:]).To(Equal([]string{"message_delta", "message_stop"}))
		Expect(msg.Content).To(HaveLen(2))
		Expect(string(msg.Content[1].Input)).To(MatchJSON(`{"lon":121.5,"lat":25,"n":2}`))
		Expect(msg.StopReason).To(Equal(asdk.StopReasonToolUse))
		Expect(msg.Usage.OutputTokens).To(BeNumerically(">", 1))
	})

	It("opens an Anthropic text block with the fields a recorded stream's has, no citations: null", func() {
		_, body := anthropicStreamer.post(srv, "hello", "")
		var starts []string
		for _, e := range stream.Parse(body) {
			if e.Type == "content_block_start" {
				starts = append(starts, string(e.Data))
			}
		}
		Expect(starts).To(HaveLen(1))
		Expect(starts[0]).To(MatchJSON(`{"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}`))
	})

	It("writes Gemini chunks that decode strictly into the SDK's GenerateContentResponse, a function call whole, each with the usage so far", func() {
		_, body := geminiStreamer.post(srv, "call get_sst get_date", "")
		events := stream.Parse(body)
		Expect(events).To(HaveLen(3))
		candidates := 0
		for i, e := range events {
			Expect(e.Type).To(BeEmpty())
			Expect(strictGemini(e.Data)).To(Succeed(), "event %d: %s", i, e.Data)
			last := i == len(events)-1
			Expect(geminiMissing(e.Data, last)).To(BeEmpty(), "event %d: %s", i, e.Data)
			var chunk genai.GenerateContentResponse
			Expect(json.Unmarshal(e.Data, &chunk)).To(Succeed())
			Expect(chunk.ResponseID).To(Equal(gjson(events[0].Data, "responseId")), "one id for the stream's chunks")
			Expect(chunk.Candidates[0].FinishReason != "").To(Equal(last))
			Expect(chunk.UsageMetadata).NotTo(BeNil(), "every chunk has the usage so far, as recorded streams do")
			Expect(chunk.UsageMetadata.PromptTokenCount).To(Equal(gjsonInt(events[len(events)-1].Data, "usageMetadata.promptTokenCount")))
			Expect(int(chunk.UsageMetadata.CandidatesTokenCount)).To(BeNumerically(">=", candidates), "the candidates' count only grows")
			candidates = int(chunk.UsageMetadata.CandidatesTokenCount)
			Expect(chunk.UsageMetadata.TotalTokenCount).To(Equal(chunk.UsageMetadata.PromptTokenCount + chunk.UsageMetadata.CandidatesTokenCount))
		}
		Expect(candidates).To(BeNumerically(">", 0))
	})

	It("answers Gemini's stream asked without alt=sse as one JSON array of the same chunks, as Gemini does (Google's REST clients read it)", func() {
		body := fmt.Sprintf(geminiStreamer.body, "call get_sst get_date")
		_, sse := wirePost(srv, http.MethodPost, geminiStreamer.path, body)
		resp, array := wirePost(srv, http.MethodPost, strings.TrimSuffix(geminiStreamer.path, "?alt=sse")+"?$alt=json;enum-encoding=int", body)
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", array)
		Expect(resp.Header.Get("Content-Type")).To(Equal("application/json"))
		var chunks []json.RawMessage
		Expect(json.Unmarshal(array, &chunks)).To(Succeed(), "body %s", array)
		events := stream.Parse(string(sse))
		Expect(chunks).To(HaveLen(len(events)))
		for i, e := range events {
			Expect(chunks[i]).To(MatchJSON(e.Data))
		}
	})

	Describe("faults", func() {
		DescribeTable("are errors the agent sees through the streamed adapter, never a partial success",
			func(f streamer, fault string, want any) {
				faulty := startStandin(standin.Options{Policies: []standin.Policy{echo{}}, FaultRate: 1, Faults: []string{fault}})
				_, err := f.client(faulty, http.DefaultClient, true).Chat(context.Background(),
					echoRequest(llm.Message{Role: llm.RoleUser, Content: "hello there, a long enough text to take several events to stream"}))
				switch w := want.(type) {
				case error:
					Expect(errors.Is(err, w)).To(BeTrue(), "got %v", err)
				case string:
					Expect(err).To(MatchError(ContainSubstring(w)))
				}
			},
			Entry("OpenAI, cut", openAIStreamer, standin.FaultStreamCut, openai.ErrStreamEnded),
			Entry("OpenAI, no [DONE]", openAIStreamer, standin.FaultStreamNoDone, openai.ErrStreamEnded),
			Entry("OpenAI, malformed", openAIStreamer, standin.FaultStreamMalformed, "stream chunk"),
			Entry("OpenAI, the malformed fault on a streamed call: a malformed event", openAIStreamer, standin.FaultMalformed, "stream chunk"),
			Entry("Anthropic, the malformed fault on a streamed call: a malformed event", anthropicStreamer, standin.FaultMalformed, "stream event"),
			Entry("Gemini, cut", geminiStreamer, standin.FaultStreamCut, gemini.ErrStreamEnded),
			Entry("Gemini, malformed", geminiStreamer, standin.FaultStreamMalformed, "stream chunk"),
			Entry("Anthropic, cut", anthropicStreamer, standin.FaultStreamCut, anthropic.ErrStreamEnded),
			Entry("Anthropic, no message_stop", anthropicStreamer, standin.FaultStreamNoDone, anthropic.ErrStreamEnded),
			Entry("Anthropic, malformed", anthropicStreamer, standin.FaultStreamMalformed, "stream event"),
			Entry("OpenAI Responses, cut", responsesStreamer, standin.FaultStreamCut, io.ErrUnexpectedEOF),
			Entry("OpenAI Responses, no response.completed", responsesStreamer, standin.FaultStreamNoDone, io.ErrUnexpectedEOF),
			Entry("OpenAI Responses, malformed", responsesStreamer, standin.FaultStreamMalformed, "responses stream event"),
		)

		DescribeTable("shape the stream as documented and say so in FaultHeader",
			func(f streamer, fault string, check func(whole, faulty []stream.Event)) {
				_, whole := f.post(srv, "hello there, a long enough text to take several events to stream", "")
				resp, body := f.post(srv, "hello there, a long enough text to take several events to stream", fault)
				Expect(resp.Header.Get(cassette.FaultHeader)).To(Equal(fault))
				Expect(stream.Offsets(resp.Header)).To(HaveLen(len(stream.Parse(body))))
				check(stream.Parse(whole), stream.Parse(body))
			},
			Entry("OpenAI, cut: half the content, no finish, usage or [DONE]", openAIStreamer, standin.FaultStreamCut, func(whole, faulty []stream.Event) {
				Expect(len(faulty)).To(BeNumerically("<", len(whole)/2+1))
				for _, e := range faulty {
					Expect(string(e.Data)).NotTo(Or(ContainSubstring("finish_reason\":\"stop"), ContainSubstring("[DONE]"), ContainSubstring("prompt_tokens")))
				}
			}),
			Entry("OpenAI, no [DONE]: all but the last", openAIStreamer, standin.FaultStreamNoDone, func(whole, faulty []stream.Event) {
				Expect(faulty).To(Equal(whole[:len(whole)-1]))
			}),
			Entry("Anthropic, no message_stop: all but the last", anthropicStreamer, standin.FaultStreamNoDone, func(whole, faulty []stream.Event) {
				Expect(faulty).To(Equal(whole[:len(whole)-1]))
			}),
			Entry("OpenAI Responses, no response.completed: all but the last", responsesStreamer, standin.FaultStreamNoDone, func(whole, faulty []stream.Event) {
				Expect(faulty).To(Equal(whole[:len(whole)-1]))
			}),
			Entry("Gemini, malformed: one event is not JSON, the rest as they were", geminiStreamer, standin.FaultStreamMalformed, func(whole, faulty []stream.Event) {
				Expect(faulty).To(HaveLen(len(whole)))
				bad := 0
				for i := range faulty {
					if !json.Valid(faulty[i].Data) {
						bad++
						continue
					}
					Expect(faulty[i]).To(Equal(whole[i]))
				}
				Expect(bad).To(Equal(1))
			}),
		)

		It("answers stream_no_done on Gemini, whose stream has no closing event, normally and says no fault", func() {
			_, whole := geminiStreamer.post(srv, "hello there", "")
			resp, body := geminiStreamer.post(srv, "hello there", standin.FaultStreamNoDone)
			Expect(body).To(Equal(whole))
			Expect(resp.Header.Get(cassette.FaultHeader)).To(BeEmpty())
		})

		DescribeTable("slow_first_token moves the first token, and every event after it, by SlowFirstToken",
			func(f streamer) {
				resp, body := f.post(srv, "hello there", "")
				slow, slowBody := f.post(srv, "hello there", standin.FaultSlowFirstToken)
				Expect(slowBody).To(Equal(body))
				a, b := stream.Offsets(resp.Header), stream.Offsets(slow.Header)
				Expect(b).To(HaveLen(len(a)))
				for i := range a {
					Expect(b[i] - a[i]).To(Equal(standin.SlowFirstToken))
				}
			},
			eachStreamer(),
		)
	})

	It("varies a sample's offsets by one factor, as it varies latency", func() {
		req := func(sample string) []time.Duration {
			r, err := http.NewRequest(http.MethodPost, srv.URL()+openAIStreamer.path, strings.NewReader(strings.Replace(openAIStreamer.body, "%s", "hello there, a long enough text", 1)))
			Expect(err).NotTo(HaveOccurred())
			r.Header.Set(standin.SampleHeader, sample)
			resp, err := http.DefaultClient.Do(r)
			Expect(err).NotTo(HaveOccurred())
			resp.Body.Close()
			return stream.Offsets(resp.Header)
		}
		one, two := req("1"), req("2")
		Expect(two).To(HaveLen(len(one)))
		Expect(two).NotTo(Equal(one))
		f := float64(two[len(two)-1]) / float64(one[len(one)-1])
		Expect(float64(two[0]) / float64(one[0])).To(BeNumerically("~", f, 0.01))
		Expect(req("2")).To(Equal(two), "deterministic")
	})
})

// geminiMissing lists what data, a generateContent response or one chunk
// of a stream (the last when last), lacks of what Gemini's reference says
// every response carries: the response id and model version, each
// candidate's content with its role and parts and its index, and in a
// whole response or a stream's last chunk the finish reason and the usage
// with its prompt token details. The SDK's types mark nothing required,
// so the list is the reference's.
func geminiMissing(data []byte, last bool) []string {
	var v struct {
		ResponseID   *string `json:"responseId"`
		ModelVersion *string `json:"modelVersion"`
		Candidates   []struct {
			Content *struct {
				Role  *string           `json:"role"`
				Parts []json.RawMessage `json:"parts"`
			} `json:"content"`
			Index        *int    `json:"index"`
			FinishReason *string `json:"finishReason"`
		} `json:"candidates"`
		UsageMetadata *struct {
			PromptTokenCount     *int              `json:"promptTokenCount"`
			CandidatesTokenCount *int              `json:"candidatesTokenCount"`
			TotalTokenCount      *int              `json:"totalTokenCount"`
			PromptTokensDetails  []json.RawMessage `json:"promptTokensDetails"`
		} `json:"usageMetadata"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return []string{err.Error()}
	}
	var out []string
	need := func(ok bool, field string) {
		if !ok {
			out = append(out, field)
		}
	}
	need(v.ResponseID != nil && *v.ResponseID != "", "responseId")
	need(v.ModelVersion != nil && *v.ModelVersion != "", "modelVersion")
	need(len(v.Candidates) > 0, "candidates")
	for i, c := range v.Candidates {
		at := fmt.Sprintf("candidates[%d].", i)
		need(c.Content != nil && c.Content.Role != nil, at+"content.role")
		need(c.Content != nil && len(c.Content.Parts) > 0, at+"content.parts")
		need(c.Index != nil, at+"index")
		need(!last || c.FinishReason != nil, at+"finishReason")
	}
	u := v.UsageMetadata // on every chunk, as recorded streams have it
	need(u != nil && u.PromptTokenCount != nil && (u.CandidatesTokenCount != nil || !last) && u.TotalTokenCount != nil, "usageMetadata token counts")
	need(u != nil && len(u.PromptTokensDetails) > 0, "usageMetadata.promptTokensDetails")
	return out
}

// gjsonInt is the number at the dotted path in the JSON object data.
func gjsonInt(data []byte, path string) int32 {
	var v any
	Expect(json.Unmarshal(data, &v)).To(Succeed())
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		Expect(ok).To(BeTrue(), "%s in %s", path, data)
		v = m[k]
	}
	n, ok := v.(float64)
	Expect(ok).To(BeTrue(), "%s in %s", path, data)
	return int32(n)
}

// gjson is the string at key in the JSON object data.
func gjson(data []byte, key string) string {
	var v map[string]any
	Expect(json.Unmarshal(data, &v)).To(Succeed())
	s, _ := v[key].(string)
	return s
}

// strictGemini decodes data refusing fields the SDK's types lack (genai
// reads with encoding/json, so a shadow type without its UnmarshalJSON
// takes DisallowUnknownFields down the tree).
func strictGemini(data []byte) error {
	type candidate struct {
		Content      *genai.Content     `json:"content"`
		FinishReason genai.FinishReason `json:"finishReason"`
		Index        int32              `json:"index"`
	}
	var v struct {
		Candidates    []candidate                                 `json:"candidates"`
		UsageMetadata *genai.GenerateContentResponseUsageMetadata `json:"usageMetadata"`
		ModelVersion  string                                      `json:"modelVersion"`
		ResponseID    string                                      `json:"responseId"`
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	return d.Decode(&v)
}
