package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"gopkg.in/yaml.v3"
)

// serving runs a serving command (proxy, standin) in-process until ctx ends,
// and returns the lines it printed up to the one starting with "# Ctrl-C".
func serving(ctx context.Context, args ...string) (env []string, done <-chan result) {
	GinkgoHelper()
	pr, pw := io.Pipe()
	out := make(chan result, 1)
	go func() {
		defer GinkgoRecover()
		var stderr bytes.Buffer
		code := run(ctx, args, pw, &stderr)
		pw.Close()
		out <- result{code: code, stderr: stderr.String()}
	}()
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "# Ctrl-C") {
			go io.Copy(io.Discard, pr)
			return env, out
		}
		env = append(env, sc.Text())
	}
	r := <-out
	Fail("the command ended before serving: " + r.String())
	return nil, nil
}

// recordedRequests are a cassette's requests: method, URL, body and headers.
type recordedRequests struct {
	Interactions []struct {
		Request struct {
			Method, URL, Body string
			Headers           map[string][]string
		} `yaml:"request"`
	} `yaml:"interactions"`
}

// mcpSession are the statuses of ac1-taiwan-sst's calls: the router's,
// then the GHRSST MCP session's initialize, notifications/initialized,
// tools/call and DELETE.
var mcpSession = []int{200, 200, 202, 200, 204}

