package judge_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/judge"
)

// grader serves answer, in the wire shape of provider, to every request,
// and keeps the last request's body.
func grader(provider, answer string) (*httptest.Server, *map[string]any) {
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		Expect(json.Unmarshal(body, &got)).To(Succeed())
		w.Header().Set("Content-Type", "application/json")
		switch provider {
		case llm.ProviderOpenAI:
			json.NewEncoder(w).Encode(map[string]any{"id": "c", "object": "chat.completion", "model": "m",
				"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": answer}}},
				"usage":   map[string]any{"prompt_tokens": 120, "completion_tokens": 20, "total_tokens": 140}})
		case llm.ProviderAnthropic:
			json.NewEncoder(w).Encode(map[string]any{"id": "msg", "type": "message", "role": "assistant", "model": "m", "stop_reason": "tool_use",
				"content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": judge.GradeSchema, "input": json.RawMessage(answer)}},
				"usage":   map[string]any{"input_tokens": 120, "output_tokens": 20}})
		case llm.ProviderGemini:
			json.NewEncoder(w).Encode(map[string]any{
				"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": answer}}}, "finishReason": "STOP"}},
				"usageMetadata": map[string]any{"promptTokenCount": 120, "candidatesTokenCount": 20}})
		}
	}))
	DeferCleanup(srv.Close)
	return srv, &got
}

func newGrader(provider, url string) *judge.Grader {
	GinkgoHelper()
	base := url
	if provider == llm.ProviderOpenAI {
		base += "/v1"
	}
	g, err := judge.New(context.Background(), llm.Endpoint{Provider: provider, BaseURL: base, Model: "m"}, "key-123", http.DefaultClient, "")
	Expect(err).NotTo(HaveOccurred())
	return g
}

var subject = judge.Subject{Rubric: "It names the data set", Input: "What is GHRSST?", Answer: "GHRSST is a data set.", Tools: "rag.search {}"}

