package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"

	anthropic "github.com/anthropics/anthropic-sdk-go"
	anthropicopt "github.com/anthropics/anthropic-sdk-go/option"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/openai/openai-go/v3"
	openaiopt "github.com/openai/openai-go/v3/option"
	"google.golang.org/genai"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/proxy"
)

const logicalGemini = "https://generativelanguage.googleapis.com"

// counted is an HTTP client that counts the requests an SDK sends.
func counted(n *atomic.Int32) *http.Client {
	return &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		n.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})}
}

// An official SDK, with its default retries, asking base with text; it
// returns the status, the raw body and the SDK's error.
type sdkCall func(base, text string, hc *http.Client) (status int, raw string, err error)

var (
	openAICall sdkCall = func(base, text string, hc *http.Client) (int, string, error) {
		c := openai.NewClient(openaiopt.WithBaseURL(base+"/v1"), openaiopt.WithAPIKey(cassette.PlaceholderKey), openaiopt.WithHTTPClient(hc))
		_, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "gpt-4.1-mini",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(greeterPrompt), openai.UserMessage(text)}})
		var e *openai.Error
		if errors.As(err, &e) {
			// The SDK's Error() leaves the message out; its fields keep it.
			_, body, _ := strings.Cut(string(e.DumpResponse(true)), "\r\n\r\n")
			return e.StatusCode, body, fmt.Errorf("%w: %s", err, e.Message)
		}
		return 0, "", err
	}
	// retryingCall posts a chat completion as a client that retries a 408,
	// 409, 429 or 5xx four times, whatever the headers say.
	retryingCall sdkCall = func(base, text string, hc *http.Client) (int, string, error) {
		body := fmt.Sprintf(`{"model": "gpt-4.1-mini", "messages": [{"role": "system", "content": %q}, {"role": "user", "content": %q}]}`, greeterPrompt, text)
		for try := 0; ; try++ {
			resp, err := hc.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(body))
			if err != nil {
				return 0, "", err
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			retry := resp.StatusCode >= 500 || slices.Contains([]int{408, 409, 429}, resp.StatusCode)
			if !retry || try == 4 {
				if resp.StatusCode >= 400 {
					return resp.StatusCode, string(raw), fmt.Errorf("%d: %s", resp.StatusCode, raw)
				}
				return resp.StatusCode, string(raw), nil
			}
		}
	}
	anthropicCall sdkCall = func(base, text string, hc *http.Client) (int, string, error) {
		c := anthropic.NewClient(anthropicopt.WithoutEnvironmentDefaults(), anthropicopt.WithBaseURL(base), anthropicopt.WithAPIKey(cassette.PlaceholderKey), anthropicopt.WithHTTPClient(hc))
		_, err := c.Messages.New(context.Background(), anthropic.MessageNewParams{Model: "claude-haiku-4-5", MaxTokens: 256,
			System: []anthropic.TextBlockParam{{Text: greeterPrompt}}, Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(text))}})
		var e *anthropic.Error
		if errors.As(err, &e) {
			return e.StatusCode, e.RawJSON(), err
		}
		return 0, "", err
	}
	geminiCall   = geminiCallAt("")
	geminiV1Call = geminiCallAt("v1") // the version @google/genai 3 calls by default
)

// geminiCallAt is a call of google.golang.org/genai at API version (""
// for the SDK's own).
func geminiCallAt(version string) sdkCall {
	return func(base, text string, hc *http.Client) (int, string, error) {
		c, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: cassette.PlaceholderKey, Backend: genai.BackendGeminiAPI,
			HTTPClient: hc, HTTPOptions: genai.HTTPOptions{BaseURL: base, APIVersion: version}})
		Expect(err).NotTo(HaveOccurred())
		_, err = c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", genai.Text(text),
			&genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText(greeterPrompt, genai.RoleUser)})
		var e genai.APIError
		if errors.As(err, &e) {
			raw, _ := json.Marshal(map[string]any{"error": e})
			return e.Code, string(raw), err
		}
		return 0, "", err
	}
}

// in the shape of each provider's own errors
func openAIShape(raw string) string {
	var b struct {
		Error struct {
			Message, Type string
			Param         *string
			Code          *string
		}
	}
	Expect(json.Unmarshal([]byte(raw), &b)).To(Succeed())
	Expect(b.Error.Type).NotTo(BeEmpty())
	Expect(b.Error.Code).NotTo(BeNil())
	Expect(raw).To(ContainSubstring(`"param":null`))
	return b.Error.Message
}

func anthropicShape(raw string) string {
	var b struct {
		Type  string
		Error struct{ Type, Message string }
	}
	Expect(json.Unmarshal([]byte(raw), &b)).To(Succeed())
	Expect(b.Type).To(Equal("error"))
	Expect(b.Error.Type).NotTo(BeEmpty())
	return b.Error.Message
}

func geminiShape(status string) func(raw string) string {
	return func(raw string) string {
		var b struct {
			Error struct {
				Code            int
				Message, Status string
			}
		}
		Expect(json.Unmarshal([]byte(raw), &b)).To(Succeed())
		Expect(b.Error.Code).NotTo(BeZero())
		Expect(b.Error.Status).To(Equal(status))
		return b.Error.Message
	}
}

