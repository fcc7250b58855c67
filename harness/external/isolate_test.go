package external_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/external"
)

// directAgent is a JSON-lines agent (FAKE_AGENT=direct) that, for each
// turn, calls its upstream through its base URL, then the turn's input as
// a URL directly, as Node's fetch does whatever HTTP_PROXY says, and
// answers with what each call gave. With DIRECT_RETRY (a duration) it
// tries the direct call again and again for that long before it answers,
// as a client fetching a tokenizer with backoff does.
func directAgent() int {
	retry, _ := time.ParseDuration(os.Getenv("DIRECT_RETRY"))
	var line string
	for {
		if _, err := fmt.Scanln(&line); err != nil {
			return 0
		}
		var turn struct{ Input string }
		json.Unmarshal([]byte(line), &turn)
		via := "ok"
		if resp, err := http.Get(os.Getenv("NOTES_BASE_URL") + "/turn/1"); err != nil {
			via = err.Error()
		} else {
			resp.Body.Close()
		}
		got := direct(turn.Input)
		for start := time.Now(); time.Since(start) < retry; time.Sleep(100 * time.Millisecond) {
			got = direct(turn.Input)
		}
		b, _ := json.Marshal(map[string]string{"text": via + " | " + got})
		fmt.Println(string(b))
	}
}

// noted keeps what an agent notes, by key.
type noted struct {
	mu sync.Mutex
	by map[string][]any
}

func (n *noted) Tool(string, json.RawMessage, []byte, string, error) {}
func (n *noted) Note(key string, value any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.by == nil {
		n.by = map[string][]any{}
	}
	n.by[key] = append(n.by[key], value)
}

// runNoted runs spec once with turns, and returns the answer, what was
// noted, the run's cassette and the run's error.
func runNoted(spec external.Spec, turns ...string) (agents.Answer, *noted, *seen, error) {
	GinkgoHelper()
	tr := &noted{}
	a, tape := newAgent(spec, tr)
	ans, err := a.Run(GinkgoT().Context(), agents.Input{Turns: turns})
	return ans, tr, tape, err
}

// newAgent builds spec's agent for one scenario run traced by tr, and
// returns it with the run's cassette.
func newAgent(spec external.Spec, tr agents.Tracer) (agents.Agent, *seen) {
	GinkgoHelper()
	tape := &seen{}
	a, err := external.New(spec, GinkgoT().TempDir())(agentConfig(tape, tr))
	Expect(err).NotTo(HaveOccurred())
	return a, tape
}

// agentConfig is a scenario run's config with tape as its cassette.
func agentConfig(tape http.RoundTripper, tr agents.Tracer) agents.Config {
	return agents.Config{
		HTTP: &http.Client{Transport: tape}, Tracer: tr, Clock: func() time.Time { return time.Unix(0, 0) },
		Endpoint:  llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "m"},
		Upstreams: map[string]string{"notes": "https://notes.example"},
	}
}

// testBinary is this test binary, which serves IsolateCommand (TestMain).
func testBinary() string {
	GinkgoHelper()
	exe, err := os.Executable()
	Expect(err).NotTo(HaveOccurred())
	return exe
}

