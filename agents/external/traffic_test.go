package external_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/external"
	"github.com/agentreplay/testbed/agents/llm"
)

// traced keeps the model calls and tool calls read from an agent's traffic.
type traced struct {
	mu    sync.Mutex
	calls []llm.Request
	resps []llm.Response
	tools []string // name, raw and context of each tool call
}

func (t *traced) Tool(name string, args json.RawMessage, raw []byte, context string, _ error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.tools = append(t.tools, name+" "+string(args)+" raw="+string(raw)+" context="+context)
}

func (t *traced) Note(string, any) {}

func (t *traced) ModelCall(req llm.Request, _ string, resp llm.Response, _ error, _ time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.calls, t.resps = append(t.calls, req), append(t.resps, resp)
}

// responsesAPI answers the first /v1/responses call with a function call,
// later ones with text, and an upstream with a forecast.
type responsesAPI struct {
	mu sync.Mutex
	n  int
}

func (a *responsesAPI) RoundTrip(r *http.Request) (*http.Response, error) {
	body := `{"temp": 21, "unit": "C", "station": "Taipei"}`
	if strings.HasSuffix(r.URL.Path, "/v1/responses") {
		a.mu.Lock()
		a.n++
		first := a.n == 1
		a.mu.Unlock()
		output := `[{"type": "message", "id": "msg_2", "status": "completed", "role": "assistant", "content": [{"type": "output_text", "text": "21 °C", "annotations": []}]}]`
		if first {
			output = `[{"type": "function_call", "id": "fc_1", "call_id": "call_w1", "name": "get_weather", "arguments": "{\"city\":\"Taipei\"}", "status": "completed"}]`
		}
		body = `{"id": "resp_1", "object": "response", "created_at": 0, "status": "completed", "model": "gpt-4.1-mini", "output": ` + output + `,
			"usage": {"input_tokens": 30, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 9, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 39}}`
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

var _ = Describe("an outside agent on the Responses API", func() {
	It("is scored from its traffic: model calls, tool calls from function_call items, results from function_call_output items", func() {
		if _, err := exec.LookPath("curl"); err != nil {
			Skip("curl is not installed")
		}
		const tools = `"tools": [{"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]`
		script := `read l
curl -s -X POST "$OPENAI_BASE_URL/responses" -H 'Content-Type: application/json' -d '{"model": "gpt-4.1-mini", "instructions": "You report the weather.", "input": [{"role": "user", "content": "Weather in Taipei?"}], ` + tools + `}' >/dev/null
curl -s "$WEATHER_BASE_URL/forecast?city=Taipei" >/dev/null
curl -s -X POST "$OPENAI_BASE_URL/responses" -H 'Content-Type: application/json' -d '{"model": "gpt-4.1-mini", "instructions": "You report the weather.", "input": [{"role": "user", "content": "Weather in Taipei?"}, {"type": "function_call", "call_id": "call_w1", "name": "get_weather", "arguments": "{\"city\":\"Taipei\"}"}, {"type": "function_call_output", "call_id": "call_w1", "output": "21 C"}], ` + tools + `}' >/dev/null
echo '{"text": "21 °C"}'`
		tr := &traced{}
		cfg := agents.Config{
			HTTP: &http.Client{Transport: &responsesAPI{}}, Tracer: tr, Clock: func() time.Time { return time.Unix(0, 0) },
			Endpoint:  llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "gpt-4.1-mini", API: llm.APIResponses},
			Upstreams: map[string]string{"weather": "https://weather.example"},
		}
		a, err := external.New(external.Spec{Command: []string{"sh", "-c", script}, TurnTimeout: time.Minute}, GinkgoT().TempDir())(cfg)
		Expect(err).NotTo(HaveOccurred())
		ans, err := a.Run(context.Background(), agents.Input{Turns: []string{"Weather in Taipei?"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(ans.Replies[0].Text).To(Equal("21 °C"))

		Expect(tr.calls).To(HaveLen(2))
		Expect(tr.calls[0].Messages).To(Equal([]llm.Message{
			{Role: llm.RoleSystem, Content: "You report the weather."},
			{Role: llm.RoleUser, Content: "Weather in Taipei?"},
		}))
		Expect(tr.calls[0].Tools).To(HaveLen(1))
		Expect(tr.resps[0].Message.ToolCalls).To(HaveLen(1))
		Expect(tr.resps[0].Message.ToolCalls[0].ID).To(Equal("call_w1"))
		Expect(tr.resps[0].FinishReason).To(Equal(llm.FinishToolCalls))
		Expect(tr.resps[0].Usage).To(Equal(llm.Usage{InputTokens: 30, OutputTokens: 9}))
		Expect(tr.calls[1].Messages[3]).To(Equal(llm.Message{Role: llm.RoleTool, ToolCallID: "call_w1", Name: "get_weather", Content: "21 C"}))
		Expect(tr.resps[1].Message.Content).To(Equal("21 °C"))
		Expect(tr.tools).To(Equal([]string{`get_weather {"city":"Taipei"} raw={"temp": 21, "unit": "C", "station": "Taipei"} context=21 C`}))
	})
})