var _ = Describe("the proxy's errors", func() {
	var p *proxy.Proxy

	BeforeEach(func() {
		p = startProxy()
	})

	DescribeTable("answer a replay miss once, 404 in the provider's own shape, and neither the official SDK nor a client that retries every 5xx asks again",
		func(call sdkCall, with func(*proxy.Session), logical string, shape func(raw string) string) {
			_, session := greeterSessions(p, "m", with)
			var n atomic.Int32
			id, base := session(cassette.ModeRecord)
			_, _, err := call(base, "Ahoy", counted(&n))
			Expect(err).NotTo(HaveOccurred())
			Expect(p.End(id)).To(Succeed())

			n.Store(0)
			id, base = session(cassette.ModeReplay)
			status, raw, err := call(base, "Something else", counted(&n))
			Expect(err).To(HaveOccurred())
			Expect(n.Load()).To(BeEquivalentTo(1), "the SDK sent a deterministic miss again")
			Expect(status).To(Equal(http.StatusNotFound))
			Expect(shape(raw)).To(ContainSubstring("has no match for POST " + logical))
			Expect(err.Error()).To(ContainSubstring("has no match for POST"))
			var miss *cassette.MissError
			Expect(errors.As(p.End(id), &miss)).To(BeTrue())
		},
		Entry("openai-go", openAICall, func(s *proxy.Session) { s.Model = logicalModel }, logicalModel+"/chat/completions", openAIShape),
		Entry("a client that reads no x-should-retry and retries every 5xx (Gemini's Interactions client, LangChain's)", retryingCall,
			func(s *proxy.Session) { s.Model = logicalModel }, logicalModel+"/chat/completions", openAIShape),
		Entry("anthropic-sdk-go", anthropicCall, func(s *proxy.Session) { s.Anthropic = logicalAnthropic }, logicalAnthropic+"/v1/messages", anthropicShape),
		Entry("google.golang.org/genai", geminiCall, func(s *proxy.Session) { s.Gemini = logicalGemini }, logicalGemini+"/v1beta/models/gemini-2.5-flash:generateContent",
			geminiShape("NOT_FOUND")),
		Entry("google.golang.org/genai at /v1", geminiV1Call, func(s *proxy.Session) { s.Gemini = logicalGemini }, logicalGemini+"/v1/models/gemini-2.5-flash:generateContent",
			geminiShape("NOT_FOUND")),
	)

	DescribeTable("refuse a request body over the session's limit with 413 in the provider's shape, naming the limit",
		func(call sdkCall, with func(*proxy.Session), shape func(raw string) string) {
			tr := &urls{}
			s := proxy.Session{Transport: tr, MaxBody: 4 << 10}
			with(&s)
			id, base := p.Open(s)
			var n atomic.Int32
			status, raw, err := call(base, strings.Repeat("a long prompt ", 1000), counted(&n))
			Expect(err).To(HaveOccurred())
			Expect(n.Load()).To(BeEquivalentTo(1))
			Expect(status).To(Equal(http.StatusRequestEntityTooLarge))
			Expect(shape(raw)).To(ContainSubstring("the request body is over the proxy's 4KiB limit"))
			Expect(tr.seen).To(BeEmpty(), "nothing reached the cassette")

			// Without a Content-Length, it is cut at the limit.
			_, err = http.Post(base+"/v1/chat/completions", "application/json", io.MultiReader(strings.NewReader(`{"x":"`), bytes.NewReader(make([]byte, 8<<10))))
			Expect(err).NotTo(HaveOccurred())
			Expect(tr.seen).To(BeEmpty())

			err = p.End(id)
			Expect(err != nil).To(BeTrue(), "got %v", err)
			Expect(err.Error()).To(ContainSubstring("raise it with agent: max_request_body"))
		},
		Entry("openai-go", openAICall, func(s *proxy.Session) { s.Model = logicalModel }, openAIShape),
		Entry("anthropic-sdk-go", anthropicCall, func(s *proxy.Session) { s.Anthropic = logicalAnthropic }, anthropicShape),
		Entry("google.golang.org/genai", geminiCall, func(s *proxy.Session) { s.Gemini = logicalGemini }, geminiShape("INVALID_ARGUMENT")),
	)

	It("bounds bodies at 32MiB by default", func() {
		tr := &urls{}
		id, base := p.Open(proxy.Session{Transport: tr, Model: logicalModel})
		resp, err := http.Post(base+"/v1/chat/completions", "application/json", bytes.NewReader(make([]byte, proxy.DefaultMaxBody+1)))
		Expect(err).NotTo(HaveOccurred())
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusRequestEntityTooLarge))
		Expect(string(body)).To(ContainSubstring("over the proxy's 32MiB limit"))
		resp, err = http.Post(base+"/v1/chat/completions", "application/json", bytes.NewReader(make([]byte, 1<<20)))
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(errors.Is(p.End(id), proxy.ErrTooLarge)).To(BeTrue())
	})
})