var _ = Describe("an outside agent kept off the network", func() {
	var spec external.Spec
	BeforeEach(func() {
		spec = external.Spec{Command: []string{testBinary()}, Env: map[string]string{"FAKE_AGENT": "direct"}, Isolate: testBinary()}
		if iso := external.Probe(spec.Isolate); !iso.Hermetic {
			Skip("this system cannot isolate a program: " + iso.String())
		}
	})

	It("runs in a network namespace where only the proxy is reachable, and says so", func() {
		ans, tr, tape, err := runNoted(spec, "http://203.0.113.7/tokenizer.json")
		Expect(err).NotTo(HaveOccurred())
		Expect(tr.by[agents.NoteIsolation]).To(Equal([]any{"hermetic by network namespace"}))
		Expect(tape.all()).To(Equal([]string{"https://notes.example/turn/1"}), "its base URLs reach the proxy from inside")
		Expect(ans.Replies[0].Text).To(HavePrefix("ok | "))
		Expect(ans.Replies[0].Text).To(ContainSubstring("network is unreachable"), "an address other than the proxy's fails at once")
	})

	It("fails the scenario, naming the host, when the agent looks up a host it was not given", func() {
		_, _, _, err := runNoted(spec, "https://huggingface.co/Xenova/gpt-4/resolve/main/tokenizer.json")
		Expect(err).To(MatchError(external.ErrEscaped))
		Expect(err.Error()).To(ContainSubstring("the agent looked up huggingface.co, not through the base URLs it was given"))
		Expect(err.Error()).To(ContainSubstring("name that host as an upstream"))
	})

	It("stops waiting for the turn's answer as soon as the agent looks up a host it was not given", func() {
		// A client that retries what it cannot fetch held the run for as
		// long as it retried, up to the turn timeout, to fail it all the same.
		spec.Env["DIRECT_RETRY"] = "20s"
		spec.TurnTimeout = 30 * time.Second
		start := time.Now()
		_, _, _, err := runNoted(spec, "https://tiktoken.pages.dev/o200k_base.tiktoken")
		Expect(time.Since(start)).To(BeNumerically("<", 10*time.Second))
		Expect(err).To(MatchError(external.ErrEscaped))
		Expect(err.Error()).To(ContainSubstring("the agent looked up tiktoken.pages.dev, not through the base URLs it was given"))
		Expect(err.Error()).To(ContainSubstring("then: turn 1: testbed stopped waiting for its answer when it looked that host up: the run fails whatever it answers"))
	})

	// ax 24's Anthropic and Gemini clients given apiURL in ai() kept their
	// default hosts: the error named OPENAI_BASE_URL and the OpenAI Agents
	// SDK's trace exporter, neither of which the agent had to do with.
	DescribeTable("says, when the host it looked up is its model's own, that a client in it ignores the variable that gave it the base URL, not to name an upstream",
		func(ep llm.Endpoint, target, host, variable string, tracing bool) {
			spec.Env[external.TracingOff] = "0"
			cfg := agentConfig(&seen{}, &noted{})
			cfg.Endpoint = ep
			a, err := external.New(spec, GinkgoT().TempDir())(cfg)
			Expect(err).NotTo(HaveOccurred())
			_, err = a.Run(GinkgoT().Context(), agents.Input{Turns: []string{target}})
			Expect(err).To(MatchError(external.ErrEscaped))
			Expect(err.Error()).To(ContainSubstring("the agent looked up " + host + ", not through the base URLs it was given (" + variable + ", <NAME>_BASE_URL …)"))
			Expect(err.Error()).To(ContainSubstring("that is the host of the model's own API (" + ep.BaseURL + "), which the agent was given in " + variable))
			Expect(err.Error()).NotTo(ContainSubstring("name that host as an upstream"))
			if tracing {
				Expect(err.Error()).To(ContainSubstring("OPENAI_AGENTS_DISABLE_TRACING=1"))
			} else {
				Expect(err.Error()).NotTo(ContainSubstring("OPENAI"))
			}
		},
		Entry("OpenAI's, where the OpenAI Agents SDK's trace exporter posts", llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "m"},
			"https://api.openai.com/v1/traces/ingest", "api.openai.com", "OPENAI_BASE_URL", true),
		Entry("Anthropic's", llm.Endpoint{Provider: llm.ProviderAnthropic, BaseURL: "https://api.anthropic.com", Model: "m"},
			"https://api.anthropic.com/v1/messages", "api.anthropic.com", "ANTHROPIC_BASE_URL", false),
		Entry("Gemini's", llm.Endpoint{Provider: llm.ProviderGemini, BaseURL: "https://generativelanguage.googleapis.com", Model: "m"},
			"https://generativelanguage.googleapis.com/v1beta/models/m:generateContent", "generativelanguage.googleapis.com", "GEMINI_BASE_URL", false),
	)

	It("says, when a turn times out, that a call to any other address failed at once", func() {
		spec.Command, spec.Env = []string{"sh", "-c", "read l; sleep 5"}, nil
		spec.TurnTimeout = 100 * time.Millisecond
		_, _, _, err := runNoted(spec, "a")
		Expect(err).To(MatchError(ContainSubstring("the agent did not answer within 100ms; it runs in a network namespace where only testbed's proxy is reachable")))
	})
})

