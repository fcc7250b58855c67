package proxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/proxy"
	"github.com/agentreplay/testbed/harness/standin"
)

const logicalAnthropic = "https://api.anthropic.com"

// urls is a session transport that answers 200 {} and keeps the URLs it
// was asked for.
type urls struct {
	mu   sync.Mutex
	seen []string
}

func (u *urls) RoundTrip(r *http.Request) (*http.Response, error) {
	u.mu.Lock()
	u.seen = append(u.seen, r.URL.String())
	u.mu.Unlock()
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{}`)), Request: r}, nil
}

func (u *urls) Close() error { return nil }

// kept is a session transport that answers 200 {} and keeps the last
// request it was given.
type kept struct{ req *http.Request }

func (k *kept) RoundTrip(r *http.Request) (*http.Response, error) {
	k.req = r
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{}`)), Request: r}, nil
}

func (k *kept) Close() error { return nil }

func (u *urls) last() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.seen[len(u.seen)-1]
}

// routed posts an empty JSON body to path through a session s of p and
// returns the URL the session's transport was asked for.
func routed(p *proxy.Proxy, s proxy.Session, path string) string {
	GinkgoHelper()
	tr := &urls{}
	s.Transport = tr
	id, base := p.Open(s)
	DeferCleanup(p.End, id)
	resp, err := http.Post(base+path, "application/json", strings.NewReader(`{}`))
	Expect(err).NotTo(HaveOccurred())
	resp.Body.Close()
	Expect(resp.StatusCode).To(Equal(http.StatusOK))
	return tr.last()
}

