package proxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/proxy"
)

// to sends every request to base's host, as the runner's routing sends a
// logical host to its stand-in.
type to struct{ base *url.URL }

func (t to) RoundTrip(r *http.Request) (*http.Response, error) {
	out := r.Clone(r.Context())
	out.URL.Scheme, out.URL.Host, out.Host = t.base.Scheme, t.base.Host, t.base.Host
	return http.DefaultTransport.RoundTrip(out)
}

const (
	logicalModel    = "https://api.openai.com/v1"
	logicalUpstream = "http://homeassistant.local:8123"
)

var _ = Describe("the proxy", func() {
	var (
		p        *proxy.Proxy
		path     string
		model    *url.URL
		upstream *httptest.Server
	)

	BeforeEach(func() {
		p = startProxy()
		Expect(p.URL()).To(HavePrefix("http://127.0.0.1:"))
		// A model that echoes the question: what it answers is beside the point.
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var req struct{ Messages []struct{ Content string } }
			json.NewDecoder(r.Body).Decode(&req)
			last := req.Messages[len(req.Messages)-1].Content
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4.1-mini",
				"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": "You asked: " + last}}}})
		}))
		DeferCleanup(srv.Close)
		model, _ = url.Parse(srv.URL)
		upstream = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"path":"`+r.URL.Path+`","q":"`+r.URL.RawQuery+`"}`)
		}))
		DeferCleanup(upstream.Close)
		path = filepath.Join(GinkgoT().TempDir(), "ac1.yaml")
	})

	// session opens a session on the cassette at path in mode.
	session := func(mode cassette.Mode, real http.RoundTripper) (string, string) {
		GinkgoHelper()
		tr, err := cassette.Open(mode, path, cassette.Options{Real: real, Provenance: cassette.Provenance{Model: "m", StandIn: true}})
		Expect(err).NotTo(HaveOccurred())
		return p.Open(proxy.Session{Transport: tr, Model: logicalModel, Upstreams: map[string]string{"homeassistant": logicalUpstream}})
	}

	// ask is an agent on the official OpenAI SDK, pointed at base/v1.
	ask := func(base, question string) (*openai.ChatCompletion, error) {
		client := openai.NewClient(option.WithBaseURL(base+"/v1"), option.WithAPIKey(cassette.PlaceholderKey), option.WithMaxRetries(0))
		return client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
			Model:    "gpt-4.1-mini",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("You answer briefly."), openai.UserMessage(question)},
		})
	}

	get := func(u string) (int, string) {
		GinkgoHelper()
		resp, err := http.Get(u)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}

	It("records an SDK's calls under the logical URLs, then replays them to the same SDK", func() {
		id, base := session(cassette.ModeRecord, to{model})
		recorded, err := ask(base, "What is the sea surface temperature near Taiwan?")
		Expect(err).NotTo(HaveOccurred())
		Expect(recorded.Choices).NotTo(BeEmpty())
		Expect(p.End(id)).To(Succeed())

		data := string(must(readFile(path)))
		Expect(data).To(ContainSubstring("url: " + logicalModel + "/chat/completions"))
		Expect(data).NotTo(ContainSubstring("127.0.0.1"))

		id, base = session(cassette.ModeReplay, nil)
		replayed, err := ask(base, "What is the sea surface temperature near Taiwan?")
		Expect(err).NotTo(HaveOccurred())
		Expect(replayed.Choices[0].Message.Content).To(Equal(recorded.Choices[0].Message.Content))
		Expect(p.End(id)).To(Succeed())
	})

	It("answers a replay miss with the diagnosis, and the session ends with it", func() {
		id, base := session(cassette.ModeRecord, to{model})
		_, err := ask(base, "What is the sea surface temperature near Taiwan?")
		Expect(err).NotTo(HaveOccurred())
		Expect(p.End(id)).To(Succeed())

		id, base = session(cassette.ModeReplay, nil)
		_, err = ask(base, "And near Hawaii?")
		var apiErr *openai.Error
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "%v", err)
		Expect(apiErr.StatusCode).To(Equal(http.StatusNotFound))
		Expect(apiErr.Message).To(ContainSubstring("has no match for POST " + logicalModel + "/chat/completions"))
		Expect(apiErr.Message).To(ContainSubstring("/messages/1/content"))
		var miss *cassette.MissError
		Expect(errors.As(p.End(id), &miss)).To(BeTrue())
		Expect(miss.Cassette).To(Equal(path))
	})

	It("forwards /upstream/<name>/… to the upstream's logical URL, query and all", func() {
		up, _ := url.Parse(upstream.URL)
		id, base := session(cassette.ModeRecord, to{up})
		code, body := get(base + "/upstream/homeassistant/api/history/period?filter_entity_id=sensor.a")
		Expect(code).To(Equal(http.StatusOK))
		Expect(body).To(Equal(`{"path":"/api/history/period","q":"filter_entity_id=sensor.a"}`))
		Expect(p.End(id)).To(Succeed())
		Expect(string(must(readFile(path)))).To(ContainSubstring("url: " + logicalUpstream + "/api/history/period?filter_entity_id=sensor.a"))
	})

	DescribeTable("refuses what it cannot place, with a 404 that says why",
		func(target func(base string) string, header string, want string) {
			_, base := session(cassette.ModeRecord, nil)
			req, _ := http.NewRequest(http.MethodGet, target(base), nil)
			if header != "" {
				req.Header.Set(proxy.SessionHeader, header)
			}
			resp, err := http.DefaultClient.Do(req)
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
			var body struct{ Error struct{ Message string } }
			Expect(json.NewDecoder(resp.Body).Decode(&body)).To(Succeed())
			Expect(body.Error.Message).To(ContainSubstring(want))
		},
		Entry("no session", func(base string) string { return strings.Split(base, "/s/")[0] + "/v1/models" }, "", "no session"),
		Entry("a session it did not issue", func(base string) string { return strings.Split(base, "/s/")[0] + "/s/0123456789abcdef/v1/models" }, "",
			`session "0123456789abcdef" was not issued by this proxy`),
		Entry("a forged header", func(base string) string { return strings.Split(base, "/s/")[0] + "/v1/models" }, "forged", `session "forged" was not issued`),
		Entry("an upstream the session lacks", func(base string) string { return base + "/upstream/citycatalyst/api" }, "", `no upstream "citycatalyst" in this session (upstreams: homeassistant)`),
		Entry("a path no provider has", func(base string) string { return base + "/v2/things" }, "", "no route for /v2/things"),
	)

	It("puts a real key on model calls in place of the agent's placeholder, and the recording redacts it", func() {
		var seen []http.Header
		rt := roundTrip(func(r *http.Request) (*http.Response, error) {
			seen = append(seen, r.Header.Clone())
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(`{}`)), Request: r}, nil
		})
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: rt, Secrets: []string{"sk-real-0123456789abcdef"}, Provenance: cassette.Provenance{Model: "m"}})
		Expect(err).NotTo(HaveOccurred())
		id, base := p.Open(proxy.Session{Transport: tr, Model: logicalModel, Gemini: "https://generativelanguage.googleapis.com",
			Anthropic: "https://api.anthropic.com", Upstreams: map[string]string{"homeassistant": logicalUpstream}, Key: "sk-real-0123456789abcdef"})
		send := func(path string, header ...string) {
			req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(`{}`))
			for i := 0; i+1 < len(header); i += 2 {
				req.Header.Set(header[i], header[i+1])
			}
			resp, err := http.DefaultClient.Do(req)
			Expect(err).NotTo(HaveOccurred())
			resp.Body.Close()
		}
		send("/v1/chat/completions", "Authorization", "Bearer "+cassette.PlaceholderKey)
		send("/v1beta/models/gemini-2.5-flash:generateContent", "X-Goog-Api-Key", cassette.PlaceholderKey)
		send("/upstream/homeassistant/api/states", "Authorization", "Bearer ha-token")
		send("/v1/messages", "X-Api-Key", cassette.PlaceholderKey)
		send("/v1/interactions", "X-Goog-Api-Key", cassette.PlaceholderKey)
		Expect(p.End(id)).To(Succeed())
		Expect(seen).To(HaveLen(5))
		Expect(seen[4].Get("X-Goog-Api-Key")).To(Equal("sk-real-0123456789abcdef"), "Gemini's Interactions API under /v1")
		Expect(seen[4].Get("Authorization")).To(BeEmpty())
		Expect(seen[3].Get("X-Api-Key")).To(Equal("sk-real-0123456789abcdef"))
		Expect(seen[3].Get("Authorization")).To(BeEmpty())
		Expect(seen[0].Get("Authorization")).To(Equal("Bearer sk-real-0123456789abcdef"))
		Expect(seen[1].Get("X-Goog-Api-Key")).To(Equal("sk-real-0123456789abcdef"))
		Expect(seen[1].Get("Authorization")).To(BeEmpty())
		Expect(seen[2].Get("Authorization")).To(Equal("Bearer ha-token"), "an upstream keeps what the agent sent")
		Expect(string(must(readFile(path)))).NotTo(ContainSubstring("sk-real-0123456789abcdef"))
	})

	It("refuses a call to a host the agent was not given, and the session ends with ErrEscaped", func() {
		id, _ := session(cassette.ModeRecord, nil)
		client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(mustURL(proxy.ForwardProxy(p.URL() + "/s/" + id)))}}
		resp, err := client.Get("http://api.example.com/v1/forecast?key=abc")
		Expect(err).NotTo(HaveOccurred())
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusForbidden))
		Expect(string(body)).To(ContainSubstring("the agent called http://api.example.com/v1/forecast directly"))
		_, err = client.Get("https://api.example.com/v1/forecast")
		Expect(err).To(HaveOccurred(), "CONNECT is refused")
		err = p.End(id)
		Expect(errors.Is(err, proxy.ErrEscaped)).To(BeTrue(), "got %v", err)
		Expect(err.Error()).To(ContainSubstring("api.example.com:443"))
	})

	It("refuses an ended session", func() {
		id, base := session(cassette.ModeRecord, nil)
		Expect(p.End(id)).To(Succeed())
		code, body := get(base + "/v1/models")
		Expect(code).To(Equal(http.StatusNotFound))
		Expect(body).To(ContainSubstring("has ended"))
	})

	It("serves an alias as the session bound to it, and refuses it between runs", func() {
		up, _ := url.Parse(upstream.URL)
		alias, abase := p.Alias()
		Expect(abase).To(Equal(p.URL() + "/a/" + alias))
		code, body := get(abase + "/upstream/homeassistant/api/states")
		Expect(code).To(Equal(http.StatusNotFound))
		Expect(body).To(ContainSubstring("stands for no scenario run now"))

		first, _ := session(cassette.ModeRecord, to{up})
		Expect(p.Bind(alias, first)).To(Succeed())
		code, _ = get(abase + "/upstream/homeassistant/api/states")
		Expect(code).To(Equal(http.StatusOK))
		Expect(p.Bind(alias, "")).To(Succeed())
		Expect(p.End(first)).To(Succeed())
		Expect(string(must(readFile(path)))).To(ContainSubstring("url: " + logicalUpstream + "/api/states"))

		// The next run's calls go to its own cassette, never the first's.
		path = filepath.Join(GinkgoT().TempDir(), "ac2.yaml")
		second, _ := session(cassette.ModeRecord, to{up})
		Expect(p.Bind(alias, second)).To(Succeed())
		code, _ = get(abase + "/upstream/homeassistant/api/config")
		Expect(code).To(Equal(http.StatusOK))
		Expect(p.End(second)).To(Succeed())
		data := string(must(readFile(path)))
		Expect(data).To(ContainSubstring("/api/config"))
		Expect(data).NotTo(ContainSubstring("/api/states"))

		Expect(p.Bind("0123456789abcdef", second)).To(MatchError(ContainSubstring("no alias")))
		Expect(p.Bind(alias, "0123456789abcdef")).To(MatchError(ContainSubstring("no session")))
		code, body = get(p.URL() + "/a/0123456789abcdef/v1/models")
		Expect(code).To(Equal(http.StatusNotFound))
		Expect(body).To(ContainSubstring("was not issued by this proxy"))
	})
})

// roundTrip is a function as an http.RoundTripper.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
