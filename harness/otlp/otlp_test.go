package otlp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.opentelemetry.io/collector/pdata/ptrace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/otlp"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

var clock = time.Date(2025, 11, 6, 2, 0, 0, 0, time.UTC)

// fixture is a report with one passing and one failing run of an agent that
// calls a model, a tool, and the model again.
func fixture() *report.Report {
	events := []trace.Event{
		{Kind: trace.KindHTTP, Turn: 1, At: 0, HTTP: &trace.Exchange{Method: "POST", URL: "http://llm.test/v1/chat/completions", Status: 200, Duration: 800 * time.Millisecond}},
		{Kind: trace.KindLLM, Turn: 1, At: 0, LLM: &trace.LLMCall{Role: "router", Model: "gemma3:4b", Duration: 800 * time.Millisecond,
			Input: trace.Parts{System: 100, User: 20}, Output: 12,
			Reported:      &trace.Usage{Input: 130, Output: 15, CacheRead: 64, Reasoning: 5},
			ResponseModel: "gemma3:4b-it-qat", ResponseID: "chatcmpl-9a", FinishReason: "tool_calls", RawFinishReason: "tool_calls",
			Cost:      &trace.Cost{USD: 0.00125, From: trace.CostFromReported, Model: "gpt-4.1"},
			Stream:    &trace.Stream{FirstToken: 250 * time.Millisecond, FirstEvent: 200 * time.Millisecond, Duration: 800 * time.Millisecond},
			Params:    &trace.Params{Temperature: new(float64), MaxTokens: 256, Output: llm.OutputJSON},
			ToolCalls: []trace.Call{{ID: "call_1", Name: "sst.mean", Arguments: json.RawMessage(`{"region":"taiwan"}`)}}}},
		{Kind: trace.KindHTTP, Turn: 1, At: 800 * time.Millisecond, HTTP: &trace.Exchange{Method: "GET", URL: "http://erddap.test/griddap/sst.json", Status: 200, Duration: 300 * time.Millisecond}},
		{Kind: trace.KindTool, Turn: 1, At: 1100 * time.Millisecond, Tool: &trace.ToolCall{CallID: "call_1", Name: "sst.mean", Args: json.RawMessage(`{"region":"taiwan"}`), RawBytes: 4000, RawTokens: 1000, ContextTokens: 50}},
		{Kind: trace.KindLLM, Turn: 1, At: 1100 * time.Millisecond, LLM: &trace.LLMCall{Role: "answer", Model: "gemma3:4b", Duration: 500 * time.Millisecond,
			Input: trace.Parts{System: 100, ToolResults: 50}, Output: 30, Text: "The mean SST is 27.1 °C."}},
		{Kind: trace.KindNote, Turn: 1, At: 1600 * time.Millisecond, Note: &trace.Note{Key: "chart", Value: map[string]any{"kind": "line"}}},
	}
	return &report.Report{SchemaVersion: report.SchemaVersion, Mode: "replay", Suites: []report.Suite{{
		Name: "odbchat", Agent: "odbchat",
		Variants: []report.Variant{{Name: "single-pass", Provider: "openai", Scenarios: []report.Scenario{
			{ID: "ac1", Verdict: report.VerdictPass, Events: events, Checks: []report.Check{{Turn: 1, Name: "tool", Pass: true}}},
			{ID: "ac2", Verdict: report.VerdictFail, Events: events[:2], Checks: []report.Check{{Turn: 1, Name: "answer_contains", Pass: false, Detail: "want 27.1"}}},
		}}},
	}}}
}

// span is a decoded span with its attributes as strings.
type span struct {
	*tracepb.Span
	attrs map[string]string
}