var _ = Describe("the proxy's Anthropic route", func() {
	var p *proxy.Proxy

	BeforeEach(func() {
		p = startProxy()
	})

	DescribeTable("routes each provider's paths to its logical base URL",
		func(s proxy.Session, path, want string) {
			Expect(routed(p, s, path)).To(Equal(want))
		},
		Entry("Anthropic Messages", proxy.Session{Model: logicalModel, Anthropic: logicalAnthropic}, "/v1/messages", logicalAnthropic+"/v1/messages"),
		Entry("Anthropic token counting", proxy.Session{Anthropic: logicalAnthropic}, "/v1/messages/count_tokens", logicalAnthropic+"/v1/messages/count_tokens"),
		Entry("OpenAI beside it", proxy.Session{Model: logicalModel, Anthropic: logicalAnthropic}, "/v1/chat/completions", logicalModel+"/chat/completions"),
		Entry("Gemini beside it", proxy.Session{Gemini: "https://generativelanguage.googleapis.com", Anthropic: logicalAnthropic},
			"/v1beta/models/m:generateContent", "https://generativelanguage.googleapis.com/v1beta/models/m:generateContent"),
		Entry("/v1/messages without Anthropic stays OpenAI's", proxy.Session{Model: logicalModel}, "/v1/messages", logicalModel+"/messages"),
		Entry("Gemini's Interactions API", proxy.Session{Gemini: logicalGemini}, "/v1beta/interactions", logicalGemini+"/v1beta/interactions"),
		Entry("Gemini under /v1, as @google/genai 3 calls it", proxy.Session{Gemini: logicalGemini}, "/v1/models/gemini-3.5-flash:generateContent",
			logicalGemini+"/v1/models/gemini-3.5-flash:generateContent"),
		Entry("the Interactions API under /v1", proxy.Session{Gemini: logicalGemini}, "/v1/interactions", logicalGemini+"/v1/interactions"),
		Entry("any /v1 path when Gemini is the session's only /v1", proxy.Session{Gemini: logicalGemini}, "/v1/models", logicalGemini+"/v1/models"),
		Entry("Gemini's methods under /v1 beside OpenAI", proxy.Session{Model: logicalModel, Gemini: logicalGemini}, "/v1/models/m:embedContent", logicalGemini+"/v1/models/m:embedContent"),
		Entry("OpenAI's own paths beside Gemini", proxy.Session{Model: logicalModel, Gemini: logicalGemini}, "/v1/chat/completions", logicalModel+"/chat/completions"),
		Entry("OpenAI's embeddings beside Gemini", proxy.Session{Gemini: logicalGemini, Embeddings: logicalModel}, "/v1/embeddings", logicalModel+"/embeddings"),
	)

	// An Anthropic client's request beside the Messages API: the models
	// API, which OpenAI and Gemini have at the same paths, told apart by
	// the anthropic-version header every Anthropic SDK sends.
	DescribeTable("routes what Anthropic's clients send to /v1/ to Anthropic, with the session's key as they send it",
		func(s proxy.Session, path string, anthropic bool, want, wantAuth string) {
			tr := &kept{}
			s.Transport, s.Key = tr, "session-key"
			id, base := p.Open(s)
			DeferCleanup(p.End, id)
			req, err := http.NewRequest(http.MethodGet, base+path, nil)
			Expect(err).NotTo(HaveOccurred())
			req.Header.Set("X-Api-Key", "agent-placeholder")
			if anthropic {
				req.Header.Set("Anthropic-Version", "2023-06-01")
			}
			resp, err := http.DefaultClient.Do(req)
			Expect(err).NotTo(HaveOccurred())
			resp.Body.Close()
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			Expect(tr.req.URL.String()).To(Equal(want))
			Expect(tr.req.Header.Get(wantAuth)).To(Or(Equal("session-key"), Equal("Bearer session-key")))
			for _, other := range []string{"Authorization", "X-Api-Key", "X-Goog-Api-Key"} {
				if other != wantAuth {
					Expect(tr.req.Header.Values(other)).To(BeEmpty(), other)
				}
			}
		},
		Entry("a model, Anthropic alone", proxy.Session{Anthropic: logicalAnthropic}, "/v1/models/claude-haiku-4-5", true,
			logicalAnthropic+"/v1/models/claude-haiku-4-5", "X-Api-Key"),
		Entry("the list beside OpenAI", proxy.Session{Model: logicalModel, Anthropic: logicalAnthropic}, "/v1/models?limit=5", true,
			logicalAnthropic+"/v1/models?limit=5", "X-Api-Key"),
		Entry("the list beside Gemini", proxy.Session{Gemini: logicalGemini, Anthropic: logicalAnthropic}, "/v1/models", true,
			logicalAnthropic+"/v1/models", "X-Api-Key"),
		Entry("Messages beside Gemini", proxy.Session{Gemini: logicalGemini, Anthropic: logicalAnthropic}, "/v1/messages", true,
			logicalAnthropic+"/v1/messages", "X-Api-Key"),
		Entry("OpenAI's list without the header stays OpenAI's", proxy.Session{Model: logicalModel, Anthropic: logicalAnthropic}, "/v1/models", false,
			logicalModel+"/models", "Authorization"),
	)

	It("records the official SDK's models calls under Anthropic's logical URL and replays them", func() {
		path, session := greeterSessions(p, "claude-haiku-4-5", func(s *proxy.Session) { s.Anthropic = logicalAnthropic })
		get := func(base string) (*sdk.ModelInfo, error) {
			c := sdk.NewClient(option.WithoutEnvironmentDefaults(), option.WithBaseURL(base), option.WithAPIKey("k"), option.WithMaxRetries(0))
			return c.Models.Get(context.Background(), "claude-haiku-4-5", sdk.ModelGetParams{})
		}
		id, base := session(cassette.ModeRecord)
		recorded, err := get(base)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.End(id)).To(Succeed())
		Expect(recorded.ID).To(Equal("claude-haiku-4-5"))
		Expect(string(recorded.Type)).To(Equal("model"))
		Expect(string(must(readFile(path)))).To(ContainSubstring("url: " + logicalAnthropic + "/v1/models/claude-haiku-4-5"))

		id, base = session(cassette.ModeReplay)
		replayed, err := get(base)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.End(id)).To(Succeed())
		Expect(replayed.RawJSON()).To(Equal(recorded.RawJSON()))
	})

	It("sets the session's base URL and the environment by the endpoint's provider", func() {
		var s proxy.Session
		s.SetModel(llm.Endpoint{Provider: llm.ProviderAnthropic, BaseURL: logicalAnthropic})
		Expect(s).To(Equal(proxy.Session{Anthropic: logicalAnthropic}))
		Expect(proxy.ModelEnv(llm.Endpoint{Provider: llm.ProviderAnthropic}, "http://127.0.0.1:1/s/x")).To(Equal(map[string]string{
			"ANTHROPIC_BASE_URL": "http://127.0.0.1:1/s/x", "ANTHROPIC_API_KEY": cassette.PlaceholderKey}))
	})

	It("records the official SDK's calls under the logical URL, key redacted and version kept, then replays them", func() {
		path, session := greeterSessions(p, "claude-haiku-4-5", func(s *proxy.Session) { s.Anthropic = logicalAnthropic })
		// An outside agent on the official SDK, with the base URL and key
		// testbed gives it.
		ask := func(base string) (*sdk.Message, error) {
			c := sdk.NewClient(option.WithoutEnvironmentDefaults(), option.WithBaseURL(base), option.WithAPIKey("sk-ant-api03-live-key-0123456789abcdef"), option.WithMaxRetries(0))
			return c.Messages.New(context.Background(), sdk.MessageNewParams{
				Model: "claude-haiku-4-5", MaxTokens: 256,
				System:   []sdk.TextBlockParam{{Text: greeterPrompt}},
				Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("Ahoy"))},
			})
		}

		id, base := session(cassette.ModeRecord)
		recorded, err := ask(base)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.End(id)).To(Succeed())
		Expect(recorded.Content[0].Text).To(Equal("You said: Ahoy"))
		data := string(must(readFile(path)))
		Expect(data).To(ContainSubstring("url: " + logicalAnthropic + "/v1/messages"))
		Expect(data).NotTo(ContainSubstring("127.0.0.1"))
		Expect(data).NotTo(ContainSubstring("live-key"))
		Expect(data).To(MatchRegexp(`X-Api-Key:\s+- REDACTED`))
		Expect(data).To(MatchRegexp(`Anthropic-Version:\s+- "?2023-06-01`))

		id, base = session(cassette.ModeReplay)
		replayed, err := ask(base)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.End(id)).To(Succeed())
		Expect(replayed.RawJSON()).To(Equal(recorded.RawJSON()))

		// A call the cassette lacks: the diagnosis in Anthropic's error shape.
		id, base = session(cassette.ModeReplay)
		c := sdk.NewClient(option.WithoutEnvironmentDefaults(), option.WithBaseURL(base), option.WithAPIKey("k"), option.WithMaxRetries(0))
		_, err = c.Messages.New(context.Background(), sdk.MessageNewParams{Model: "claude-haiku-4-5", MaxTokens: 256,
			Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("Something else"))}})
		var apiErr *sdk.Error
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "%v", err)
		Expect(apiErr.StatusCode).To(Equal(http.StatusNotFound))
		var body struct {
			Type  string
			Error struct{ Type, Message string }
		}
		Expect(json.Unmarshal([]byte(apiErr.RawJSON()), &body)).To(Succeed())
		Expect(body.Type).To(Equal("error"))
		Expect(body.Error.Message).To(ContainSubstring("has no match for POST " + logicalAnthropic + "/v1/messages"))
		var miss *cassette.MissError
		Expect(errors.As(p.End(id), &miss)).To(BeTrue())
	})
})

const greeterPrompt = "You are the proxy's greeter."

// greeter is a stand-in policy that repeats what the user said.
type greeter struct{}

func (greeter) Name() string { return "greeter" }

func (greeter) Accepts(r standin.Request) bool { return r.System() == greeterPrompt }

func (greeter) Decide(r standin.Request) (llm.Message, string, error) {
	return llm.Message{Role: llm.RoleAssistant, Content: "You said: " + r.LastUser()}, "", nil
}
