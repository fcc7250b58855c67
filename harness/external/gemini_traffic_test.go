package external_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
)

// geminiAPI answers the first two generateContent calls with a function
// call each (get_weather for Lyon, then for Nice; with ids made from id,
// none when it is ""), later ones with text, and an upstream with the
// forecast of the city asked.
type geminiAPI struct {
	id string
	mu sync.Mutex
	n  int
}

func (a *geminiAPI) RoundTrip(r *http.Request) (*http.Response, error) {
	body := `{"temp": 9, "station": "` + r.URL.Query().Get("city") + `"}`
	if strings.HasSuffix(r.URL.Path, ":generateContent") {
		a.mu.Lock()
		a.n++
		n := a.n
		a.mu.Unlock()
		part := `{"text": "9 °C and 15 °C"}`
		if n <= 2 {
			part = `{"functionCall": ` + geminiCall(a.id, n) + `}`
		}
		body = `{"candidates": [{"content": {"role": "model", "parts": [` + part + `]}, "finishReason": "STOP", "index": 0}],
			"usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 5, "totalTokenCount": 25}, "modelVersion": "gemini-2.5-flash"}`
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

// geminiCall is the n-th get_weather call (Lyon, then Nice), with the id
// made from id when it is not "".
func geminiCall(id string, n int) string {
	city := map[int]string{1: "Lyon", 2: "Nice"}[n]
	if id != "" {
		return fmt.Sprintf(`{"id": "%s-%d", "name": "get_weather", "args": {"city": "%s"}}`, id, n, city)
	}
	return fmt.Sprintf(`{"name": "get_weather", "args": {"city": "%s"}}`, city)
}

// geminiResult is the functionResponse to the n-th call.
func geminiResult(id string, n int) string {
	result := map[int]string{1: "9 C", 2: "15 C"}[n]
	if id != "" {
		return fmt.Sprintf(`{"id": "%s-%d", "name": "get_weather", "response": {"result": "%s"}}`, id, n, result)
	}
	return fmt.Sprintf(`{"name": "get_weather", "response": {"result": "%s"}}`, result)
}

var _ = DescribeTable("an outside agent on Gemini is scored from its traffic, each functionResponse paired with the call it answers",
	func(id string) {
		tr := runGemini(id)
		Expect(tr.calls).To(HaveLen(3))
		Expect(tr.tools).To(Equal([]string{
			`get_weather {"city": "Lyon"} raw={"temp": 9, "station": "Lyon"} context=9 C`,
			`get_weather {"city": "Nice"} raw={"temp": 9, "station": "Nice"} context=15 C`,
		}))
	},
	Entry("calls without ids, as the Gemini API sends them", ""),
	Entry("calls with ids, as newer models send them", "fc-7d2a"),
)

var _ = It("reads an outside agent's Gemini calls alike whatever ids its client makes up, so that two replays of one recording read, and count, the same", func() {
	a, b := runGemini("APpNHg7OGFrXHhQP"), runGemini("x9")
	Expect(b.calls).To(Equal(a.calls))
	Expect(b.resps).To(Equal(a.resps))
	Expect(b.tools).To(Equal(a.tools))
})

// runGemini runs a script that asks the weather in Lyon and Nice through
// geminiAPI{id}, sending its calls back with their ids.
func runGemini(id string) *traced {
	GinkgoHelper()
	const tools = `"tools": [{"functionDeclarations": [{"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]}]`
	url := `"$GEMINI_BASE_URL/v1beta/models/gemini-2.5-flash:generateContent"`
	user := `{"role": "user", "parts": [{"text": "Weather in Lyon and Nice?"}]}`
	turn := func(n int) string {
		return `{"role": "model", "parts": [{"functionCall": ` + geminiCall(id, n) + `}]}, {"role": "user", "parts": [{"functionResponse": ` + geminiResult(id, n) + `}]}`
	}
	post := func(contents string) string {
		return `curl -s -X POST ` + url + ` -H 'Content-Type: application/json' -d '{"contents": [` + contents + `], ` + tools + `}' >/dev/null` + "\n"
	}
	script := post(user) + "curl -s \"$WEATHER_BASE_URL/forecast?city=Lyon\" >/dev/null\n" +
		post(user+", "+turn(1)) + "curl -s \"$WEATHER_BASE_URL/forecast?city=Nice\" >/dev/null\n" +
		post(user+", "+turn(1)+", "+turn(2))
	return runOver(&geminiAPI{id: id}, llm.Endpoint{Provider: llm.ProviderGemini, BaseURL: "https://generativelanguage.googleapis.com", Model: "gemini-2.5-flash"},
		map[string]string{"weather": "https://weather.example"}, script)
}

// geminiArrayAPI answers streamGenerateContent as Gemini does without
// alt=sse: one JSON array of chunks, the text in two, then a function call.
type geminiArrayAPI struct{}

func (geminiArrayAPI) RoundTrip(r *http.Request) (*http.Response, error) {
	body := `[{"candidates": [{"content": {"role": "model", "parts": [{"text": "Looking it "}]}, "index": 0}],
  "usageMetadata": {"promptTokenCount": 20, "totalTokenCount": 20}, "modelVersion": "gemini-2.5-flash"}
,` + "\r\n" + `{"candidates": [{"content": {"role": "model", "parts": [{"text": "up."}, {"functionCall": {"name": "get_weather", "args": {"city": "Lyon"}}}]},
  "finishReason": "STOP", "index": 0}], "usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 7, "totalTokenCount": 27}, "modelVersion": "gemini-2.5-flash"}
]`
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json; charset=UTF-8"}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

var _ = Describe("an outside agent on Gemini streaming without alt=sse", func() {
	It("reads the answer sent as one JSON array of chunks as the stream it is", func() {
		tr := runOver(geminiArrayAPI{}, llm.Endpoint{Provider: llm.ProviderGemini, BaseURL: "https://generativelanguage.googleapis.com", Model: "gemini-2.5-flash"}, nil,
			`curl -s -X POST "$GEMINI_BASE_URL/v1beta/models/gemini-2.5-flash:streamGenerateContent" -H 'Content-Type: application/json' -d '{"contents": [{"role": "user", "parts": [{"text": "Weather in Lyon?"}]}]}' >/dev/null`)
		Expect(tr.calls).To(HaveLen(1))
		Expect(tr.errs[0]).NotTo(HaveOccurred())
		Expect(tr.resps[0].Message.Content).To(Equal("Looking it up."))
		Expect(tr.resps[0].Message.ToolCalls).To(HaveLen(1))
		Expect(tr.resps[0].Message.ToolCalls[0].Name).To(Equal("get_weather"))
		Expect(tr.resps[0].Usage).To(Equal(llm.Usage{InputTokens: 20, OutputTokens: 7}))
	})
})

// geminiCacheAPI answers a cachedContents create with its name, and
// generateContent with text.
type geminiCacheAPI struct{}

func (geminiCacheAPI) RoundTrip(r *http.Request) (*http.Response, error) {
	body := `{"candidates": [{"content": {"role": "model", "parts": [{"text": "High water at 14:52."}]}, "finishReason": "STOP", "index": 0}],
		"usageMetadata": {"promptTokenCount": 60, "cachedContentTokenCount": 50, "candidatesTokenCount": 6, "totalTokenCount": 66}, "modelVersion": "gemini-2.5-flash"}`
	if strings.HasSuffix(r.URL.Path, "/cachedContents") {
		body = `{"name": "cachedContents/k3x9", "model": "models/gemini-2.5-flash", "usageMetadata": {"totalTokenCount": 50}}`
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

var _ = Describe("an outside agent on Gemini with a cached content", func() {
	It("reads a call naming the cache it made with the cache's instruction, tools and contents first, as Gemini does", func() {
		tr := runOver(geminiCacheAPI{}, llm.Endpoint{Provider: llm.ProviderGemini, BaseURL: "https://generativelanguage.googleapis.com", Model: "gemini-2.5-flash"}, nil,
			`curl -s -X POST "$GEMINI_BASE_URL/v1beta/cachedContents" -H 'Content-Type: application/json' -d '{"model": "models/gemini-2.5-flash", "ttl": "600s",
  "systemInstruction": {"parts": [{"text": "You read tide reports."}]},
  "contents": [{"role": "user", "parts": [{"text": "The tide report: high water 14:52 at Keelung."}]}],
  "tools": [{"functionDeclarations": [{"name": "tide_table"}]}]}' >/dev/null
curl -s -X POST "$GEMINI_BASE_URL/v1beta/models/gemini-2.5-flash:generateContent" -H 'Content-Type: application/json' -d '{"cachedContent": "cachedContents/k3x9", "contents": [{"role": "user", "parts": [{"text": "When is high water?"}]}]}' >/dev/null`)
		Expect(tr.calls).To(HaveLen(1), "the cache's creation is no model call")
		Expect(tr.errs[0]).NotTo(HaveOccurred())
		req := tr.calls[0]
		Expect(req.Messages).To(HaveLen(3))
		Expect(req.Messages[0]).To(Equal(llm.Message{Role: llm.RoleSystem, Content: "You read tide reports."}))
		Expect(req.Messages[1].Content).To(ContainSubstring("high water 14:52"))
		Expect(req.Messages[2].Content).To(Equal("When is high water?"))
		Expect(req.Tools).To(HaveLen(1))
		Expect(tr.resps[0].Usage.CacheReadTokens).To(Equal(50))
	})
})

var _ = Describe("an outside agent on Gemini with a built-in tool", func() {
	It("counts the tokens the tool's results added to the prompt (toolUsePromptTokenCount) as input, as Gemini bills them", func() {
		api := answering{body: `{"candidates": [{"content": {"role": "model", "parts": [{"text": "Rain in Lyon."}]}, "finishReason": "STOP", "index": 0}],
			"usageMetadata": {"promptTokenCount": 20, "toolUsePromptTokenCount": 200, "candidatesTokenCount": 5, "thoughtsTokenCount": 10, "totalTokenCount": 235}, "modelVersion": "gemini-2.5-flash"}`}
		tr := runOver(api, llm.Endpoint{Provider: llm.ProviderGemini, BaseURL: "https://generativelanguage.googleapis.com", Model: "gemini-2.5-flash"}, nil,
			`curl -s -X POST "$GEMINI_BASE_URL/v1beta/models/gemini-2.5-flash:generateContent" -H 'Content-Type: application/json' -d '{"contents": [{"role": "user", "parts": [{"text": "Weather in Lyon?"}]}], "tools": [{"googleSearch": {}}]}' >/dev/null`)
		Expect(tr.errs[0]).NotTo(HaveOccurred())
		Expect(tr.resps[0].Usage).To(Equal(llm.Usage{InputTokens: 220, OutputTokens: 15, ReasoningTokens: 10}))
	})
})
