package external_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin"
)

// tideAPI is a model provider at the paths ending in suffix, beside an
// upstream that answers the tide table of the port asked. Answer gives the
// provider's response to a request (its body sent), the first call's or a
// later one's.
type tideAPI struct {
	suffix string
	answer func(r *http.Request, sent string, first bool) *http.Response

	mu sync.Mutex
	n  int
}

func (a *tideAPI) RoundTrip(r *http.Request) (*http.Response, error) {
	if !strings.HasSuffix(r.URL.Path, a.suffix) {
		return answered(r, "application/json", `{"port": "`+r.URL.Query().Get("port")+`", "high": "14:52"}`), nil
	}
	sent, _ := io.ReadAll(r.Body)
	a.mu.Lock()
	a.n++
	first := a.n == 1
	a.mu.Unlock()
	return a.answer(r, string(sent), first), nil
}

// answered is a 200 answer to r of contentType carrying body.
func answered(r *http.Request, contentType, body string) *http.Response {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {contentType}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}
}

// ollamaAPI answers Ollama's /api/chat as a local server does, whole or
// streamed as the request asks (newline-delimited JSON, the default): the
// first call with a tide_table call (no id, as Ollama sends them), later
// ones with text.
func ollamaAPI() *tideAPI {
	return &tideAPI{suffix: "/api/chat", answer: func(r *http.Request, sent string, first bool) *http.Response {
		const head = `{"model": "qwen3:14b", "created_at": "2026-03-02T08:00:00.1Z", `
		message := `"message": {"role": "assistant", "content": "High water at 14:52."}`
		if first {
			message = `"message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "tide_table", "arguments": {"port": "Brest"}}}]}`
		}
		done := `"done": true, "done_reason": "stop", "total_duration": 812000000, "load_duration": 1000000, "prompt_eval_count": 52, "prompt_eval_duration": 90000000, "eval_count": 11, "eval_duration": 700000000}`
		if strings.Contains(sent, `"stream": false`) {
			return answered(r, "application/json; charset=utf-8", head+message+", "+done)
		}
		chunks := head + `"message": {"role": "assistant", "content": "High water "}, "done": false}` + "\n" +
			head + `"message": {"role": "assistant", "content": "at 14:52."}, "done": false}` + "\n"
		if first {
			chunks = head + message + `, "done": false}` + "\n"
		}
		chunks += head + `"message": {"role": "assistant", "content": ""}, ` + done + "\n"
		return answered(r, "application/x-ndjson", chunks)
	}}
}

var _ = DescribeTable("an outside agent on Ollama's native chat is scored from its traffic: its calls, tokens, tool calls and results",
	func(stream string) {
		const tools = `"tools": [{"type": "function", "function": {"name": "tide_table", "parameters": {"type": "object", "properties": {"port": {"type": "string"}}}}}]`
		user := `{"role": "system", "content": "You keep a harbour log."}, {"role": "user", "content": "High tide at Brest?"}`
		turn := `{"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "tide_table", "arguments": {"port": "Brest"}}}]}, {"role": "tool", "tool_name": "tide_table", "content": "high water 14:52"}`
		post := func(messages string) string {
			return `curl -s -X POST "$OLLAMA_HOST/api/chat" -d '{"model": "qwen3:14b", ` + stream + `"messages": [` + messages + `], ` + tools + `, "options": {"num_predict": 200}}' >/dev/null` + "\n"
		}
		tr := runOver(ollamaAPI(), llm.Endpoint{Provider: llm.ProviderOllama, BaseURL: llm.OllamaBaseURL, Model: "qwen3:14b"},
			map[string]string{"tides": "https://tides.example"},
			post(user)+`curl -s "$TIDES_BASE_URL/table?port=Brest" >/dev/null`+"\n"+post(user+", "+turn))

		Expect(tr.calls).To(HaveLen(2))
		Expect(tr.errs).To(Equal([]error{nil, nil}))
		Expect(tr.models).To(Equal([]string{"qwen3:14b", "qwen3:14b"}))
		Expect(tr.calls[0].Messages[0]).To(Equal(llm.Message{Role: llm.RoleSystem, Content: "You keep a harbour log."}))
		Expect(tr.calls[0].Tools).To(HaveLen(1))
		Expect(tr.calls[0].MaxTokens).To(Equal(200))
		Expect(tr.resps[0].Usage).To(Equal(llm.Usage{InputTokens: 52, OutputTokens: 11}))
		Expect(tr.resps[0].FinishReason).To(Equal(llm.FinishToolCalls))
		Expect(tr.resps[0].Message.ToolCalls).To(HaveLen(1))
		Expect(tr.resps[0].Message.ToolCalls[0].Name).To(Equal("tide_table"))
		Expect(tr.resps[1].Message.Content).To(Equal("High water at 14:52."))
		Expect(tr.resps[1].FinishReason).To(Equal(llm.FinishStop))
		Expect(tr.tools).To(Equal([]string{`tide_table {"port": "Brest"} raw={"port": "Brest", "high": "14:52"} context=high water 14:52`}))
	},
	Entry("whole answers (stream: false)", `"stream": false, `),
	Entry("streamed answers (newline-delimited JSON, Ollama's default)", ``),
)

