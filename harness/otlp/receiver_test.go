package otlp_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configgrpc"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/agentreplay/testbed/harness/otlp"
)

// collector starts the OpenTelemetry Collector's own OTLP receiver, HTTP
// only, on a loopback port, keeping what it receives in the sink; it
// returns the receiver's URL.
func collector(sink *consumertest.TracesSink) string {
	GinkgoHelper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	addr := l.Addr().String()
	Expect(l.Close()).To(Succeed())
	f := otlpreceiver.NewFactory()
	cfg := f.CreateDefaultConfig().(*otlpreceiver.Config)
	cfg.Protocols.GRPC = configoptional.None[configgrpc.ServerConfig]()
	cfg.Protocols.HTTP.GetOrInsertDefault().ServerConfig.NetAddr.Endpoint = addr
	r, err := f.CreateTraces(context.Background(), receivertest.NewNopSettings(f.Type()), cfg, sink)
	Expect(err).NotTo(HaveOccurred())
	Expect(r.Start(context.Background(), componenttest.NewNopHost())).To(Succeed())
	DeferCleanup(func() { Expect(r.Shutdown(context.Background())).To(Succeed()) })
	return "http://" + addr
}

var _ = Describe("Push to the OpenTelemetry Collector's OTLP receiver", Label("collector"), func() {
	It("delivers every span, with its name, parent, attributes and virtual times", func() {
		sink := &consumertest.TracesSink{}
		url := collector(sink)
		Expect(otlp.Push(context.Background(), url, fixture(), opts)).To(Succeed())

		got := map[string]ptrace.Span{}
		for _, td := range sink.AllTraces() {
			for i := range td.ResourceSpans().Len() {
				rs := td.ResourceSpans().At(i)
				name, _ := rs.Resource().Attributes().Get("service.name")
				Expect(name.Str()).To(Equal("testbed"))
				for j := range rs.ScopeSpans().Len() {
					ss := rs.ScopeSpans().At(j)
					Expect(ss.Scope().Name()).To(Equal(otlp.ScopeName))
					for k := range ss.Spans().Len() {
						s := ss.Spans().At(k)
						Expect(s.TraceID().IsEmpty()).To(BeFalse())
						got[s.Name()+" "+s.SpanID().String()] = s
					}
				}
			}
		}
		Expect(sink.SpanCount()).To(Equal(6+3), "6 spans of ac1, 3 of ac2")

		var agent, chat, post ptrace.Span
		want := otlp.TraceID("odbchat", "single-pass", "ac1", 1)
		for _, s := range got {
			if [16]byte(s.TraceID()) != [16]byte(want) {
				continue
			}
			switch s.Name() {
			case "invoke_agent odbchat":
				agent = s
			case "POST":
				post = s
			case "chat gemma3:4b":
				if s.StartTimestamp().AsTime().Equal(clock) {
					chat = s
				}
			}
		}
		Expect(agent.ParentSpanID().IsEmpty()).To(BeTrue())
		Expect(agent.EndTimestamp().AsTime()).To(BeTemporally("==", clock.Add(1600*time.Millisecond)))
		op, _ := agent.Attributes().Get("gen_ai.operation.name")
		Expect(op.Str()).To(Equal("invoke_agent"))
		Expect(chat.ParentSpanID()).To(Equal(agent.SpanID()))
		Expect(chat.Kind()).To(Equal(ptrace.SpanKindClient))
		in, _ := chat.Attributes().Get("gen_ai.usage.input_tokens")
		Expect(in.Int()).To(Equal(int64(130)))
		id, _ := chat.Attributes().Get("gen_ai.response.id")
		Expect(id.Str()).To(Equal("chatcmpl-9a"))
		addr, _ := chat.Attributes().Get("server.address")
		Expect(addr.Str()).To(Equal("llm.test"))
		port, _ := chat.Attributes().Get("server.port")
		Expect(port.Int()).To(Equal(int64(80)))
		Expect(post.ParentSpanID()).To(Equal(chat.SpanID()))
		status, _ := post.Attributes().Get("http.response.status_code")
		Expect(status.Int()).To(Equal(int64(200)))
		Expect(agent.Events().Len()).To(Equal(3), "the note, the verdict's evaluation and its one check's")
		Expect(agent.Events().At(1).Name()).To(Equal("gen_ai.evaluation.result"))
		Expect(agent.Events().At(2).Name()).To(Equal("gen_ai.evaluation.result"))
	})

	It("takes every line of the --otlp-file output on its OTLP/HTTP JSON endpoint, as the same spans Push sends", func() {
		var file bytes.Buffer
		Expect(otlp.WriteJSON(context.Background(), &file, fixture(), opts)).To(Succeed())
		fromFile := &consumertest.TracesSink{}
		url := collector(fromFile) + "/v1/traces"
		sc := bufio.NewScanner(&file)
		sc.Buffer(nil, 1<<24)
		lines := 0
		for sc.Scan() {
			lines++
			resp, err := http.Post(url, "application/json", bytes.NewReader(sc.Bytes()))
			Expect(err).NotTo(HaveOccurred())
			body, _ := io.ReadAll(resp.Body)
			Expect(resp.Body.Close()).To(Succeed())
			Expect(resp.StatusCode).To(Equal(http.StatusOK), "line %d: %s", lines, body)
		}
		Expect(sc.Err()).NotTo(HaveOccurred())
		Expect(lines).To(Equal(2))

		pushed := &consumertest.TracesSink{}
		Expect(otlp.Push(context.Background(), collector(pushed), fixture(), opts)).To(Succeed())
		Expect(fromFile.SpanCount()).To(Equal(6 + 3))
		got, want := fromFile.AllTraces(), pushed.AllTraces()
		Expect(got).To(HaveLen(len(want)))
		for i := range want {
			g, err := (&ptrace.JSONMarshaler{}).MarshalTraces(got[i])
			Expect(err).NotTo(HaveOccurred())
			w, err := (&ptrace.JSONMarshaler{}).MarshalTraces(want[i])
			Expect(err).NotTo(HaveOccurred())
			Expect(g).To(MatchJSON(w), "run %d", i+1)
		}
	})
})
