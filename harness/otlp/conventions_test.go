package otlp_test

// What the GenAI semantic conventions require of a span beyond its name:
// the well-known provider names, error.type on every span that ended in an
// error, and output messages that each say why the model stopped.

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/otlp"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

// export writes r with content and returns the spans of its first run.
func export(r *report.Report) []span {
	GinkgoHelper()
	var b bytes.Buffer
	Expect(otlp.WriteJSON(context.Background(), &b, r, otlp.Options{Start: opts.Start, Content: true})).To(Succeed())
	return flatten(readLines(b.Bytes())[:1])
}

var _ = Describe("the GenAI conventions", func() {
	DescribeTable("name the provider by its well-known value, and its operation",
		func(provider, want, op string) {
			r := fixture()
			r.Suites[0].Variants[0].Provider = provider
			spans := export(r)
			Expect(named(spans, "invoke_agent odbchat").attrs).To(HaveKeyWithValue("gen_ai.provider.name", want))
			call := named(spans, op+" gemma3:4b")
			Expect(call.attrs).To(HaveKeyWithValue("gen_ai.provider.name", want))
			Expect(call.attrs).To(HaveKeyWithValue("gen_ai.operation.name", op))
		},
		Entry("OpenAI", "openai", "openai", "chat"),
		Entry("Anthropic", "anthropic", "anthropic", "chat"),
		Entry("the Gemini API (generativelanguage.googleapis.com), whose generateContent is generate_content", "gemini", "gcp.gemini", "generate_content"),
		Entry("Azure OpenAI", "azure", "azure.ai.openai", "chat"),
		Entry("Ollama, which has none", "ollama", "ollama", "chat"),
		Entry("no provider named", "", "_OTHER", "chat"),
	)

	It("gives a model call the provider's id of its answer, when it gave one", func() {
		spans := export(fixture())
		var ids []string
		for _, s := range spans {
			if s.Name == "chat gemma3:4b" {
				ids = append(ids, s.attrs["gen_ai.response.id"])
			}
		}
		Expect(ids).To(Equal([]string{"chatcmpl-9a", ""}), "the second call's answer had none")
	})

	It("ties a tool's execution to the model's call of it by the call's id, in gen_ai.tool.call.id and the answer's tool_call part", func() {
		spans := export(fixture())
		Expect(named(spans, "execute_tool sst.mean").attrs).To(HaveKeyWithValue("gen_ai.tool.call.id", "call_1"))
		Expect(named(spans, "chat gemma3:4b").attrs["gen_ai.output.messages"]).To(MatchJSON(`[{"role":"assistant","finish_reason":"tool_call",
			"parts":[{"type":"tool_call","id":"call_1","name":"sst.mean","arguments":{"region":"taiwan"}}]}]`))

		r := fixture()
		r.Suites[0].Variants[0].Scenarios[0].Events[3].Tool.CallID = ""
		Expect(named(export(r), "execute_tool sst.mean").attrs).NotTo(HaveKey("gen_ai.tool.call.id"), "a tool no call of the model's asked for")
	})

	It("names the server each call and exchange was made to, the logical host the run recorded, with its port or its scheme's", func() {
		r := fixture()
		events := []trace.Event{
			// a model call answered on its second try, with an upstream
			// fetched while it ran
			{Kind: trace.KindHTTP, Turn: 1, HTTP: &trace.Exchange{Method: "POST", URL: "https://api.openai.com/v1/chat/completions", Status: 429, Duration: 100 * time.Millisecond}},
			{Kind: trace.KindHTTP, Turn: 1, At: 100 * time.Millisecond, HTTP: &trace.Exchange{Method: "GET", URL: "https://erddap.test:8443/sst.json", Status: 200, Duration: 100 * time.Millisecond}},
			{Kind: trace.KindHTTP, Turn: 1, At: 200 * time.Millisecond, HTTP: &trace.Exchange{Method: "POST", URL: "https://eu.api.openai.com/v1/chat/completions", Status: 200, Duration: 600 * time.Millisecond}},
			{Kind: trace.KindLLM, Turn: 1, LLM: &trace.LLMCall{Model: "gpt-4.1", Duration: 800 * time.Millisecond}},
			{Kind: trace.KindHTTP, Turn: 1, At: time.Second, HTTP: &trace.Exchange{Method: "PUT", URL: "http://localhost:11434/api/embed", Status: 200, Duration: 50 * time.Millisecond}},
			{Kind: trace.KindEmbed, Turn: 1, At: time.Second, Embed: &trace.EmbedCall{Model: "nomic-embed-text", Duration: 50 * time.Millisecond}},
			// a call the report has no exchange of
			{Kind: trace.KindLLM, Turn: 1, At: 2 * time.Second, LLM: &trace.LLMCall{Model: "gpt-4.1-mini", Duration: time.Second}},
		}
		r.Suites[0].Variants[0].Scenarios[0].Events = events
		spans := export(r)
		server := func(s span) []string { return []string{s.attrs["server.address"], s.attrs["server.port"]} }
		Expect(server(named(spans, "chat gpt-4.1"))).To(Equal([]string{"eu.api.openai.com", `{"intValue":"443"}`}), "the exchange that answered it")
		Expect(server(named(spans, "embeddings nomic-embed-text"))).To(Equal([]string{"localhost", `{"intValue":"11434"}`}))
		Expect(named(spans, "chat gpt-4.1-mini").attrs).NotTo(HaveKey("server.address"))
		Expect(named(spans, "chat gpt-4.1-mini").attrs).NotTo(HaveKey("server.port"))
		Expect(server(named(spans, "GET"))).To(Equal([]string{"erddap.test", `{"intValue":"8443"}`}))
		Expect(server(named(spans, "PUT"))).To(Equal([]string{"localhost", `{"intValue":"11434"}`}))
		Expect(server(named(export(fixture()), "POST"))).To(Equal([]string{"llm.test", `{"intValue":"80"}`}), "http's port")
	})

	It("states what a call asked for: its temperature, its token limit, json output, a streamed answer; and its reasoning tokens", func() {
		var router, answer span
		for _, s := range export(fixture()) {
			switch s.attrs["testbed.llm.role"] {
			case "router":
				router = s
			case "answer":
				answer = s
			}
		}
		Expect(router.attrs).To(HaveKeyWithValue("gen_ai.request.temperature", `{"doubleValue":0}`), "a temperature of 0 is one")
		Expect(router.attrs).To(HaveKeyWithValue("gen_ai.request.max_tokens", `{"intValue":"256"}`))
		Expect(router.attrs).To(HaveKeyWithValue("gen_ai.output.type", "json"))
		Expect(router.attrs).To(HaveKeyWithValue("gen_ai.request.stream", `{"boolValue":true}`))
		Expect(router.attrs).To(HaveKeyWithValue("gen_ai.response.time_to_first_chunk", `{"doubleValue":0.2}`), "its first event, not its first token")
		Expect(router.attrs).To(HaveKeyWithValue("gen_ai.usage.reasoning.output_tokens", `{"intValue":"5"}`))
		for _, k := range []string{"gen_ai.request.temperature", "gen_ai.request.max_tokens", "gen_ai.output.type", "gen_ai.request.stream", "gen_ai.response.time_to_first_chunk", "gen_ai.usage.reasoning.output_tokens"} {
			Expect(answer.attrs).NotTo(HaveKey(k), "a call that asked for none, unstreamed, with no usage")
		}
	})

	It("names the model an agent's run called on its invoke_agent span, when it called one", func() {
		Expect(named(export(fixture()), "invoke_agent odbchat").attrs).To(HaveKeyWithValue("gen_ai.request.model", "gemma3:4b"))
		r := fixture()
		r.Suites[0].Variants[0].Scenarios[0].Events[4].LLM.Model = "gemma3:12b"
		Expect(named(export(r), "invoke_agent odbchat").attrs).NotTo(HaveKey("gen_ai.request.model"), "two models")
		r.Suites[0].Variants[0].Scenarios[0].Events = nil
		Expect(named(export(r), "invoke_agent odbchat").attrs).NotTo(HaveKey("gen_ai.request.model"), "no model call")
	})

	It("describes a tool as the model was last sent it before it ran, when the run kept what calls were sent", func() {
		Expect(named(export(fixture()), "execute_tool sst.mean").attrs).NotTo(HaveKey("gen_ai.tool.description"))
		r := fixture()
		r.Suites[0].Variants[0].Scenarios[0].Events[1].LLM.Prompt = &trace.Prompt{
			Messages: []llm.Message{{Role: llm.RoleUser, Content: "Mean SST near Taiwan?"}},
			Tools:    []llm.Tool{{Name: "sst.mean", Description: "Mean sea surface temperature of a region."}, {Name: "sst.map", Description: "A map of it."}},
		}
		r.Suites[0].Variants[0].Scenarios[0].Events[4].LLM.Prompt = &trace.Prompt{Tools: []llm.Tool{{Name: "sst.mean", Description: "sent after it ran"}}}
		var b bytes.Buffer
		Expect(otlp.WriteJSON(context.Background(), &b, r, opts)).To(Succeed())
		tool := named(flatten(readLines(b.Bytes())[:1]), "execute_tool sst.mean")
		Expect(tool.attrs).To(HaveKeyWithValue("gen_ai.tool.description", "Mean sea surface temperature of a region."), "without --otlp-content too: a definition is no message content")
	})

	It("calls a tool the agent ran a function", func() {
		Expect(named(export(fixture()), "execute_tool sst.mean").attrs).To(HaveKeyWithValue("gen_ai.tool.type", "function"))
	})

	It("gives error.type to every span that ended in an error, and to no other", func() {
		r := fixture()
		events := []trace.Event{
			{Kind: trace.KindHTTP, Turn: 1, HTTP: &trace.Exchange{Method: "POST", URL: "http://llm.test/v1/chat/completions", Status: 503, Duration: time.Second}},
			{Kind: trace.KindLLM, Turn: 1, LLM: &trace.LLMCall{Model: "gemma3:4b", Duration: time.Second, Error: "openai: 503 Service Unavailable"}},
			{Kind: trace.KindHTTP, Turn: 1, At: time.Second, HTTP: &trace.Exchange{Method: "GET", URL: "http://erddap.test/sst.json", Duration: time.Second, Fault: "timeout", Error: "context deadline exceeded"}},
			{Kind: trace.KindHTTP, Turn: 1, At: 2 * time.Second, HTTP: &trace.Exchange{Method: "PUT", URL: "http://erddap.test/sst.json", Status: 200}},
			{Kind: trace.KindTool, Turn: 1, At: 2 * time.Second, Tool: &trace.ToolCall{Name: "sst.mean", Error: "no data for the region"}},
			{Kind: trace.KindEmbed, Turn: 1, At: 2 * time.Second, Embed: &trace.EmbedCall{Model: "nomic-embed-text", Error: "unreachable"}},
		}
		sc := &r.Suites[0].Variants[0].Scenarios[0]
		sc.Events, sc.Verdict, sc.Error = events, report.VerdictError, "the model call failed"
		spans := export(r)
		Expect(named(spans, "POST").attrs).To(HaveKeyWithValue("error.type", "503"), "an HTTP error's status code")
		Expect(named(spans, "GET").attrs).To(HaveKeyWithValue("error.type", "timeout"), "the fault injected")
		Expect(named(spans, "PUT").attrs).NotTo(HaveKey("error.type"))
		Expect(named(spans, "chat gemma3:4b").attrs).To(HaveKeyWithValue("error.type", "_OTHER"))
		Expect(named(spans, "execute_tool sst.mean").attrs).To(HaveKeyWithValue("error.type", "_OTHER"))
		Expect(named(spans, "embeddings nomic-embed-text").attrs).To(HaveKeyWithValue("error.type", "_OTHER"))
		Expect(named(spans, "invoke_agent odbchat").attrs).To(HaveKeyWithValue("error.type", "error"), "the run's verdict")

		passed := export(fixture())
		for _, s := range passed {
			Expect(s.attrs).NotTo(HaveKey("error.type"), s.Name)
		}
	})

	It("says in each output message why the model stopped, in the conventions' words", func() {
		var got []map[string]any
		for _, s := range export(fixture()) {
			if v, ok := s.attrs["gen_ai.output.messages"]; ok {
				var msgs []map[string]any
				Expect(json.Unmarshal([]byte(v), &msgs)).To(Succeed())
				got = append(got, msgs...)
			}
		}
		Expect(got).To(HaveLen(2))
		Expect(got[0]).To(HaveKeyWithValue("finish_reason", "tool_call"), "the neutral tool_calls")
		Expect(got[1]).To(HaveKeyWithValue("finish_reason", "stop"), "a call whose reason was not read finished with its text")
		for _, m := range got {
			Expect(m).To(HaveKey("role"))
			Expect(m).To(HaveKey("parts"))
		}
	})

	It("puts what a call was sent, when the run kept it, in gen_ai.input.messages and gen_ai.system_instructions", func() {
		r := fixture()
		call := r.Suites[0].Variants[0].Scenarios[0].Events[4].LLM
		Expect(call.Role).To(Equal("answer"))
		call.Prompt = &trace.Prompt{Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "Answer from the tool's result."},
			{Role: llm.RoleUser, Content: "Mean SST near Taiwan?"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "sst.mean", Arguments: json.RawMessage(`{"region":"taiwan"}`)}}},
			{Role: llm.RoleTool, ToolCallID: "call_1", Name: "sst.mean", Content: `{"mean":27.1}`},
		}}
		var answer span
		for _, s := range export(r) {
			if s.Name == "chat gemma3:4b" && s.attrs["testbed.llm.role"] == "answer" {
				answer = s
			}
		}
		Expect(answer.attrs).To(HaveKeyWithValue("gen_ai.system_instructions", `[{"type":"text","content":"Answer from the tool's result."}]`))
		Expect(answer.attrs).To(HaveKey("gen_ai.input.messages"))
		Expect(answer.attrs["gen_ai.input.messages"]).To(MatchJSON(`[
			{"role":"user","parts":[{"type":"text","content":"Mean SST near Taiwan?"}]},
			{"role":"assistant","parts":[{"type":"tool_call","id":"call_1","name":"sst.mean","arguments":{"region":"taiwan"}}]},
			{"role":"tool","parts":[{"type":"tool_call_response","id":"call_1","response":"{\"mean\":27.1}"}]}
		]`))

		for _, s := range export(fixture()) {
			Expect(s.attrs).NotTo(HaveKey("gen_ai.input.messages"), "a call whose prompt the run did not keep")
		}
		var b bytes.Buffer
		Expect(otlp.WriteJSON(context.Background(), &b, r, opts)).To(Succeed())
		Expect(b.String()).NotTo(ContainSubstring("Mean SST near Taiwan"), "content stays out unless asked")
	})

	It("states each check of a run as an evaluation of its own, with a graded check's score", func() {
		r := fixture()
		score := 0.4
		sc := &r.Suites[0].Variants[0].Scenarios[1]
		sc.Checks = append(sc.Checks, report.Check{Turn: 0, Name: "rubric[0]", Pass: false, Judged: true, Score: &score, Detail: "score 0.40 (min 0.70), the answer names no source"})
		var b bytes.Buffer
		Expect(otlp.WriteJSON(context.Background(), &b, r, opts)).To(Succeed())
		agent := named(flatten(readLines(b.Bytes())[1:]), "invoke_agent odbchat")
		var evals []map[string]string
		for _, e := range agent.Events {
			if e.Name == otlp.EventEvaluation {
				evals = append(evals, attrs(e.Attributes))
			}
		}
		Expect(evals).To(HaveLen(3), "the verdict's, then one a check")
		Expect(evals[0]).To(HaveKeyWithValue("gen_ai.evaluation.name", otlp.EvaluationVerdict))
		Expect(evals[1]).To(HaveKeyWithValue("gen_ai.evaluation.name", "answer_contains"))
		Expect(evals[1]).To(HaveKeyWithValue("gen_ai.evaluation.score.label", "fail"))
		Expect(evals[1]).To(HaveKeyWithValue("gen_ai.evaluation.explanation", "want 27.1"))
		Expect(evals[1]).To(HaveKeyWithValue("testbed.turn", `{"intValue":"2"}`))
		Expect(evals[1]).NotTo(HaveKey("gen_ai.evaluation.score.value"), "a check that is not graded has no score")
		Expect(evals[2]).To(HaveKeyWithValue("gen_ai.evaluation.name", "rubric[0]"))
		Expect(evals[2]).To(HaveKeyWithValue("gen_ai.evaluation.score.value", `{"doubleValue":0.4}`))
		Expect(evals[2]).To(HaveKeyWithValue("testbed.check.judged", `{"boolValue":true}`))
	})

	It("writes each export request on one line, whatever line breaks the content holds", func() {
		r := fixture()
		r.Suites[0].Variants[0].Scenarios[0].Events[4].LLM.Text = "Line one.\nLine two.\r\n\tIndented."
		var b bytes.Buffer
		Expect(otlp.WriteJSON(context.Background(), &b, r, otlp.Options{Start: opts.Start, Content: true})).To(Succeed())
		Expect(bytes.Count(b.Bytes(), []byte("\n"))).To(Equal(2), "two runs, two lines")
		Expect(b.String()).To(ContainSubstring(`Line one.\\nLine two.`), "the break escaped inside its string")
		Expect(readLines(b.Bytes())).To(HaveLen(2))
	})
})
