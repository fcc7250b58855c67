package standin_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/standin"
)

// wireFormat is one of the wire formats the stand-in speaks beside OpenAI's,
// through our adapter for it.
type wireFormat struct {
	client func(srv *standin.Server, hc *http.Client) llm.Client
	model  string // the model the adapter asks for
	stop   string // the finish reason of a whole answer
}

var (
	geminiWire    = wireFormat{geminiClient, "gemini-2.5-flash", llm.FinishStop}
	anthropicWire = wireFormat{anthropicClient, claude, llm.FinishStop}
	responsesWire = wireFormat{responsesClient, gpt, llm.FinishStop}
)

// eachWire is an entry per wire format, with args after the format.
func eachWire(args ...any) []TableEntry {
	name := func(format string) string {
		if len(args) == 0 {
			return format
		}
		return fmt.Sprint(append([]any{format + ": "}, args...)...)
	}
	return []TableEntry{
		Entry(name("Gemini"), append([]any{geminiWire}, args...)...),
		Entry(name("Anthropic"), append([]any{anthropicWire}, args...)...),
		Entry(name("OpenAI Responses"), append([]any{responsesWire}, args...)...),
	}
}

var _ = Describe("every wire format", func() {
	var srv *standin.Server

	BeforeEach(func() {
		srv = startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
	})

	DescribeTable("round-trips text with a system prompt and a history",
		func(f wireFormat) {
			req := echoRequest(
				llm.Message{Role: llm.RoleUser, Content: "hello"},
				llm.Message{Role: llm.RoleAssistant, Content: "hi"},
				llm.Message{Role: llm.RoleUser, Content: "again"})
			req.MaxTokens = 4096 // room for the echo: a model stops at its limit
			resp := chat(f.client(srv, http.DefaultClient), req)
			Expect(resp.Model).To(Equal(f.model))
			Expect(resp.FinishReason).To(Equal(f.stop))
			Expect(resp.Message.Role).To(Equal(llm.RoleAssistant))
			Expect(resp.Message.ToolCalls).To(BeEmpty())

			r := seen(resp)
			Expect(r.Model).To(Equal(f.model))
			Expect(r.MaxTokens).To(Equal(4096))
			Expect(r.Messages).To(Equal(req.Messages))
			Expect(r.System()).To(Equal(echoPrompt))
			Expect(r.Tools).To(BeEmpty())
		},
		eachWire(),
	)

	DescribeTable("passes JSON mode to the policy, where the wire format has one",
		func(f wireFormat) {
			model := f.client(srv, http.DefaultClient)
			req := echoRequest(llm.Message{Role: llm.RoleUser, Content: "hello, in JSON"})
			Expect(seen(chat(model, req)).Output).To(BeEmpty())
			req.Output = llm.OutputJSON
			Expect(seen(chat(model, req)).Output).To(Equal(llm.OutputJSON))
		},
		Entry("Gemini", geminiWire),
		Entry("OpenAI Responses", responsesWire),
	)

	DescribeTable("passes tools with their JSON Schema to the policy",
		func(f wireFormat) {
			req := echoRequest(llm.Message{Role: llm.RoleUser, Content: "which tools?"})
			req.Tools = sstTools()
			tools := seen(chat(f.client(srv, http.DefaultClient), req)).Tools
			Expect(tools).To(HaveLen(2))
			for i, t := range tools {
				Expect(t.Name).To(Equal(req.Tools[i].Name))
				Expect(t.Description).To(Equal(req.Tools[i].Description))
				Expect(string(t.Parameters)).To(MatchJSON(req.Tools[i].Parameters))
			}
		},
		eachWire(),
	)

	DescribeTable("reports usage counted as the OpenAI path counts it, and the latency of that usage",
		func(f wireFormat) {
			req := echoRequest(llm.Message{Role: llm.RoleUser, Content: "how many tokens is this?"})
			req.Tools = sstTools()
			rec := &headerRecorder{}
			resp := chat(f.client(srv, &http.Client{Transport: rec}), req)
			Expect(resp.Usage.InputTokens).To(BeNumerically(">", 0))
			Expect(resp.Usage.OutputTokens).To(BeNumerically(">", 0))
			Expect(resp.Usage.InputTokens).To(Equal(chat(client(srv), req).Usage.InputTokens))
			Expect(resp.Usage.CacheReadTokens+resp.Usage.CacheWriteTokens).To(BeZero(), "the stand-in has no prompt cache")
			want := standin.DefaultLatency().Of(resp.Usage.InputTokens, resp.Usage.OutputTokens)
			Expect(rec.last().Get(cassette.LatencyHeader)).To(Equal(want.String()))
			Expect(rec.last().Values("Date")).To(BeEmpty())
		},
		eachWire(),
	)

	DescribeTable("sends a body that does not parse for the malformed fault",
		func(f wireFormat) {
			faulty := startStandin(standin.Options{Policies: []standin.Policy{echo{}}, FaultRate: 1, Faults: []string{standin.FaultMalformed}})
			_, err := f.client(faulty, http.DefaultClient).Chat(context.Background(), echoRequest(llm.Message{Role: llm.RoleUser, Content: "hello"}))
			Expect(err).To(HaveOccurred())
			var se *llm.StatusError
			Expect(errors.As(err, &se)).To(BeFalse())
		},
		eachWire(),
	)

	DescribeTable("cuts the answer off for the truncated fault",
		func(f wireFormat, stop string) {
			faulty := startStandin(standin.Options{Policies: []standin.Policy{echo{}}, FaultRate: 1, Faults: []string{standin.FaultTruncated}})
			resp := chat(f.client(faulty, http.DefaultClient), echoRequest(llm.Message{Role: llm.RoleUser, Content: "hello"}))
			Expect(resp.FinishReason).To(Equal(stop))
			Expect(resp.Usage.OutputTokens).To(Equal(4))
			var v any
			Expect(json.Unmarshal([]byte(resp.Message.Content), &v)).NotTo(Succeed())
		},
		Entry("Gemini", geminiWire, llm.FinishLength),
		Entry("Anthropic's max_tokens stop", anthropicWire, llm.FinishLength),
		Entry("OpenAI Responses' incomplete for max_output_tokens", responsesWire, llm.FinishLength),
	)

	DescribeTable("answers with the ODBchat router policy as through OpenAI",
		func(f wireFormat, query string) {
			srv := startStandin(standin.Options{})
			req := routerRequest(query, true)
			viaOpenAI := chat(client(srv), req)
			via := chat(f.client(srv, http.DefaultClient), req)
			var p plan
			Expect(json.Unmarshal([]byte(via.Message.Content), &p)).To(Succeed(), "router output %q", via.Message.Content)
			Expect(p.Decision).NotTo(BeEmpty())
			Expect(via.Message.Content).To(Equal(viaOpenAI.Message.Content))
			Expect(via.Usage).To(Equal(viaOpenAI.Usage))
		},
		eachWire("現在台灣周遭海溫多少？"),
		eachWire("花蓮外海 121.7E,24.0N 今天呢？"),
		eachWire("GHRSST 是什麼？"),
		eachWire("寫一個 python 程式把海溫轉 CSV"),
	)
})