var _ = Describe("an outside agent that cannot be kept off the network", func() {
	DescribeTable("runs as before and says why it is not isolated",
		func(spec func() external.Spec, want string) {
			_, tr, _, err := runNoted(spec(), "a")
			Expect(err).NotTo(HaveOccurred())
			Expect(tr.by[agents.NoteIsolation]).To(HaveLen(1))
			Expect(tr.by[agents.NoteIsolation][0]).To(HavePrefix("not isolated: " + want))
		},
		Entry("without a namespace helper", func() external.Spec {
			return external.Spec{Command: []string{"sh", "-c", `read l; echo '{"text":"hi"}'`}}
		}, "no namespace helper was given"),
		Entry("when the helper fails in the namespace", func() external.Spec {
			// Where no namespace can be made, the helper keeps the program
			// instead (the keeper), and a helper that fails fails the run.
			if iso := external.Probe(testBinary()); !iso.Hermetic {
				Skip("this system cannot isolate a program: " + iso.String())
			}
			return external.Spec{Command: []string{"sh", "-c", `read l; echo '{"text":"hi"}'`}, Isolate: "/bin/false"}
		}, "the namespace helper failed"),
		Entry("when the suite asks for the machine's network", func() external.Spec {
			return external.Spec{Command: []string{"sh", "-c", `read l; echo '{"text":"hi"}'`}, Isolate: testBinary(), HostNetwork: true}
		}, "the suite asks for the machine's network (agent.network: host)"),
	)

})

var _ = Describe("an outside agent that is a service, kept off the network", func() {
	BeforeEach(func() {
		if iso := external.Probe(testBinary()); !iso.Hermetic {
			Skip("this system cannot isolate a program: " + iso.String())
		}
	})

	It("is reached on its own port inside its network namespace, where only the proxy is reachable (http:)", func() {
		spec := service("escape")
		spec.Isolate = testBinary()
		ans, tr, tape, err := runNoted(spec, "http://203.0.113.7/tokenizer.json", "http://203.0.113.8/")
		Expect(err).NotTo(HaveOccurred())
		Expect(tr.by[agents.NoteIsolation]).To(Equal([]any{"hermetic by network namespace"}))
		Expect(tape.all()).To(HaveLen(2), "its base URLs reach the proxy from inside")
		for _, r := range ans.Replies {
			Expect(r.Text).To(HavePrefix("200 OK | "))
			Expect(r.Text).To(ContainSubstring("network is unreachable"), "an address other than the proxy's fails at once")
		}
	})

	DescribeTable("is reached on its own port inside its network namespace (mcp:)",
		func(url, transport string) {
			spec := service("mcp")
			spec.HTTP, spec.MCP = nil, &external.MCP{URL: url, Transport: transport, Tool: "echo", Args: map[string]any{"query": "{{input}}", "turn": "{{turn}}"}}
			spec.Isolate = testBinary()
			ans, tr, tape, err := runNoted(spec, "hello", "again")
			Expect(err).NotTo(HaveOccurred())
			Expect(tr.by[agents.NoteIsolation]).To(Equal([]any{"hermetic by network namespace"}))
			Expect(ans.Replies[1].Text).To(Equal("you said again"))
			Expect(tape.all()).To(Equal([]string{"https://notes.example/turn/hello", "https://notes.example/turn/again"}))
		},
		Entry("streamable HTTP, at localhost", "http://localhost:{{port}}/mcp", ""),
		Entry("the older HTTP+SSE transport", "http://127.0.0.1:{{port}}/sse", external.TransportSSE),
	)

	DescribeTable("fails the scenario, naming the host, when the service looks up a host it was not given",
		func(kind, input string) {
			spec := service(kind)
			spec.Isolate = testBinary()
			_, _, _, err := runNoted(spec, input)
			Expect(err).To(MatchError(external.ErrEscaped))
			Expect(err.Error()).To(ContainSubstring("the agent looked up huggingface.co"))
		},
		Entry("during the run", "escape", "https://huggingface.co/Xenova/gpt-4/resolve/main/tokenizer.json"),
		Entry("as it started, before it listened", "phone-home", "a"),
	)

	It("says when the service exits before it listens", func() {
		spec := service("exit")
		spec.Isolate = testBinary()
		_, _, _, err := runNoted(spec, "a")
		Expect(err).To(MatchError(ContainSubstring("the agent's service exited before it listened")))
		Expect(err.Error()).To(ContainSubstring("config missing: NOTES_TOKEN"))
	})
})