var _ = Describe("testbed proxy", func() {
	var root string
	BeforeEach(func() { root = project() })

	// replay sends every request of the scenario's cassette to the session,
	// the model's (under TESTBED_MODEL_URL, or the suite's own) under OPENAI_BASE_URL and the upstream's under
	// GHRSST_BASE_URL, with body changed by edit. It keeps the MCP headers
	// an MCP client sends: Accept and Mcp-Protocol-Version as recorded, and
	// the Mcp-Session-Id its initialize was answered with.
	replay := func(env []string, edit func(string) string) []int {
		GinkgoHelper()
		vars := map[string]string{}
		for _, line := range env {
			if k, v, ok := strings.Cut(line, "="); ok {
				vars[k] = v
			}
		}
		Expect(vars).To(HaveKeyWithValue("OPENAI_API_KEY", "testbed-placeholder-key"))
		var c recordedRequests
		Expect(yaml.Unmarshal([]byte(mustRead(cassettePath(root, "single-pass", "ac1-taiwan-sst"))), &c)).To(Succeed())
		var codes []int
		session := ""
		for _, in := range c.Interactions {
			u := strings.Replace(in.Request.URL, vars["TESTBED_MODEL_URL"], vars["OPENAI_BASE_URL"], 1)
			u = strings.Replace(u, "http://localhost:11434/v1", vars["OPENAI_BASE_URL"], 1)
			u = strings.Replace(u, "https://eco.odb.ntu.edu.tw", vars["GHRSST_BASE_URL"], 1)
			Expect(u).To(HavePrefix("http://127.0.0.1:"))
			req, err := http.NewRequest(in.Request.Method, u, strings.NewReader(edit(in.Request.Body)))
			Expect(err).NotTo(HaveOccurred())
			req.Header.Set("Content-Type", "application/json")
			for _, h := range []string{"Accept", "Mcp-Protocol-Version"} {
				if v := in.Request.Headers[h]; len(v) > 0 {
					req.Header.Set(h, v[0])
				}
			}
			if session != "" {
				req.Header.Set("Mcp-Session-Id", session)
			}
			resp, err := http.DefaultClient.Do(req)
			Expect(err).NotTo(HaveOccurred())
			resp.Body.Close()
			if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
				session = id
			}
			codes = append(codes, resp.StatusCode)
		}
		return codes
	}
	args := func() []string {
		return []string{"proxy", "--root", root, "--suite", "odbchat", "--variant", "single-pass", "--scenario", "ac1-taiwan-sst"}
	}

	It("serves a scenario's cassette to any client by base URL, and ends cleanly when every call was made", func() {
		ctx, cancel := context.WithCancel(context.Background())
		env, done := serving(ctx, args()...)
		Expect(replay(env, func(s string) string { return s })).To(Equal(mcpSession))
		cancel()
		var r result
		Eventually(done).WithTimeout(time.Minute).Should(Receive(&r))
		Expect(r.code).To(Equal(exitOK), r.String())
	})

	It("answers a request the cassette lacks with the diagnosis, and exits 3", func() {
		ctx, cancel := context.WithCancel(context.Background())
		env, done := serving(ctx, args()...)
		codes := replay(env, func(s string) string { return strings.Replace(s, `"model":"gemma3:4b"`, `"model":"gemma3:27b"`, 1) })
		Expect(codes[0]).To(Equal(http.StatusNotFound))
		cancel()
		var r result
		Eventually(done).WithTimeout(time.Minute).Should(Receive(&r))
		Expect(r.code).To(Equal(exitStale), r.String())
		Expect(r.stderr).To(ContainSubstring("the session missed the cassette"))
	})

	It("with --record-missing, records only the call the cassette lacks and rewrites it", func() {
		ctx, cancel := context.WithCancel(context.Background())
		env, done := serving(ctx, append(args(), "--record-missing")...)
		// The router's call changes (the stand-in answers it); the upstream's stays and is replayed.
		codes := replay(env, func(s string) string { return strings.Replace(s, "台灣", "臺灣", 1) })
		Expect(codes).To(Equal(mcpSession))
		cancel()
		var r result
		Eventually(done).WithTimeout(time.Minute).Should(Receive(&r))
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stderr).To(ContainSubstring("recorded 1 missing calls into"))
		Expect(r.stderr).To(ContainSubstring("dropped 1 it no longer makes"))
		Expect(mustRead(cassettePath(root, "single-pass", "ac1-taiwan-sst"))).To(ContainSubstring("臺灣"))
	})

	It("records against a real provider with --provider, setting the key itself, and the cassette holds no key", func() {
		const key = "sk-proj-real0123456789abcdefghij"
		GinkgoT().Setenv("OPENAI_API_KEY", key)
		var auth []string
		provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			auth = append(auth, r.Header.Get("Authorization"))
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4.1-mini","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"hello"}}]}`)
		}))
		DeferCleanup(provider.Close)
		ctx, cancel := context.WithCancel(context.Background())
		env, done := serving(ctx, append(args(), "--record", "--provider", "openai", "--model", "gpt-4.1-mini", "--base-url", provider.URL+"/v1")...)
		Expect(env).To(ContainElement("OPENAI_API_KEY=testbed-placeholder-key"))
		Expect(replay(env, func(s string) string { return s })).To(Equal(mcpSession))
		cancel()
		var r result
		Eventually(done).WithTimeout(time.Minute).Should(Receive(&r))
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(auth).To(Equal([]string{"Bearer " + key}))
		text := mustRead(cassettePath(root, "single-pass", "ac1-taiwan-sst"))
		Expect(text).NotTo(ContainSubstring(key))
		Expect(text).To(ContainSubstring("url: " + provider.URL + "/v1/chat/completions"))
		Expect(text).To(ContainSubstring("standin: false"))

		By("replaying the cassette as the model it was recorded with")
		provider.Close()
		GinkgoT().Setenv("OPENAI_API_KEY", "")
		ctx, cancel = context.WithCancel(context.Background())
		env, done = serving(ctx, args()...)
		Expect(env).To(ContainElements("TESTBED_MODEL=gpt-4.1-mini", "TESTBED_MODEL_URL="+provider.URL+"/v1"))
		Expect(replay(env, func(s string) string { return s })).To(Equal(mcpSession))
		cancel()
		Eventually(done).WithTimeout(time.Minute).Should(Receive(&r))
		Expect(r.code).To(Equal(exitOK), r.String())
	})

	It("forwards with --live and writes nothing", func() {
		before := mustRead(cassettePath(root, "single-pass", "ac1-taiwan-sst"))
		ctx, cancel := context.WithCancel(context.Background())
		env, done := serving(ctx, append(args(), "--live")...)
		Expect(replay(env, func(s string) string { return s })).To(Equal(mcpSession))
		cancel()
		var r result
		Eventually(done).WithTimeout(time.Minute).Should(Receive(&r))
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(mustRead(cassettePath(root, "single-pass", "ac1-taiwan-sst"))).To(Equal(before))
	})

	It("refuses --provider in a replay, which calls nothing", func() {
		r := testbed(append(args(), "--provider", "openai", "--model", "m")...)
		Expect(r.code).To(Equal(exitUsage), r.String())
		Expect(r.stderr).To(ContainSubstring("go with --record, --record-missing or --live"))
	})

	It("serves a variant on another provider under that provider's base URL", func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		env, _ := serving(ctx, "proxy", "--root", repoRoot, "--suite", "cba", "--variant", "anthropic", "--scenario", "weather-now-nairobi")
		vars := map[string]string{}
		for _, line := range env {
			if k, v, ok := strings.Cut(line, "="); ok {
				vars[k] = v
			}
		}
		Expect(vars).To(HaveKeyWithValue("ANTHROPIC_API_KEY", "testbed-placeholder-key"))
		Expect(vars).NotTo(HaveKey("OPENAI_BASE_URL"))
		var c recordedRequests
		Expect(yaml.Unmarshal([]byte(mustRead(repoRoot+"/cassettes/cba/anthropic/weather-now-nairobi.yaml")), &c)).To(Succeed())
		first := c.Interactions[0].Request
		Expect(first.URL).To(Equal("https://api.anthropic.com/v1/messages"))
		resp, err := http.Post(vars["ANTHROPIC_BASE_URL"]+"/v1/messages", "application/json", strings.NewReader(first.Body))
		Expect(err).NotTo(HaveOccurred())
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))
		Expect(string(body)).To(ContainSubstring(`"type":"tool_use"`))
	})

	It("needs one scenario", func() {
		r := testbed("proxy", "--root", root, "--suite", "odbchat")
		Expect(r.code).To(Equal(exitUsage))
		Expect(r.stderr).To(ContainSubstring("give --suite, --variant and --scenario"))
	})
})

var _ = Describe("testbed standin", func() {
	It("prints the loopback address of the stand-in model and of every fixture upstream", func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		lines, done := serving(ctx, "standin", "--root", repoRoot)
		text := strings.Join(lines, "\n")
		for _, host := range []string{"localhost:11434", "api.openai.com", "eco.odb.ntu.edu.tw", "homeassistant.local:8123"} {
			Expect(text).To(MatchRegexp(`(?m)^` + strings.ReplaceAll(host, ".", `\.`) + `\s+http://127\.0\.0\.1:\d+$`))
		}
		cancel()
		var r result
		Eventually(done).WithTimeout(time.Minute).Should(Receive(&r))
		Expect(r.code).To(Equal(exitOK), r.String())
	})
})

