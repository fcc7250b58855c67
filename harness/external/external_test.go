package external_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/external"
)

// notes keeps what an agent traces.
type notes struct{ keys []string }

func (n *notes) Tool(name string, _ json.RawMessage, _ []byte, _ string, _ error) {
	n.keys = append(n.keys, "tool:"+name)
}
func (n *notes) Note(key string, value any) { n.keys = append(n.keys, key) }

// seen answers every request with an empty JSON object and keeps the URLs
// asked for: one scenario run's cassette.
type seen struct {
	mu   sync.Mutex
	urls []string
}

func (s *seen) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.urls = append(s.urls, r.URL.String())
	s.mu.Unlock()
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("{}"))}, nil
}

func (s *seen) all() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.urls...)
}

// runOnce runs spec once, for one scenario of turns under variant, and
// returns the answer, the traced notes and the run's cassette.
func runOnce(spec external.Spec, variant string, turns ...string) (agents.Answer, *notes, *seen, error) {
	GinkgoHelper()
	tr, cassette := &notes{}, &seen{}
	cfg := agents.Config{
		HTTP: &http.Client{Transport: cassette}, Tracer: tr, Clock: func() time.Time { return time.Unix(0, 0) },
		Endpoint:  llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "m"},
		Upstreams: map[string]string{"notes": "https://notes.example"}, Variant: map[string]any{"v": variant},
	}
	a, err := external.New(spec, GinkgoT().TempDir())(cfg)
	Expect(err).NotTo(HaveOccurred())
	ans, err := a.Run(context.Background(), agents.Input{Turns: turns})
	return ans, tr, cassette, err
}

func runScript(script string, timeout time.Duration, turns ...string) (agents.Answer, error) {
	GinkgoHelper()
	ans, _, _, err := runOnce(external.Spec{Command: []string{"sh", "-c", script}, TurnTimeout: timeout}, "", turns...)
	return ans, err
}

