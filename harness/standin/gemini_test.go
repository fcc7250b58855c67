package standin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/gemini"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/standin"
)

// echoPrompt is the system prompt the echo policy accepts.
const echoPrompt = "You are the echo test."

// echo is a policy for specs of the wire format. When the last message is
// the user's "call <tool> …", it calls each named tool with {"lon": 121.5,
// "lat": 25, "n": <position>}; otherwise it answers with the Request it saw,
// as JSON.
type echo struct{}

func (echo) Name() string { return "echo" }

func (echo) Accepts(r standin.Request) bool { return strings.Contains(r.System(), echoPrompt) }

func (echo) Decide(r standin.Request) (llm.Message, string, error) {
	last := r.Messages[len(r.Messages)-1]
	if names, ok := strings.CutPrefix(last.Content, "call "); ok && last.Role == llm.RoleUser {
		var calls []llm.ToolCall
		for i, name := range strings.Fields(names) {
			args := fmt.Sprintf(`{"lon":121.5,"lat":25,"n":%d}`, i+1)
			calls = append(calls, llm.ToolCall{ID: fmt.Sprintf("call_%d", i+1), Name: name, Arguments: json.RawMessage(args)})
		}
		return llm.Message{Role: llm.RoleAssistant, ToolCalls: calls}, "", nil
	}
	b, err := json.Marshal(r)
	return llm.Message{Role: llm.RoleAssistant, Content: string(b)}, "", err
}

// geminiClient is our Gemini adapter pointed at srv.
func geminiClient(srv *standin.Server, hc *http.Client) llm.Client {
	GinkgoHelper()
	c, err := gemini.New(context.Background(), srv.URL(), "gemini-2.5-flash", "test-key", hc)
	Expect(err).NotTo(HaveOccurred())
	return c
}

// seen is the Request the echo policy answered with.
func seen(resp llm.Response) standin.Request {
	GinkgoHelper()
	var r standin.Request
	Expect(json.Unmarshal([]byte(resp.Message.Content), &r)).To(Succeed(), "echo answer %q", resp.Message.Content)
	return r
}

func echoRequest(msgs ...llm.Message) llm.Request {
	return llm.Request{Messages: append([]llm.Message{{Role: llm.RoleSystem, Content: echoPrompt}}, msgs...)}
}

// sstTools are two tools with JSON Schema parameters.
func sstTools() []llm.Tool {
	return []llm.Tool{
		{Name: "get_sst", Description: "SST at a point.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"lon":{"type":"number"},"lat":{"type":"number"}},"required":["lon","lat"]}`)},
		{Name: "get_date", Description: "Today's date.", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)},
	}
}

// headerRecorder is a transport that keeps the last response's header.
type headerRecorder struct {
	mu     sync.Mutex
	header http.Header
}

func (h *headerRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		h.mu.Lock()
		h.header = resp.Header.Clone()
		h.mu.Unlock()
	}
	return resp, err
}

func (h *headerRecorder) last() http.Header {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.header
}

// wirePost sends a JSON body to srv at path and returns the answer.
func wirePost(srv *standin.Server, method, path, body string) (*http.Response, []byte) {
	GinkgoHelper()
	req, err := http.NewRequest(method, srv.URL()+path, strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return resp, b
}

const generateContent = "/v1beta/models/gemini-2.5-flash:generateContent"

// geminiError is Google's error body.
type geminiError struct {
	Error struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
	} `json:"error"`
}