func flatten(reqs []*collectortrace.ExportTraceServiceRequest) []span {
	var out []span
	for _, req := range reqs {
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					out = append(out, span{Span: s, attrs: attrs(s.Attributes)})
				}
			}
		}
	}
	return out
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		switch v := kv.Value.Value.(type) {
		case *commonpb.AnyValue_StringValue:
			m[kv.Key] = v.StringValue
		default:
			b, _ := protojson.Marshal(kv.Value)
			m[kv.Key] = string(b)
		}
	}
	return m
}

func readLines(b []byte) []*collectortrace.ExportTraceServiceRequest {
	var out []*collectortrace.ExportTraceServiceRequest
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(sc.Bytes())
		Expect(err).NotTo(HaveOccurred())
		pb, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
		Expect(err).NotTo(HaveOccurred())
		req := &collectortrace.ExportTraceServiceRequest{}
		Expect(proto.Unmarshal(pb, req)).To(Succeed())
		out = append(out, req)
	}
	return out
}

func named(spans []span, name string) span {
	for _, s := range spans {
		if s.Name == name {
			return s
		}
	}
	Fail("no span " + name)
	return span{}
}

func at(d time.Duration) uint64 { return uint64(clock.Add(d).UnixNano()) }

var opts = otlp.Options{Start: map[string]time.Time{"odbchat": clock}}