var _ = Describe("an outside agent", func() {
	It("answers each turn with a JSON line, and may report notes", func() {
		ans, err := runScript(`while read l; do echo '{"text":"hi","data":{"n":1},"notes":[{"key":"route","value":{"mode":"chat"}}]}'; done`, time.Minute, "a", "b")
		Expect(err).NotTo(HaveOccurred())
		Expect(ans.Replies).To(HaveLen(2))
		Expect(ans.Replies[1].Text).To(Equal("hi"))
		Expect(ans.Replies[1].Data).To(Equal(map[string]any{"n": 1.0}))
	})

	DescribeTable("starts a program named by a path relative to its folder, under a project root given relative too",
		func(dir string, command string) {
			// A root below the working folder, named relative to it, as
			// testbed run --root proj names it.
			rel, err := os.MkdirTemp(".", "project-")
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(os.RemoveAll, rel)
			Expect(os.MkdirAll(filepath.Join(rel, "bin"), 0o755)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(rel, "bin", "agent.sh"), []byte("#!/bin/sh\nwhile read l; do echo '{\"text\":\"hi\"}'; done\n"), 0o755)).To(Succeed())
			a, err := external.New(external.Spec{Command: []string{command}, Dir: dir, TurnTimeout: time.Minute}, rel)(agents.Config{
				HTTP: &http.Client{Transport: &seen{}}, Tracer: &notes{}, Clock: func() time.Time { return time.Unix(0, 0) },
				Endpoint: llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "m"},
			})
			Expect(err).NotTo(HaveOccurred())
			ans, err := a.Run(context.Background(), agents.Input{Turns: []string{"a"}})
			Expect(err).NotTo(HaveOccurred())
			Expect(ans.Replies[0].Text).To(Equal("hi"))
		},
		Entry("./ in the root's folder", "bin", "./agent.sh"),
		Entry("a folder below the root's", ".", "bin/agent.sh"),
	)

	It("passes over what a library logs to stdout (lines that are not JSON, JSON log records) and reads the reply after it", func() {
		ans, err := runScript(`read l; printf '\033[32mINFO\033[39m: [lib] sending out request\n\n[debug] done\n'; `+
			`echo '{"level":30,"time":1,"msg":"request sent"}'; echo '{"time":"t","level":"INFO","msg":"slog"}'; `+
			`echo '{"event":"called","levelname":"INFO"}'; echo '{"severity":"INFO","message":"gcp"}'; echo '{"text":"hi"}'`, time.Minute, "a")
		Expect(err).NotTo(HaveOccurred())
		Expect(ans.Replies[0].Text).To(Equal("hi"))
	})

	It("gets its whole last reply even when it exits at once after writing it", func() {
		ans, err := runScript(`read l; printf '{"text":"'; head -c 300000 /dev/zero | tr '\000' a; printf '"}\n'`, time.Minute, "a")
		Expect(err).NotTo(HaveOccurred())
		Expect(ans.Replies[0].Text).To(HaveLen(300000))
	})

	It("sees its base URLs and the scenario's clock in its environment, and none of testbed's keys", func() {
		GinkgoT().Setenv("OPENAI_ORG_ID", "org-secret")
		ans, err := runScript(`read l; printf '{"text":"%s %s %s"}\n' "$OPENAI_BASE_URL" "$TESTBED_NOW" "${OPENAI_ORG_ID:-none}"`, time.Minute, "a")
		Expect(err).NotTo(HaveOccurred())
		Expect(ans.Replies[0].Text).To(MatchRegexp(`^http://127\.0\.0\.1:\d+/s/[0-9a-f]+/v1 1970-01-01T00:00:00Z none$`))
	})

	DescribeTable("fails its scenario with a clear reason",
		func(script string, timeout time.Duration, want string) {
			_, err := runScript(script, timeout, "a")
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(want))
		},
		Entry("a command that is not found", "exec /no/such/program", time.Minute, "exited before it answered"),
		Entry("a program that exits early, with its stderr", "echo 'config missing' >&2; exit 3", time.Minute, "exited before it answered (exit status 3); its stderr ends: config missing"),
		Entry("only lines that are not JSON, which it quotes", "read l; echo 'hello there'", time.Minute, "its output ends: hello there"),
		Entry("no answer in time, quoting what it logged to stdout and stderr", "read l; echo 'INFO waiting'; echo 'still waiting' >&2; sleep 5", 200*time.Millisecond, "the agent did not answer within 200ms; its output ends: "),
		Entry("a JSON line without text", `read l; echo '{"answer":"x"}'`, time.Minute, "is not a reply"),
		Entry("JSON log records only, which it quotes", `read l; echo '{"level":30,"msg":"ready"}'`, time.Minute, `its output ends: {"level":30,"msg":"ready"}`),
		Entry("no answer in time", "read l; sleep 5", 200*time.Millisecond, "the agent did not answer within 200ms"),
	)

	DescribeTable("quotes the end of its stderr in whole words, so that a key the 300 bytes would cut is quoted whole (the detector then replaces it) or not at all",
		func(key string, whole bool) {
			// The key ends 250 bytes before the end: a cut at 300 bytes falls inside it.
			_, err := runScript(`echo "auth failed with key `+key+` `+strings.Repeat("x", 50)+` `+strings.Repeat("y", 197)+`" >&2; exit 3`, time.Minute, "a")
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring("its stderr ends: …"))
			if whole {
				Expect(err.Error()).To(ContainSubstring("its stderr ends: …" + key + " "))
			} else {
				Expect(err.Error()).To(ContainSubstring("its stderr ends: … " + strings.Repeat("x", 50)))
				Expect(err.Error()).NotTo(ContainSubstring(key[len(key)-40:]), "no part of it")
			}
		},
		Entry("an Anthropic key", "sk-ant-api03-"+strings.Repeat("Ab3_", 23)+"AA", true),
		Entry("a word longer than 512 bytes", strings.Repeat("Zq9", 200), false),
	)

	DescribeTable("fails its scenario, naming the host, when it calls a host it was not given",
		func(target, want string) {
			if _, err := exec.LookPath("curl"); err != nil {
				Skip("curl is not installed")
			}
			// curl reads http_proxy and HTTPS_PROXY as SDKs do.
			_, err := runScript(`read l; curl -s -o /dev/null `+target+`; echo '{"text":"done"}'`, time.Minute, "a")
			Expect(err).To(MatchError(external.ErrEscaped))
			Expect(err.Error()).To(ContainSubstring("the agent called " + want + " directly"))
			Expect(err.Error()).NotTo(ContainSubstring("secret"), "a query may carry a key")
			Expect(err.Error()).To(ContainSubstring("name that host as an upstream"))
		},
		Entry("over http", "http://api.example.com/v1/forecast?key=secret", "http://api.example.com/v1/forecast"),
		Entry("over https (CONNECT)", "https://api.example.com/v1/forecast", "api.example.com:443"),
	)

	DescribeTable("says, when the host it called is its model's own, that a client in it ignores the base URL it was given, not to name an upstream",
		func(target, want string) {
			if _, err := exec.LookPath("curl"); err != nil {
				Skip("curl is not installed")
			}
			// As the OpenAI Agents SDK for Python's trace exporter does
			// (httpx reads HTTPS_PROXY) when tracing is on.
			_, err := runScript(`read l; curl -s -o /dev/null -X POST `+target+`; echo '{"text":"done"}'`, time.Minute, "a")
			Expect(err).To(MatchError(external.ErrEscaped))
			Expect(err.Error()).To(ContainSubstring("the agent called " + want + " directly"))
			Expect(err.Error()).To(ContainSubstring("that is the host of the model's own API (https://api.openai.com/v1)"))
			Expect(err.Error()).To(ContainSubstring("OPENAI_AGENTS_DISABLE_TRACING=1"))
			Expect(err.Error()).NotTo(ContainSubstring("name that host as an upstream"))
		},
		Entry("over https (CONNECT)", "https://api.openai.com/v1/traces/ingest", "api.openai.com:443"),
		Entry("over http, the host in another case", "http://API.openai.com/v1/traces/ingest", "http://API.openai.com/v1/traces/ingest"),
	)

	It("needs a command", func() {
		_, err := external.New(external.Spec{}, ".")(agents.Config{})
		Expect(err).To(MatchError(ContainSubstring("no command")))
	})
})

