package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.opentelemetry.io/collector/pdata/ptrace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpSpans decodes the spans of an OTLP/JSON lines file.
func otlpSpans(data []byte) (lines int, spans []*tracepb.Span) {
	GinkgoHelper()
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		lines++
		td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(sc.Bytes())
		Expect(err).NotTo(HaveOccurred())
		pb, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
		Expect(err).NotTo(HaveOccurred())
		req := &collectortrace.ExportTraceServiceRequest{}
		Expect(proto.Unmarshal(pb, req)).To(Succeed())
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				spans = append(spans, ss.Spans...)
			}
		}
	}
	return lines, spans
}

var _ = Describe("testbed run --otlp-file and --otlp", Label("otlp"), func() {
	It("writes the same OTLP JSON on every run, a trace per scenario run on the suite's clock", func() {
		dir := GinkgoT().TempDir()
		var files [2][]byte
		for i := range files {
			path := filepath.Join(dir, "traces.jsonl")
			r := testbed("run", "--root", "../..", "--suite", "odbchat", "--out", "", "--quiet", "--no-baseline", "--otlp-file", path)
			Expect(r.code).To(Equal(exitOK), r.String())
			var err error
			files[i], err = os.ReadFile(path)
			Expect(err).NotTo(HaveOccurred())
		}
		Expect(string(files[1])).To(Equal(string(files[0])))
		lines, spans := otlpSpans(files[0])
		Expect(lines).To(Equal(60), "one export request per scenario run")
		clock := uint64(time.Date(2025, 11, 6, 2, 0, 0, 0, time.UTC).UnixNano())
		roots, chats := 0, 0
		for _, s := range spans {
			switch {
			case len(s.ParentSpanId) == 0:
				roots++
				Expect(s.Name).To(HavePrefix("invoke_agent "))
				Expect(s.StartTimeUnixNano).To(Equal(clock))
			case len(s.Name) > 5 && s.Name[:5] == "chat ":
				chats++
				Expect(s.StartTimeUnixNano).To(BeNumerically(">=", clock))
			}
		}
		Expect(roots).To(Equal(60))
		Expect(chats).To(BeNumerically(">", 60))
	})

	It("pushes the same spans over OTLP/HTTP", func() {
		var mu sync.Mutex
		var got []*tracepb.Span
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			body, _ := io.ReadAll(req.Body)
			msg := &collectortrace.ExportTraceServiceRequest{}
			if req.URL.Path != "/v1/traces" || proto.Unmarshal(body, msg) != nil {
				http.Error(w, "bad request", http.StatusBadRequest)
				return
			}
			mu.Lock()
			for _, rs := range msg.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					got = append(got, ss.Spans...)
				}
			}
			mu.Unlock()
			w.Header().Set("Content-Type", "application/x-protobuf")
		}))
		DeferCleanup(srv.Close)
		path := filepath.Join(GinkgoT().TempDir(), "traces.jsonl")
		r := testbed("run", "--root", "../..", "--suite", "odbchat", "--scenario", "ac1-taiwan-sst", "--out", "", "--quiet", "--no-baseline",
			"--otlp-file", path, "--otlp", srv.URL, "--otlp-content")
		Expect(r.code).To(Equal(exitOK), r.String())
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		_, want := otlpSpans(data)
		Expect(want).NotTo(BeEmpty())
		Expect(got).To(HaveLen(len(want)))
		for i := range want {
			Expect(proto.Equal(got[i], want[i])).To(BeTrue(), "span %d %s", i, want[i].Name)
		}
		Expect(string(data)).To(ContainSubstring("gen_ai.output.messages"))
	})

	It("ties each tool a built-in agent ran to the model's call of it, and gives each call its answer's id and its server", func() {
		path := filepath.Join(GinkgoT().TempDir(), "traces.jsonl")
		r := testbed("run", "--root", "../..", "--suite", "cba", "--scenario", "weather-now-nairobi", "--out", "", "--quiet", "--no-baseline",
			"--otlp-file", path, "--otlp-content")
		Expect(r.code).To(Equal(exitOK), r.String())
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		_, spans := otlpSpans(data)
		asked := map[string]bool{} // the ids of the calls the model asked for
		var ran, answers []string
		servers := map[string]int{} // server.address:server.port of the model calls
		for _, s := range spans {
			attrs := map[string]string{}
			for _, kv := range s.Attributes {
				attrs[kv.Key] = kv.Value.GetStringValue()
				if kv.Key == "server.port" {
					attrs[kv.Key] = fmt.Sprint(kv.Value.GetIntValue())
				}
			}
			switch attrs["gen_ai.operation.name"] {
			case "chat", "generate_content":
				answers = append(answers, attrs["gen_ai.response.id"])
				servers[attrs["server.address"]+":"+attrs["server.port"]]++
				var msgs []struct {
					Parts []struct{ Type, ID string }
				}
				Expect(json.Unmarshal([]byte(attrs["gen_ai.output.messages"]), &msgs)).To(Succeed())
				for _, p := range msgs[0].Parts {
					if p.Type == "tool_call" {
						asked[p.ID] = true
					}
				}
			case "execute_tool":
				ran = append(ran, attrs["gen_ai.tool.call.id"])
			}
		}
		Expect(answers).To(HaveLen(10), "two calls in each of five variants")
		Expect(servers).To(Equal(map[string]int{"localhost:11434": 4, "generativelanguage.googleapis.com:443": 2, "api.anthropic.com:443": 4}),
			"the logical hosts: Ollama's OpenAI-compatible endpoint, the Gemini API, Anthropic's")
		Expect(answers).NotTo(ContainElement(""), "every provider here gives its answers ids")
		Expect(ran).To(HaveLen(5))
		for _, id := range ran {
			if id != "" { // Gemini's functionCall came without one
				Expect(asked).To(HaveKey(id))
			}
		}
		Expect(slices.DeleteFunc(slices.Clone(ran), func(id string) bool { return id == "" })).To(HaveLen(4), "the OpenAI-compatible and Anthropic variants' calls have ids")
	})

	It("fails the run when the endpoint refuses the spans", func() {
		srv := httptest.NewServer(http.NotFoundHandler())
		DeferCleanup(srv.Close)
		r := testbed("run", "--root", "../..", "--suite", "odbchat", "--scenario", "ac1-taiwan-sst", "--out", "", "--quiet", "--no-baseline", "--otlp", srv.URL)
		Expect(r.code).To(Equal(exitInternal), r.String())
		Expect(r.stderr).To(ContainSubstring("push to " + srv.URL))
	})
})