var _ = Describe("testbed proxy --exec", func() {
	// envOf reads an env dump (KEY=value lines) into what testbed set:
	// without the variables passed on from testbed's own environment or
	// set by the shell, with the session's id and the proxy's port, which
	// change each time, written as placeholders.
	envOf := func(path string) map[string]string {
		GinkgoHelper()
		ids := regexp.MustCompile(`127\.0\.0\.1:\d+|/[sa]/[0-9a-f]{16}|testbed:[0-9a-f]{16}@`)
		out := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(mustRead(path)), "\n") {
			k, v, ok := strings.Cut(line, "=")
			if !ok || slices.Contains([]string{"PATH", "HOME", "LANG", "TMPDIR", "NODE_PATH", "PWD", "OLDPWD", "SHLVL", "_"}, k) {
				continue
			}
			out[k] = ids.ReplaceAllString(v, "<id>")
		}
		return out
	}

	It("starts the agent with the whole environment a run's driver gives it, and prints it", func() {
		root := GinkgoT().TempDir()
		for _, dir := range []string{"scenarios", "cassettes", "fixtures"} {
			Expect(os.CopyFS(filepath.Join(root, dir), os.DirFS(filepath.Join(repoRoot, "examples", "weather-ts", dir)))).To(Succeed())
		}
		suite := filepath.Join(root, "scenarios", "weather-ts.yaml")
		dump := filepath.Join(root, "env")
		replace(suite, "  command: [node, agent.js]\n", "  command: [sh, -c, 'env > \"$DUMP\"; while read -r l; do echo \"{\\\"text\\\": \\\"ok\\\"}\"; done']\n"+
			"  env: {DUMP: "+dump+".driver, GREETING: \"hello world\"}\n", 1)
		replace(suite, "model: gpt-4.1-mini}", "model: gpt-4.1-mini, stream: true}", 1)

		// The driver's, in a run (which fails: the program calls nothing).
		testbed("run", "--root", root, "--scenario", "current-oslo", "--quiet", "--out", "")
		driver := envOf(dump + ".driver")
		Expect(driver).To(HaveKeyWithValue("GREETING", "hello world"))
		Expect(driver).To(HaveKeyWithValue("TESTBED_STREAM", "true"))
		Expect(driver).To(HaveKeyWithValue("TESTBED_NOW", "2026-03-02T08:00:00Z"))

		r := testbed("proxy", "--root", root, "--suite", "weather-ts", "--variant", "default", "--scenario", "current-oslo",
			"--exec", "--", "sh", "-c", `env > "$DUMP.proxy"; echo started`)
		Expect(r.code).To(Equal(exitFailed), "the recorded calls were not made\n%s", r)
		Expect(r.stdout).To(Equal("started\n"), "the agent's own output, and only it, on stdout")
		Expect(envOf(dump + ".driver.proxy")).To(Equal(driver))
		for _, line := range []string{"TESTBED_NOW=2026-03-02T08:00:00Z", "TESTBED_STREAM=true", "TESTBED_MODEL=gpt-4.1-mini"} {
			Expect(r.stderr).To(ContainSubstring("\n" + line + "\n"))
		}
		Expect(r.stderr).To(MatchRegexp(`\nGREETING='\(the suite.*s env: value, not shown\)'\n`), "the agent gets the suite's env: values; the session's log does not")
		Expect(r.stderr).NotTo(ContainSubstring("hello world"))
	})

	It("prints the same environment when it only serves", func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		env, _ := serving(ctx, "proxy", "--root", filepath.Join(repoRoot, "examples", "weather-ts"), "--suite", "weather-ts", "--variant", "default", "--scenario", "current-oslo")
		text := strings.Join(env, "\n")
		for _, k := range []string{"OPENAI_BASE_URL=", "WEATHER_URL=", "TESTBED_NOW=2026-03-02T08:00:00Z", "TESTBED_MODEL=gpt-4.1-mini", "TESTBED_CLOCK_URL=", "TESTBED_VARIANT='{}'\n", "HTTP_PROXY="} {
			Expect(text).To(ContainSubstring("\n" + k))
		}
	})

	It("stops the agent with its process group on an interrupt and exits 130", func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := background(ctx, "proxy", "--root", filepath.Join(repoRoot, "examples", "weather-ts"), "--suite", "weather-ts", "--variant", "default", "--scenario", "current-oslo",
			"--exec", "--", "sleep", "100")
		time.Sleep(300 * time.Millisecond) // the agent has started
		cancel()
		var r result
		Eventually(done).WithTimeout(time.Minute).Should(Receive(&r))
		Expect(r.code).To(Equal(exitSignal), r.String())
		Expect(r.stderr).To(ContainSubstring("interrupted: the agent (sleep 100) was stopped with its process group before it ended"))
		Expect(r.stderr).NotTo(ContainSubstring("session ended"))
	})

	It("needs a command after --", func() {
		r := testbed("proxy", "--suite", "a", "--variant", "b", "--scenario", "c", "--exec")
		Expect(r.code).To(Equal(exitUsage), r.String())
		Expect(r.stderr).To(ContainSubstring("--exec needs the agent's command after --"))
	})
})