var _ = Describe("the proxy an outside agent is reached through", func() {
	// baseOf runs a program that answers with its OPENAI_BASE_URL, with
	// cache as the run's.
	baseOf := func(cache *agents.Cache) string {
		GinkgoHelper()
		cfg := agentConfig(&seen{}, &notes{})
		cfg.Cache = cache
		a, err := external.New(external.Spec{Command: []string{"sh", "-c", `read l; printf '{"text":"%s"}\n' "$OPENAI_BASE_URL"`}}, GinkgoT().TempDir())(cfg)
		Expect(err).NotTo(HaveOccurred())
		ans, err := a.Run(context.Background(), agents.Input{Turns: []string{"a"}})
		Expect(err).NotTo(HaveOccurred())
		u, err := url.Parse(ans.Replies[0].Text)
		Expect(err).NotTo(HaveOccurred())
		return "http://" + u.Host + "/"
	}
	listening := func(base string) bool {
		resp, err := http.Get(base)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return true
	}

	It("is the run's: one for every agent of the run, closed when the run closes its cache", func() {
		cache := &agents.Cache{}
		first := baseOf(cache)
		Expect(baseOf(cache)).To(Equal(first))
		Expect(listening(first)).To(BeTrue())
		Expect(cache.Close()).To(Succeed())
		Expect(listening(first)).To(BeFalse(), "the run's proxy outlived it")
	})

	It("is the scenario run's own, closed when it ends, without a run's cache", func() {
		Expect(listening(baseOf(nil))).To(BeFalse())
	})
})