var _ = DescribeTable("an outside agent on Ollama's native chat reaches the session by the variable its client reads",
	func(variable string) {
		tr := runOver(ollamaAPI(), llm.Endpoint{Provider: llm.ProviderOllama, BaseURL: llm.OllamaBaseURL, Model: "qwen3:14b"}, nil,
			`curl -s -X POST "$`+variable+`/api/chat" -d '{"model": "qwen3:14b", "stream": false, "messages": [{"role": "user", "content": "Tide?"}]}' >/dev/null`)
		Expect(tr.calls).To(HaveLen(1))
		Expect(tr.errs).To(Equal([]error{nil}))
		Expect(tr.resps[0].Usage).To(Equal(llm.Usage{InputTokens: 52, OutputTokens: 11}))
	},
	Entry("OLLAMA_HOST: the official Python and Go clients", "OLLAMA_HOST"),
	Entry("OLLAMA_BASE_URL: LangChain.js's ChatOllama and OllamaEmbeddings", "OLLAMA_BASE_URL"),
)

var _ = It("takes an upstream's own /api/chat (a web app's chat route) for a tool's payload, not for a call to the agent's model", func() {
	tr := runOver(ollamaAPI(), llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "m"},
		map[string]string{"helpdesk": "https://helpdesk.example"},
		`curl -s -X POST "$HELPDESK_BASE_URL/api/chat" -d '{"model": "qwen3:14b", "stream": false, "messages": [{"role": "user", "content": "Ticket 7?"}]}' >/dev/null`)
	Expect(tr.calls).To(BeEmpty())
})

// ollamaBrokenStream streams an /api/chat answer that a server error
// cuts short: a piece of text, then an error line.
type ollamaBrokenStream struct{}