var _ = Describe("Grader", func() {
	It("asks OpenAI Chat Completions for response_format json_schema, strict, named testbed_grade", func() {
		srv, got := grader(llm.ProviderOpenAI, `{"score":0.8,"reason":"names it"}`)
		g, u, err := newGrader(llm.ProviderOpenAI, srv.URL).Grade(context.Background(), subject)
		Expect(err).NotTo(HaveOccurred())
		Expect(g).To(Equal(judge.Grade{Score: 0.8, Reason: "names it"}))
		Expect(u.InputTokens).To(Equal(120))
		rf := (*got)["response_format"].(map[string]any)
		Expect(rf["type"]).To(Equal("json_schema"))
		js := rf["json_schema"].(map[string]any)
		Expect(js["name"]).To(Equal("testbed_grade"))
		Expect(js["strict"]).To(BeTrue())
		schema := js["schema"].(map[string]any)
		Expect(schema["required"]).To(ConsistOf("score", "reason"))
		Expect(schema["additionalProperties"]).To(BeFalse())
		Expect((*got)["temperature"]).To(BeEquivalentTo(0))
		Expect((*got)["max_completion_tokens"]).To(BeEquivalentTo(judge.MaxTokens), "a grade is short: its answer bounded")
		msgs := (*got)["messages"].([]any)
		Expect(msgs[0].(map[string]any)["role"]).To(Equal("system"))
		Expect(msgs[1].(map[string]any)["content"]).To(Equal("## Rubric\nIt names the data set\n\n## Input\nWhat is GHRSST?\n\n## Tool calls\nrag.search {}\n\n## Answer\nGHRSST is a data set."))
	})

	It("forces Anthropic's Messages API to call one tool whose input schema is the grade", func() {
		srv, got := grader(llm.ProviderAnthropic, `{"score":1,"reason":"names it"}`)
		g, _, err := newGrader(llm.ProviderAnthropic, srv.URL).Grade(context.Background(), subject)
		Expect(err).NotTo(HaveOccurred())
		Expect(g.Score).To(Equal(1.0))
		Expect((*got)["tool_choice"]).To(Equal(map[string]any{"type": "tool", "name": "testbed_grade"}))
		tools := (*got)["tools"].([]any)
		Expect(tools).To(HaveLen(1))
		tool := tools[0].(map[string]any)
		Expect(tool["name"]).To(Equal("testbed_grade"))
		Expect(tool["strict"]).To(BeTrue(), "strict tool use: Anthropic's structured outputs for a tool's input")
		schema := tool["input_schema"].(map[string]any)
		Expect(schema["type"]).To(Equal("object"))
		Expect(schema["required"]).To(ConsistOf("score", "reason"))
		Expect(schema["additionalProperties"]).To(BeFalse())
		Expect(schema["properties"]).To(HaveKey("score"))
		Expect((*got)["system"]).NotTo(BeEmpty())
	})

	It("asks Gemini for responseMimeType application/json with a responseSchema titled testbed_grade", func() {
		srv, got := grader(llm.ProviderGemini, `{"score":0,"reason":"does not"}`)
		g, u, err := newGrader(llm.ProviderGemini, srv.URL).Grade(context.Background(), subject)
		Expect(err).NotTo(HaveOccurred())
		Expect(g.Score).To(Equal(0.0))
		Expect(u.OutputTokens).To(Equal(20))
		gc := (*got)["generationConfig"].(map[string]any)
		Expect(gc["responseMimeType"]).To(Equal("application/json"))
		rs := gc["responseSchema"].(map[string]any)
		Expect(rs["title"]).To(Equal("testbed_grade"))
		Expect(rs["type"]).To(Equal("OBJECT"))
		Expect(rs["required"]).To(ConsistOf("score", "reason"))
		Expect((*got)["systemInstruction"]).NotTo(BeNil())
	})

	DescribeTable("refuses a grader's answer that does not parse, and says so",
		func(answer, want string) {
			srv, _ := grader(llm.ProviderOpenAI, answer)
			_, _, err := newGrader(llm.ProviderOpenAI, srv.URL).Grade(context.Background(), subject)
			Expect(err).To(MatchError(judge.ErrUnparsable))
			Expect(err.Error()).To(ContainSubstring(want))
		},
		Entry("prose", "It passes.", "not a JSON object"),
		Entry("no reason", `{"score":1}`, `no "reason"`),
		Entry("a score out of range", `{"score":7,"reason":"r"}`, "score 7 is outside 0 to 1"),
		Entry("an extra key", `{"score":1,"reason":"r","pass":true}`, `unknown field "pass"`),
		Entry("a score as text", `{"score":"high","reason":"r"}`, "the grader's answer does not parse"),
		Entry("a null score, which would read as 0", `{"score":null,"reason":"r"}`, `"score" is null`),
		Entry("a null reason", `{"score":1,"reason":null}`, `"reason" is null`),
		Entry("a repeated score, of which the last would win", `{"score":1,"score":0,"reason":"r"}`, `"score" is repeated`),
		Entry("a repeated reason", `{"score":1,"reason":"meets it","reason":"misses it"}`, `"reason" is repeated`),
		Entry("a score repeated in another case, which encoding/json reads as the same key", `{"score":1,"reason":"r","Score":0}`, `"Score" is repeated`),
	)

	It("asks for a preference between two answers in the testbed_preference shape", func() {
		srv, got := grader(llm.ProviderOpenAI, `{"winner":"B","reason":"B names it"}`)
		p, _, err := newGrader(llm.ProviderOpenAI, srv.URL).Prefer(context.Background(), judge.Pair{Rubric: "It names the data set", Input: "?", A: "no", B: "GHRSST"})
		Expect(err).NotTo(HaveOccurred())
		Expect(p).To(Equal(judge.Preference{Winner: "B", Reason: "B names it"}))
		Expect((*got)["response_format"].(map[string]any)["json_schema"].(map[string]any)["name"]).To(Equal("testbed_preference"))
	})

	It("refuses a preference whose winner is repeated, and says so", func() {
		srv, _ := grader(llm.ProviderOpenAI, `{"winner":"A","reason":"r","winner":"B"}`)
		_, _, err := newGrader(llm.ProviderOpenAI, srv.URL).Prefer(context.Background(), judge.Pair{Rubric: "It names the data set", Input: "?", A: "no", B: "GHRSST"})
		Expect(err).To(MatchError(judge.ErrUnparsable))
		Expect(err.Error()).To(ContainSubstring(`"winner" is repeated`))
	})

	It("fills a prompt template with what the grader is shown", func() {
		srv, got := grader(llm.ProviderOpenAI, `{"score":1,"reason":"r"}`)
		g, err := judge.New(context.Background(), llm.Endpoint{Provider: "openai", BaseURL: srv.URL + "/v1", Model: "m"}, "k", http.DefaultClient, "Grade «{{.Answer}}» by «{{.Rubric}}»")
		Expect(err).NotTo(HaveOccurred())
		_, _, err = g.Grade(context.Background(), subject)
		Expect(err).NotTo(HaveOccurred())
		msgs := (*got)["messages"].([]any)
		Expect(msgs).To(HaveLen(1))
		Expect(msgs[0].(map[string]any)["content"]).To(Equal("Grade «GHRSST is a data set.» by «It names the data set»"))
	})
})
