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

// functionsAPI answers the first two Chat Completions calls with a legacy
// function_call each (get_weather for Lyon, then for Nice), whole or as a
// stream, later ones with text, and an upstream with the forecast of the
// city asked.
type functionsAPI struct {
	stream bool
	mu     sync.Mutex
	n      int
}

func (a *functionsAPI) RoundTrip(r *http.Request) (*http.Response, error) {
	body, kind := `{"temp": 9, "station": "`+r.URL.Query().Get("city")+`"}`, "application/json"
	if strings.HasSuffix(r.URL.Path, "/chat/completions") {
		a.mu.Lock()
		a.n++
		n := a.n
		a.mu.Unlock()
		city := map[int]string{1: "Lyon", 2: "Nice"}[n]
		args := fmt.Sprintf(`{\"city\": \"%s\"}`, city)
		switch {
		case n > 2:
			body = `{"id": "chatcmpl-3", "object": "chat.completion", "created": 0, "model": "gpt-3.5-turbo", "choices": [{"index": 0,
				"message": {"role": "assistant", "content": "9 °C and 15 °C"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 30, "completion_tokens": 6, "total_tokens": 36}}`
		case a.stream:
			chunk := func(delta, finish string) string {
				return `data: {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "gpt-3.5-turbo", "choices": [{"index": 0, "delta": ` + delta + `, "finish_reason": ` + finish + `}]}` + "\n\n"
			}
			body = chunk(`{"role": "assistant", "content": null, "function_call": {"name": "get_weather", "arguments": ""}}`, "null") +
				chunk(`{"function_call": {"arguments": "`+args[:7]+`"}}`, "null") + chunk(`{"function_call": {"arguments": "`+args[7:]+`"}}`, "null") +
				chunk(`{}`, `"function_call"`) + "data: [DONE]\n\n"
			kind = "text/event-stream"
		default:
			body = `{"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt-3.5-turbo", "choices": [{"index": 0,
				"message": {"role": "assistant", "content": null, "function_call": {"name": "get_weather", "arguments": "` + args + `"}}, "finish_reason": "function_call"}],
				"usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25}}`
		}
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {kind}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

var _ = DescribeTable("an outside agent on the legacy functions API is scored from its traffic, each function message paired with the call it answers",
	func(stream bool) {
		const functions = `"functions": [{"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]`
		user := `{"role": "user", "content": "Weather in Lyon and Nice?"}`
		turn := func(city, result string) string {
			return `{"role": "assistant", "content": null, "function_call": {"name": "get_weather", "arguments": "{\"city\": \"` + city + `\"}"}}, ` +
				`{"role": "function", "name": "get_weather", "content": "` + result + `"}`
		}
		post := func(messages string) string {
			return `curl -s -X POST "$OPENAI_BASE_URL/chat/completions" -H 'Content-Type: application/json' -d '{"model": "gpt-3.5-turbo", ` +
				fmt.Sprintf(`"stream": %t, `, stream) + `"messages": [` + messages + `], ` + functions + `}' >/dev/null` + "\n"
		}
		script := post(user) + "curl -s \"$WEATHER_BASE_URL/forecast?city=Lyon\" >/dev/null\n" +
			post(user+", "+turn("Lyon", "9 C")) + "curl -s \"$WEATHER_BASE_URL/forecast?city=Nice\" >/dev/null\n" +
			post(user+", "+turn("Lyon", "9 C")+", "+turn("Nice", "15 C"))
		tr := runOver(&functionsAPI{stream: stream}, llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "gpt-3.5-turbo"},
			map[string]string{"weather": "https://weather.example"}, script)
		Expect(tr.calls).To(HaveLen(3))
		Expect(tr.tools).To(Equal([]string{
			`get_weather {"city": "Lyon"} raw={"temp": 9, "station": "Lyon"} context=9 C`,
			`get_weather {"city": "Nice"} raw={"temp": 9, "station": "Nice"} context=15 C`,
		}))
	},
	Entry("answered whole", false),
	Entry("answered as a stream", true),
)