func (ollamaBrokenStream) RoundTrip(r *http.Request) (*http.Response, error) {
	body := `{"model": "qwen3:14b", "message": {"role": "assistant", "content": "High "}, "done": false}` + "\n" +
		`{"error": "model runner has unexpectedly stopped"}` + "\n"
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/x-ndjson"}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

var _ = It("reads an Ollama stream cut short by an error line as the failed call the agent saw", func() {
	tr := runOver(ollamaBrokenStream{}, llm.Endpoint{Provider: llm.ProviderOllama, BaseURL: llm.OllamaBaseURL, Model: "qwen3:14b"}, nil,
		`curl -s -X POST "$OLLAMA_HOST/api/chat" -d '{"model": "qwen3:14b", "messages": [{"role": "user", "content": "Tide?"}]}' >/dev/null`)
	Expect(tr.calls).To(HaveLen(1))
	Expect(tr.errs[0]).To(MatchError(ContainSubstring("unexpectedly stopped")))
})

// ollamaCompletion answers Ollama's /api/generate, streamed.
type ollamaCompletion struct{}

func (ollamaCompletion) RoundTrip(r *http.Request) (*http.Response, error) {
	body := `{"model": "gemma3:4b", "response": "High water ", "done": false}` + "\n" +
		`{"model": "gemma3:4b", "response": "at 14:52.", "done": false}` + "\n" +
		`{"model": "gemma3:4b", "response": "", "done": true, "done_reason": "stop", "context": [7, 8], "prompt_eval_count": 21, "eval_count": 6}` + "\n"
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/x-ndjson"}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

var _ = It("scores a completion on Ollama's native API (/api/generate): its system prompt and prompt, its text and tokens", func() {
	tr := runOver(ollamaCompletion{}, llm.Endpoint{Provider: llm.ProviderOllama, BaseURL: llm.OllamaBaseURL, Model: "gemma3:4b"}, nil,
		`curl -s -X POST "$OLLAMA_HOST/api/generate" -d '{"model": "gemma3:4b", "system": "You keep a harbour log.", "prompt": "High tide at Brest?"}' >/dev/null`)
	Expect(tr.calls).To(HaveLen(1))
	Expect(tr.errs).To(Equal([]error{nil}))
	Expect(tr.calls[0].Messages).To(Equal([]llm.Message{{Role: llm.RoleSystem, Content: "You keep a harbour log."}, {Role: llm.RoleUser, Content: "High tide at Brest?"}}))
	Expect(tr.resps[0].Message.Content).To(Equal("High water at 14:52."))
	Expect(tr.resps[0].Usage).To(Equal(llm.Usage{InputTokens: 21, OutputTokens: 6}))
})

// ollamaEmbed answers Ollama's embeddings as a local server does: …/api/embed
// with a vector per input and the count, the older …/api/embeddings with
// one vector and no count; anything else (an upstream) with a body of its
// own.
type ollamaEmbed struct{}

func (ollamaEmbed) RoundTrip(r *http.Request) (*http.Response, error) {
	body := `{"matches": 3}`
	switch {
	case strings.HasPrefix(r.URL.Host, "helpdesk"):
	case strings.HasSuffix(r.URL.Path, "/api/embed"):
		body = `{"model": "nomic-embed-text", "embeddings": [[0.1, 0.2], [0.3, 0.4]], "total_duration": 14000000, "load_duration": 1000, "prompt_eval_count": 7}`
	case strings.HasSuffix(r.URL.Path, "/api/embeddings"):
		body = `{"embedding": [0.5, 0.6]}`
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json; charset=utf-8"}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

var _ = It("scores an outside agent's embeddings on Ollama's native API (/api/embed, and the older /api/embeddings), not an upstream's own /api/embed", func() {
	tr := runOver(ollamaEmbed{}, llm.Endpoint{Provider: llm.ProviderOllama, BaseURL: llm.OllamaBaseURL, Model: "qwen3:14b"},
		map[string]string{"helpdesk": "https://helpdesk.example"},
		`curl -s -X POST "$OLLAMA_HOST/api/embed" -d '{"model": "nomic-embed-text", "input": ["tide at Brest", "neap tide"]}' >/dev/null`+"\n"+
			`curl -s -X POST "$OLLAMA_HOST/api/embeddings" -d '{"model": "all-minilm", "prompt": "spring tide"}' >/dev/null`+"\n"+
			`curl -s -X POST "$HELPDESK_BASE_URL/api/embed" -d '{"model": "nomic-embed-text", "input": "ticket 7"}' >/dev/null`)
	Expect(tr.embeds).To(Equal([]string{
		`nomic-embed-text ["tide at Brest" "neap tide"] tokens=0 reported=7`,
		`all-minilm ["spring tide"] tokens=0 reported=-1`,
	}))
	Expect(tr.calls).To(BeEmpty())
})

// harbourmaster is a stand-in policy: it asks tide_table for Brest, then,
// once the result is back, says it.
type harbourmaster struct{}

func (harbourmaster) Name() string { return "harbourmaster" }

func (harbourmaster) Accepts(r standin.Request) bool { return r.System() == "You keep a harbour log." }

func (harbourmaster) Decide(r standin.Request) (llm.Message, string, error) {
	last := r.Messages[len(r.Messages)-1]
	if last.Role == llm.RoleTool {
		return llm.Message{Role: llm.RoleAssistant, Content: "Brest: " + last.Content + "."}, "", nil
	}
	return llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "tide_table", Arguments: json.RawMessage(`{"port":"Brest"}`)}}}, "", nil
}

// toServer sends every request to the server at base, keeping its path.
type toServer struct{ base *url.URL }

func (t toServer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = t.base.Scheme, t.base.Host, t.base.Host
	return http.DefaultTransport.RoundTrip(r)
}

var _ = It("scores an outside agent on Ollama's native chat from what the stand-in answers it, streamed and whole", func() {
	srv, err := standin.New(standin.Options{Policies: []standin.Policy{harbourmaster{}}})
	Expect(err).NotTo(HaveOccurred())
	Expect(srv.Start()).To(Succeed())
	DeferCleanup(srv.Close)
	base, err := url.Parse(srv.URL())
	Expect(err).NotTo(HaveOccurred())

	const tools = `"tools": [{"type": "function", "function": {"name": "tide_table", "parameters": {"type": "object", "properties": {"port": {"type": "string"}}}}}]`
	user := `{"role": "system", "content": "You keep a harbour log."}, {"role": "user", "content": "High tide at Brest?"}`
	turn := `{"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "tide_table", "arguments": {"port": "Brest"}}}]}, {"role": "tool", "tool_name": "tide_table", "content": "high water 14:52"}`
	tr := runOver(toServer{base}, llm.Endpoint{Provider: llm.ProviderOllama, BaseURL: llm.OllamaBaseURL, Model: "qwen3:14b"}, nil,
		`curl -s -X POST "$OLLAMA_HOST/api/chat" -d '{"model": "qwen3:14b", "messages": [`+user+`], `+tools+`}' >/dev/null`+"\n"+
			`curl -s -X POST "$OLLAMA_HOST/api/chat" -d '{"model": "qwen3:14b", "stream": false, "messages": [`+user+`, `+turn+`], `+tools+`}' >/dev/null`)

	Expect(tr.calls).To(HaveLen(2))
	Expect(tr.errs).To(Equal([]error{nil, nil}))
	Expect(tr.resps[0].Message.ToolCalls).To(HaveLen(1), "read from the stream")
	Expect(tr.resps[0].FinishReason).To(Equal(llm.FinishToolCalls))
	Expect(tr.resps[1].Message.Content).To(Equal("Brest: high water 14:52."))
	for _, r := range tr.resps {
		Expect(r.Usage.InputTokens).To(BeNumerically(">", 0))
		Expect(r.Usage.OutputTokens).To(BeNumerically(">", 0))
	}
	Expect(tr.tools).To(Equal([]string{`tide_table {"port":"Brest"} raw=high water 14:52 context=high water 14:52`}))
})