var _ = Describe("WriteJSON", func() {
	var out []byte
	BeforeEach(func() {
		var b bytes.Buffer
		Expect(otlp.WriteJSON(context.Background(), &b, fixture(), opts)).To(Succeed())
		out = b.Bytes()
	})

	It("writes the same bytes every time", func() {
		var again bytes.Buffer
		Expect(otlp.WriteJSON(context.Background(), &again, fixture(), opts)).To(Succeed())
		Expect(again.String()).To(Equal(string(out)))
	})

	It("writes OTLP/JSON: lowercase hex ids, integer enums, 64-bit integers as strings", func() {
		line, _, _ := bytes.Cut(out, []byte("\n"))
		var req struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []struct {
						TraceID           string `json:"traceId"`
						SpanID            string `json:"spanId"`
						ParentSpanID      string `json:"parentSpanId"`
						Kind              any    `json:"kind"`
						StartTimeUnixNano any    `json:"startTimeUnixNano"`
						Status            struct {
							Code any `json:"code"`
						} `json:"status"`
					} `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		Expect(json.Unmarshal(line, &req)).To(Succeed())
		spans := req.ResourceSpans[0].ScopeSpans[0].Spans
		Expect(spans).To(HaveLen(6))
		want := otlp.TraceID("odbchat", "single-pass", "ac1", 1)
		for _, s := range spans {
			Expect(s.TraceID).To(Equal(want.String()))
			Expect(s.SpanID).To(MatchRegexp(`^[0-9a-f]{16}$`))
			Expect(s.ParentSpanID).To(MatchRegexp(`^([0-9a-f]{16})?$`))
			Expect(s.Kind).To(BeNumerically(">=", 1), "span kinds are integers, not names")
			Expect(s.StartTimeUnixNano).To(BeAssignableToTypeOf(""), "fixed64 is a decimal string")
		}
		Expect(string(line)).NotTo(ContainSubstring("SPAN_KIND_"))
	})

	It("names the answering model and the neutral finish reason, with the provider's own beside it", func() {
		c := named(flatten(readLines(out)[:1]), "chat gemma3:4b")
		Expect(c.attrs).To(HaveKeyWithValue("gen_ai.response.model", "gemma3:4b-it-qat"))
		Expect(c.attrs).To(HaveKeyWithValue("gen_ai.response.finish_reasons", `{"arrayValue":{"values":[{"stringValue":"tool_calls"}]}}`))
		Expect(c.attrs).To(HaveKeyWithValue("testbed.response.raw_finish_reason", "tool_calls"))
	})

	It("writes one export request per scenario run, each one trace with the derived id", func() {
		reqs := readLines(out)
		Expect(reqs).To(HaveLen(2))
		first := flatten(reqs[:1])
		Expect(first).To(HaveLen(6))
		want := otlp.TraceID("odbchat", "single-pass", "ac1", 1)
		for _, s := range first {
			Expect(hex.EncodeToString(s.TraceId)).To(Equal(want.String()))
		}
		Expect(flatten(reqs[1:])[0].TraceId).NotTo(Equal(first[0].TraceId))
		Expect(attrs(reqs[0].ResourceSpans[0].Resource.Attributes)).To(HaveKeyWithValue("service.name", "testbed"))
	})

	It("follows the GenAI conventions on the virtual clock, with parent links", func() {
		spans := flatten(readLines(out)[:1])
		agent := named(spans, "invoke_agent odbchat")
		Expect(agent.ParentSpanId).To(BeEmpty())
		Expect(agent.attrs).To(HaveKeyWithValue("gen_ai.operation.name", "invoke_agent"))
		Expect(agent.attrs).To(HaveKeyWithValue("gen_ai.agent.name", "odbchat"))
		Expect(agent.attrs).To(HaveKeyWithValue("testbed.suite", "odbchat"))
		Expect(agent.attrs).To(HaveKeyWithValue("testbed.variant", "single-pass"))
		Expect(agent.attrs).To(HaveKeyWithValue("testbed.scenario", "ac1"))
		Expect(agent.attrs).To(HaveKeyWithValue("testbed.sample", `{"intValue":"1"}`))
		Expect(agent.StartTimeUnixNano).To(Equal(at(0)))
		Expect(agent.EndTimeUnixNano).To(Equal(at(1600 * time.Millisecond)))

		chats := []span{}
		for _, s := range spans {
			if s.attrs["gen_ai.operation.name"] == "chat" {
				chats = append(chats, s)
			}
		}
		Expect(chats).To(HaveLen(2))
		c := chats[0]
		Expect(c.Name).To(Equal("chat gemma3:4b"))
		Expect(c.Kind).To(Equal(tracepb.Span_SPAN_KIND_CLIENT))
		Expect(c.ParentSpanId).To(Equal(agent.SpanId))
		Expect(c.attrs).To(HaveKeyWithValue("gen_ai.provider.name", "openai"))
		Expect(c.attrs).To(HaveKeyWithValue("gen_ai.request.model", "gemma3:4b"))
		Expect(c.attrs).To(HaveKeyWithValue("gen_ai.usage.input_tokens", `{"intValue":"130"}`))
		Expect(c.attrs).To(HaveKeyWithValue("gen_ai.usage.output_tokens", `{"intValue":"15"}`))
		Expect(c.attrs).To(HaveKeyWithValue("gen_ai.usage.cache_read.input_tokens", `{"intValue":"64"}`))
		Expect(c.attrs).To(HaveKeyWithValue("testbed.usage.reasoning_tokens", `{"intValue":"5"}`))
		Expect(c.attrs).To(HaveKeyWithValue("testbed.stream.time_to_first_token", `{"doubleValue":0.25}`))
		Expect(c.attrs).To(HaveKeyWithValue("testbed.cost.usd", `{"doubleValue":0.00125}`))
		Expect(c.attrs).To(HaveKeyWithValue("testbed.cost.from", "reported"))
		Expect(c.attrs).NotTo(HaveKey("testbed.cost.unpriced"))
		Expect(c.StartTimeUnixNano).To(Equal(at(0)))
		Expect(c.EndTimeUnixNano).To(Equal(at(800 * time.Millisecond)))
		// Counted tokens stand in when the provider reported none.
		Expect(chats[1].attrs).To(HaveKeyWithValue("gen_ai.usage.input_tokens", `{"intValue":"150"}`))
		Expect(chats[1].attrs).NotTo(HaveKey("testbed.stream.time_to_first_token"))
		Expect(chats[1].attrs).To(HaveKeyWithValue("testbed.cost.unpriced", `{"boolValue":true}`), "an unpriced call carries no $0")
		Expect(chats[1].attrs).NotTo(HaveKey("testbed.cost.usd"))

		post := named(spans, "POST")
		Expect(post.ParentSpanId).To(Equal(c.SpanId), "the model call's exchange nests under its chat span")
		Expect(post.attrs).To(HaveKeyWithValue("http.request.method", "POST"))
		Expect(post.attrs).To(HaveKeyWithValue("url.full", "http://llm.test/v1/chat/completions"))
		Expect(post.attrs).To(HaveKeyWithValue("http.response.status_code", `{"intValue":"200"}`))
		get := named(spans, "GET")
		Expect(get.ParentSpanId).To(Equal(agent.SpanId))
		Expect(get.StartTimeUnixNano).To(Equal(at(800 * time.Millisecond)))
		Expect(get.EndTimeUnixNano).To(Equal(at(1100 * time.Millisecond)))

		tool := named(spans, "execute_tool sst.mean")
		Expect(tool.ParentSpanId).To(Equal(agent.SpanId))
		Expect(tool.attrs).To(HaveKeyWithValue("gen_ai.operation.name", "execute_tool"))
		Expect(tool.attrs).To(HaveKeyWithValue("gen_ai.tool.name", "sst.mean"))
		Expect(tool.attrs).To(HaveKeyWithValue("testbed.tool.raw_tokens", `{"intValue":"1000"}`))
		Expect(tool.attrs).To(HaveKeyWithValue("testbed.tool.context_tokens", `{"intValue":"50"}`))
		Expect(tool.StartTimeUnixNano).To(Equal(at(1100 * time.Millisecond)))
	})

	It("states the verdict as an evaluation event with the failed checks", func() {
		reqs := readLines(out)
		pass := named(flatten(reqs[:1]), "invoke_agent odbchat")
		fail := named(flatten(reqs[1:]), "invoke_agent odbchat")
		eval := func(s span) map[string]string {
			for _, e := range s.Events {
				if e.Name == "gen_ai.evaluation.result" {
					return attrs(e.Attributes)
				}
			}
			Fail("no evaluation event")
			return nil
		}
		Expect(eval(pass)).To(HaveKeyWithValue("gen_ai.evaluation.score.label", "pass"))
		Expect(pass.Status.GetCode()).To(Equal(tracepb.Status_STATUS_CODE_UNSET))
		Expect(eval(fail)).To(HaveKeyWithValue("gen_ai.evaluation.score.label", "fail"))
		Expect(eval(fail)).To(HaveKeyWithValue("gen_ai.evaluation.explanation", "turn 2 answer_contains: want 27.1"))
		Expect(fail.Status.GetCode()).To(Equal(tracepb.Status_STATUS_CODE_ERROR))
	})

	It("starts a suite without a clock at DefaultStart", func() {
		var b bytes.Buffer
		Expect(otlp.WriteJSON(context.Background(), &b, fixture(), otlp.Options{})).To(Succeed())
		agent := named(flatten(readLines(b.Bytes())[:1]), "invoke_agent odbchat")
		Expect(agent.StartTimeUnixNano).To(Equal(uint64(otlp.DefaultStart().UnixNano())))
	})

	It("leaves message content out unless asked", func() {
		Expect(string(out)).NotTo(ContainSubstring("27.1 °C"))
		Expect(string(out)).NotTo(ContainSubstring("taiwan"))
		var b bytes.Buffer
		Expect(otlp.WriteJSON(context.Background(), &b, fixture(), otlp.Options{Start: opts.Start, Content: true})).To(Succeed())
		spans := flatten(readLines(b.Bytes())[:1])
		Expect(named(spans, "execute_tool sst.mean").attrs).To(HaveKeyWithValue("gen_ai.tool.call.arguments", `{"region":"taiwan"}`))
		var answers []string
		for _, s := range spans {
			if v, ok := s.attrs["gen_ai.output.messages"]; ok {
				answers = append(answers, v)
			}
		}
		Expect(answers).To(ContainElement(ContainSubstring(`"content":"The mean SST is 27.1 °C."`)))
		Expect(answers).To(ContainElement(ContainSubstring(`"name":"sst.mean"`)))
	})
})

var _ = Describe("a sampled scenario", func() {
	It("gives each sample its own trace, the failed checks on sample 1's only", func() {
		r := fixture()
		sc := &r.Suites[0].Variants[0].Scenarios[1]
		sc.Sampling = &report.Sampling{N: 2, Runs: []report.Run{
			{Sample: 1, Verdict: report.VerdictFail, Events: sc.Events},
			{Sample: 2, Verdict: report.VerdictPass, Events: sc.Events[:1]},
		}}
		var b bytes.Buffer
		Expect(otlp.WriteJSON(context.Background(), &b, r, opts)).To(Succeed())
		reqs := readLines(b.Bytes())
		Expect(reqs).To(HaveLen(3))
		one, two := named(flatten(reqs[1:2]), "invoke_agent odbchat"), named(flatten(reqs[2:]), "invoke_agent odbchat")
		Expect(hex.EncodeToString(two.TraceId)).To(Equal(otlp.TraceID("odbchat", "single-pass", "ac2", 2).String()))
		Expect(two.attrs).To(HaveKeyWithValue("testbed.sample", `{"intValue":"2"}`))
		Expect(one.TraceId).NotTo(Equal(two.TraceId))
		Expect(attrs(one.Events[0].Attributes)).To(HaveKeyWithValue("gen_ai.evaluation.explanation", "turn 2 answer_contains: want 27.1"))
		Expect(attrs(two.Events[0].Attributes)).To(HaveKeyWithValue("gen_ai.evaluation.score.label", "pass"))
		Expect(attrs(two.Events[0].Attributes)).To(HaveKeyWithValue("gen_ai.evaluation.explanation", ""))
	})
})

// receiver is an OTLP/HTTP trace endpoint that decodes the protobuf requests
// it is sent.
type receiver struct {
	mu   sync.Mutex
	reqs []*collectortrace.ExportTraceServiceRequest
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	msg := &collectortrace.ExportTraceServiceRequest{}
	if err != nil || req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(body, msg) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, msg)
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	resp, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	_, _ = w.Write(resp)
}

var _ = Describe("Push", func() {
	It("sends over OTLP/HTTP the spans the file holds", func() {
		rcv := &receiver{}
		srv := httptest.NewServer(rcv)
		DeferCleanup(srv.Close)
		Expect(otlp.Push(context.Background(), srv.URL, fixture(), opts)).To(Succeed())
		var file bytes.Buffer
		Expect(otlp.WriteJSON(context.Background(), &file, fixture(), opts)).To(Succeed())
		got, want := flatten(rcv.reqs), flatten(readLines(file.Bytes()))
		Expect(got).To(HaveLen(len(want)))
		for i := range want {
			Expect(proto.Equal(got[i].Span, want[i].Span)).To(BeTrue(), "span %d %s", i, want[i].Name)
		}
	})

	It("says which endpoint failed", func() {
		srv := httptest.NewServer(http.NotFoundHandler())
		DeferCleanup(srv.Close)
		err := otlp.Push(context.Background(), srv.URL, fixture(), opts)
		Expect(err).To(MatchError(ContainSubstring("push to " + srv.URL)))
	})

	It("gives up on an unreachable endpoint within its retry time", func() {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		start := time.Now()
		err := otlp.Push(context.Background(), url, fixture(), opts)
		Expect(err).To(MatchError(ContainSubstring("push to " + url)))
		Expect(time.Since(start)).To(BeNumerically("<", otlp.PushRetry+3*time.Second))
	})

	It("refuses an endpoint that is not a URL", func() {
		Expect(otlp.Push(context.Background(), "localhost:4318", fixture(), opts)).To(MatchError(ContainSubstring("is not a URL")))
	})
})