var _ = Describe("the Gemini wire format", func() {
	var (
		srv   *standin.Server
		model llm.Client
	)

	BeforeEach(func() {
		srv = startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
		model = geminiClient(srv, http.DefaultClient)
	})

	It("returns a tool call as an llm.ToolCall with its name and arguments", func() {
		req := echoRequest(llm.Message{Role: llm.RoleUser, Content: "call get_sst"})
		req.Tools = sstTools()
		resp := chat(model, req)
		Expect(resp.FinishReason).To(Equal(llm.FinishToolCalls))
		Expect(resp.RawFinishReason).To(Equal("STOP"))
		Expect(resp.Message.Content).To(BeEmpty())
		Expect(resp.Message.ToolCalls).To(HaveLen(1))
		tc := resp.Message.ToolCalls[0]
		Expect(tc.Name).To(Equal("get_sst"))
		Expect(string(tc.Arguments)).To(MatchJSON(`{"lon":121.5,"lat":25,"n":1}`))
		Expect(tc.ID).To(BeEmpty(), "Gemini's function calls carry no id")
	})

	It("pairs each tool result with the call of its name, in order", func() {
		req := echoRequest(llm.Message{Role: llm.RoleUser, Content: "call get_sst get_date"})
		req.Tools = sstTools()
		first := chat(model, req)
		Expect(first.Message.ToolCalls).To(HaveLen(2))

		// The results come back in the other order; the date is plain text.
		req.Messages = append(req.Messages, first.Message,
			llm.Message{Role: llm.RoleTool, Name: "get_date", ToolCallID: first.Message.ToolCalls[1].ID, Content: "2025-11-06"},
			llm.Message{Role: llm.RoleTool, Name: "get_sst", ToolCallID: first.Message.ToolCalls[0].ID, Content: `{"sst": 26.4, "unit": "°C"}`})
		r := seen(chat(model, req))
		Expect(r.Messages).To(HaveLen(5))

		calls := r.Messages[2].ToolCalls
		Expect(r.Messages[2].Role).To(Equal(llm.RoleAssistant))
		Expect(calls).To(HaveLen(2))
		Expect([]string{calls[0].ID, calls[0].Name, calls[1].ID, calls[1].Name}).To(Equal([]string{"call_1", "get_sst", "call_2", "get_date"}))
		Expect(string(calls[0].Arguments)).To(MatchJSON(`{"lon":121.5,"lat":25,"n":1}`))

		Expect(r.Messages[3]).To(Equal(llm.Message{Role: llm.RoleTool, Name: "get_date", ToolCallID: "call_2", Content: "2025-11-06"}))
		result := r.Messages[4]
		Expect([]string{result.Role, result.Name, result.ToolCallID}).To(Equal([]string{llm.RoleTool, "get_sst", "call_1"}))
		Expect(result.Content).To(MatchJSON(`{"sst": 26.4, "unit": "°C"}`))
	})

	It("refuses an unknown system prompt with a 400 naming harness/standin", func() {
		_, err := model.Chat(context.Background(), llm.Request{Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are a pirate."}, {Role: llm.RoleUser, Content: "Ahoy"}}})
		var se *llm.StatusError
		Expect(errors.As(err, &se)).To(BeTrue(), "got %v", err)
		Expect(se.Code).To(Equal(http.StatusBadRequest))
		Expect(se.Body).To(ContainSubstring("harness/standin"))
	})

	Describe("faults", func() {
		faulty := func(kind string) *standin.Server {
			return startStandin(standin.Options{Policies: []standin.Policy{echo{}}, FaultRate: 1, Faults: []string{kind}})
		}
		hello := echoRequest(llm.Message{Role: llm.RoleUser, Content: "hello"})

		It("answers 429 in Gemini's error shape, an *llm.StatusError through the adapter", func() {
			srv := faulty(standin.FaultRateLimit)
			_, err := geminiClient(srv, http.DefaultClient).Chat(context.Background(), hello)
			var se *llm.StatusError
			Expect(errors.As(err, &se)).To(BeTrue(), "got %v", err)
			Expect(se.Code).To(Equal(http.StatusTooManyRequests))

			resp, body := wirePost(srv, http.MethodPost, generateContent, `{"systemInstruction":{"parts":[{"text":"`+echoPrompt+`"}]},"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
			Expect(resp.StatusCode).To(Equal(http.StatusTooManyRequests))
			Expect(resp.Header.Get("Retry-After")).NotTo(BeEmpty())
			Expect(resp.Header.Get(cassette.LatencyHeader)).NotTo(BeEmpty())
			var e geminiError
			Expect(json.Unmarshal(body, &e)).To(Succeed(), "body %s", body)
			Expect(e.Error.Code).To(Equal(http.StatusTooManyRequests))
			Expect(e.Error.Status).To(Equal("RESOURCE_EXHAUSTED"))
			Expect(e.Error.Message).To(ContainSubstring("injected"))
		})

		It("answers 500 for the server fault", func() {
			_, err := geminiClient(faulty(standin.FaultServer), http.DefaultClient).Chat(context.Background(), hello)
			var se *llm.StatusError
			Expect(errors.As(err, &se)).To(BeTrue(), "got %v", err)
			Expect(se.Code).To(Equal(http.StatusInternalServerError))
		})

	})

	Describe("on the wire", func() {
		It("answers in generateContent's shape", func() {
			resp, body := wirePost(srv, http.MethodPost, generateContent, `{
				"systemInstruction": {"role": "user", "parts": [{"text": "`+echoPrompt+`"}]},
				"contents": [{"role": "user", "parts": [{"text": "call get_sst"}]}],
				"tools": [{"functionDeclarations": [{"name": "get_sst", "description": "SST at a point.",
					"parameters": {"type": "OBJECT", "properties": {"lon": {"type": "NUMBER"}}}}]}]}`)
			Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", body)
			Expect(resp.Header.Get("Content-Type")).To(Equal("application/json"))
			var u struct {
				UsageMetadata struct{ PromptTokenCount, CandidatesTokenCount int }
			}
			Expect(json.Unmarshal(body, &u)).To(Succeed())
			in, out := u.UsageMetadata.PromptTokenCount, u.UsageMetadata.CandidatesTokenCount
			Expect(in).To(BeNumerically(">", 0))
			Expect(out).To(BeNumerically(">", 0))
			Expect(resp.Header.Get(cassette.LatencyHeader)).To(Equal(standin.DefaultLatency().Of(in, out).String()))
			Expect(strictGemini(body)).To(Succeed())
			Expect(geminiMissing(body, true)).To(BeEmpty())
			id := gjson(body, "responseId")
			Expect(id).To(MatchRegexp(`^[A-Za-z0-9_-]{22}$`))
			Expect(body).To(MatchJSON(fmt.Sprintf(`{
				"candidates": [{"content": {"role": "model", "parts": [
					{"functionCall": {"name": "get_sst", "args": {"lon": 121.5, "lat": 25, "n": 1}}}]},
					"finishReason": "STOP", "index": 0}],
				"usageMetadata": {"promptTokenCount": %d, "candidatesTokenCount": %d, "totalTokenCount": %d,
					"promptTokensDetails": [{"modality": "TEXT", "tokenCount": %d}]},
				"modelVersion": "gemini-2.5-flash",
				"responseId": %q}`, in, out, in+out, in, id)))
		})

		It("gives each distinct request its own responseId, and the same request the same one", func() {
			ask := func(text string) string {
				resp, body := wirePost(srv, http.MethodPost, generateContent, `{
					"systemInstruction": {"parts": [{"text": "`+echoPrompt+`"}]},
					"contents": [{"role": "user", "parts": [{"text": "`+text+`"}]}]}`)
				Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", body)
				return gjson(body, "responseId")
			}
			a := ask("hello there")
			Expect(ask("hello again")).NotTo(Equal(a))
			Expect(ask("hello there")).To(Equal(a))
		})

		It("answers an agent it has never seen with the generic policy", func() {
			resp, body := wirePost(startStandin(standin.Options{}), http.MethodPost, generateContent, `{
				"systemInstruction": {"parts": [{"text": "You help with the weather. Today is 2026-03-02."}]},
				"contents": [{"role": "user", "parts": [{"text": "What is the weather in Oslo tomorrow?"}]}],
				"tools": [{"functionDeclarations": [{"name": "get_weather", "description": "Weather for a city.",
					"parameters": {"type": "OBJECT", "properties": {"city": {"type": "STRING"}, "date": {"type": "STRING"}}, "required": ["city", "date"]}}]}]}`)
			Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", body)
			Expect(resp.Header.Get(cassette.PolicyHeader)).To(Equal(standin.GenericName))
			var out struct {
				Candidates []struct {
					Content struct {
						Parts []struct {
							FunctionCall struct {
								Name string
								Args map[string]any
							}
						}
					}
				}
			}
			Expect(json.Unmarshal(body, &out)).To(Succeed())
			Expect(out.Candidates[0].Content.Parts[0].FunctionCall.Name).To(Equal("get_weather"))
			Expect(out.Candidates[0].Content.Parts[0].FunctionCall.Args).To(Equal(map[string]any{"city": "Oslo", "date": "2026-03-03"}))
		})

		It("reads parameters, whole function responses and mixed user turns", func() {
			resp, body := wirePost(srv, http.MethodPost, generateContent, `{
				"systemInstruction": {"parts": [{"text": "`+echoPrompt+`"}]},
				"contents": [
					{"role": "user", "parts": [{"text": "call get_sst"}]},
					{"role": "model", "parts": [{"text": "Weighing it…", "thought": true}, {"functionCall": {"name": "get_sst", "args": {"lon": 1}}}]},
					{"role": "user", "parts": [{"functionResponse": {"name": "get_sst", "response": {"sst": 26.4}}}, {"text": "and now?"}]}],
				"tools": [{"functionDeclarations": [{"name": "get_sst", "parameters": {"type": "OBJECT"}}]}],
				"generationConfig": {"maxOutputTokens": 4099, "responseMimeType": "application/json"}}`)
			Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", body)
			var out struct {
				Candidates []struct {
					Content struct {
						Parts []struct{ Text string }
					}
				}
			}
			Expect(json.Unmarshal(body, &out)).To(Succeed())
			r := seen(llm.Response{Message: llm.Message{Content: out.Candidates[0].Content.Parts[0].Text}})
			Expect(r.Output).To(Equal(llm.OutputJSON))
			Expect(r.MaxTokens).To(Equal(4099))
			Expect(string(r.Tools[0].Parameters)).To(MatchJSON(`{"type": "OBJECT"}`))
			Expect(r.Messages).To(HaveLen(5))
			Expect(r.Messages[2].Content).To(BeEmpty(), "thoughts are dropped")
			Expect(r.Messages[2].ToolCalls[0].ID).To(Equal("call_1"))
			Expect(r.Messages[3].ToolCallID).To(Equal("call_1"))
			Expect(r.Messages[3].Content).To(MatchJSON(`{"sst": 26.4}`))
			Expect(r.Messages[4]).To(Equal(llm.Message{Role: llm.RoleUser, Content: "and now?"}))
		})

		It("refuses a function response that answers no call", func() {
			resp, body := wirePost(srv, http.MethodPost, generateContent, `{
				"systemInstruction": {"parts": [{"text": "`+echoPrompt+`"}]},
				"contents": [{"role": "user", "parts": [{"functionResponse": {"name": "get_sst", "response": {"result": 1}}}]}]}`)
			Expect(resp.StatusCode).To(Equal(http.StatusBadRequest))
			var e geminiError
			Expect(json.Unmarshal(body, &e)).To(Succeed(), "body %s", body)
			Expect(e.Error.Status).To(Equal("INVALID_ARGUMENT"))
			Expect(e.Error.Message).To(Equal("Please ensure that function response turn comes immediately after a function call turn."))
		})

		DescribeTable("answers what is not POST …/models/<model>:generateContent in Gemini's error shape, never a bare 404",
			func(method, path string, status int, name string) {
				resp, body := wirePost(srv, method, path, `{"contents": []}`)
				Expect(resp.StatusCode).To(Equal(status), "body %s", body)
				Expect(resp.Header.Get("Content-Type")).To(HavePrefix("application/json"))
				var e struct {
					Error struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
						Status  string `json:"status"`
					} `json:"error"`
				}
				d := json.NewDecoder(bytes.NewReader(body))
				d.DisallowUnknownFields()
				Expect(d.Decode(&e)).To(Succeed(), "body %s", body)
				Expect(e.Error.Code).To(Equal(status))
				Expect(e.Error.Status).To(Equal(name))
				Expect(e.Error.Message).To(ContainSubstring(":generateContent"))
			},
			Entry("embedContent by GET", http.MethodGet, "/v1beta/models/text-embedding-004:embedContent", http.StatusNotFound, "NOT_FOUND"),
			Entry("batchGenerateContent", http.MethodPost, "/v1beta/models/gemini-2.5-flash:batchGenerateContent", http.StatusNotImplemented, "UNIMPLEMENTED"),
			Entry("a method the API does not have", http.MethodPost, "/v1beta/models/gemini-2.5-flash:dream", http.StatusNotFound, "NOT_FOUND"),
			Entry("GET", http.MethodGet, generateContent, http.StatusNotFound, "NOT_FOUND"),
			Entry("the model list by POST (it serves GET)", http.MethodPost, "/v1beta/models", http.StatusNotFound, "NOT_FOUND"),
			Entry("files", http.MethodPost, "/v1beta/files", http.StatusNotFound, "NOT_FOUND"),
			Entry("no models/ segment", http.MethodPost, "/v1beta/gemini-2.5-flash:generateContent", http.StatusNotFound, "NOT_FOUND"),
			Entry("no model", http.MethodPost, "/v1beta/models/:generateContent", http.StatusNotFound, "NOT_FOUND"),
		)
	})
})
