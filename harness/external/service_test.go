//go:build unix

package external_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/external"
)

// service describes the fake agent of kind (see fakeAgent) run by the test
// binary, reached by http: at /chat or, with tool, by mcp: at /mcp.
func service(kind string) external.Spec {
	return external.Spec{
		Command: []string{os.Args[0]}, Env: map[string]string{"FAKE_AGENT": kind},
		HTTP: &external.HTTP{URL: "http://127.0.0.1:{{port}}/chat"}, StartTimeout: 20 * time.Second,
	}
}

// pidOf reads the process id the fake agent wrote to file.
func pidOf(file string) int {
	GinkgoHelper()
	b, err := os.ReadFile(file)
	Expect(err).NotTo(HaveOccurred())
	pid, err := strconv.Atoi(string(b))
	Expect(err).NotTo(HaveOccurred())
	return pid
}

// ended reports whether process pid is gone.
func ended(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

var _ = Describe("an outside agent that is a web service", func() {
	It("gets each turn POSTed from the body template, and answers with the JSON's text; the service ends with the run", func() {
		spec := service("json")
		pidFile := filepath.Join(GinkgoT().TempDir(), "pid")
		spec.Env["PID_FILE"] = pidFile
		ans, tr, cassette, err := runOnce(spec, "a", "hello", "again")
		Expect(err).NotTo(HaveOccurred())
		Expect(ans.Replies).To(HaveLen(2))
		Expect(ans.Replies[0].Text).To(MatchRegexp(`^turn 0 of tb-[0-9a-f]{16}$`))
		Expect(ans.Replies[1].Text).To(Equal(strings.Replace(ans.Replies[0].Text, "turn 0", "turn 1", 1)), "one session for every turn of a run")
		Expect(ans.Replies[1].Data).To(HaveKeyWithValue("upstream", "200 OK"))
		Expect(tr.keys).To(ContainElement("route"))
		Expect(cassette.all()).To(Equal([]string{"https://notes.example/turn/hello", "https://notes.example/turn/again"}))
		Eventually(func() bool { return ended(pidOf(pidFile)) }).Should(BeTrue())
	})

	It("fills the suite's body and headers templates: a placeholder alone keeps its type, one in text is text", func() {
		spec := service("json")
		spec.HTTP.Body = map[string]any{"input": "{{input}}!", "session": "s-{{session}}", "turn": "{{turn}}", "extra": []any{"{{port}}", true}}
		spec.HTTP.Headers = map[string]string{"X-Conversation": "conv {{session}} turn {{turn}}"}
		ans, _, cassette, err := runOnce(spec, "a", "hello", "again")
		Expect(err).NotTo(HaveOccurred())
		Expect(ans.Replies[1].Text).To(MatchRegexp(`^turn 1 of s-tb-[0-9a-f]{16}$`))
		Expect(ans.Replies[1].Data).To(HaveKeyWithValue("header", MatchRegexp(`^conv tb-[0-9a-f]{16} turn 1$`)))
		Expect(cassette.all()).To(Equal([]string{"https://notes.example/turn/hello!", "https://notes.example/turn/again!"}))
	})

	It("speaks A2A with the documented body and reply path: a Message's text, or a Task's last artifact", func() {
		spec := service("a2a")
		spec.HTTP.URL = "http://127.0.0.1:{{port}}/a2a"
		spec.HTTP.Body = map[string]any{"jsonrpc": "2.0", "id": "{{turn}}", "method": "message/send", "params": map[string]any{
			"message": map[string]any{"role": "user", "kind": "message", "messageId": "{{session}}-{{turn}}", "contextId": "{{session}}",
				"parts": []any{map[string]any{"kind": "text", "text": "{{input}}"}}}}}
		spec.HTTP.Reply = "(.result.parts // .result.artifacts[-1].parts // .result.status.message.parts)[0].text"
		ans, _, cassette, err := runOnce(spec, "a", "hello", "again")
		Expect(err).NotTo(HaveOccurred())
		Expect(ans.Replies).To(HaveLen(2))
		Expect(ans.Replies[0].Text).To(MatchRegexp(`^(tb-[0-9a-f]{16})-0 in (tb-[0-9a-f]{16}): you said hello \(200 OK\)$`))
		Expect(ans.Replies[1].Text).To(MatchRegexp(`^tb-[0-9a-f]{16}-1 in tb-[0-9a-f]{16}: you said again \(200 OK\)$`), "a Task's answer is its last artifact")
		Expect(cassette.all()).To(Equal([]string{"https://notes.example/turn/hello", "https://notes.example/turn/again"}))
	})

	DescribeTable("reads an event stream with reply: applied to each event's data, as an A2A message/stream",
		func(reply, want string) {
			spec := service("a2a")
			spec.HTTP.URL = "http://127.0.0.1:{{port}}/a2a-stream"
			spec.HTTP.Body = map[string]any{"jsonrpc": "2.0", "id": "{{turn}}", "method": "message/stream", "params": map[string]any{
				"message": map[string]any{"role": "user", "kind": "message", "parts": []any{map[string]any{"kind": "text", "text": "{{input}}"}}}}}
			spec.HTTP.Reply = reply
			ans, _, _, err := runOnce(spec, "a", "hello")
			if strings.HasPrefix(want, "error: ") {
				Expect(err).To(MatchError(ContainSubstring(strings.TrimPrefix(want, "error: "))))
				return
			}
			Expect(err).NotTo(HaveOccurred())
			Expect(ans.Replies[0].Text).To(Equal(want))
		},
		Entry("the artifact's chunks", `.result | select(.kind == "artifact-update") | .artifact.parts[].text`, "you said hello"),
		Entry("every text part, the working status's too", `.result | (.artifact, .status.message) | .parts[]?.text`, "thinkingyou said hello"),
		Entry("a path that finds no text in any event, named", `.result | select(.kind == "message") | .parts[].text`,
			`error: turn 1: reading the agent's event stream: reply path .result | select(.kind == "message") | .parts[].text found no text in the 5 events of the stream; the last: {"id":0,"jsonrpc":"2.0","result":{"final":true`),
		Entry("a path that fails on an event, named", `.result.artifact.parts[].text`, `error: turn 1: reading the agent's event stream: reply path .result.artifact.parts[].text on the event {"id":0,"jsonrpc":"2.0","result":{"id":"t1","kind":"task"`),
	)

	DescribeTable("reads the reply's text the way the service gives it",
		func(kind, reply, want string) {
			spec := service(kind)
			spec.HTTP.Reply = reply
			ans, _, _, err := runOnce(spec, "a", "hi")
			Expect(err).NotTo(HaveOccurred())
			Expect(ans.Replies[0].Text).To(Equal(want))
		},
		Entry("a path into the JSON", "json", ".answer.text", "you said hi"),
		Entry("a path finding several strings: joined, as a stream's", "json", ".answer.text, .upstream", "you said hi200 OK"),
		Entry("a text body", "text", "", "you said hi"),
		Entry("an event stream, read to its end", "sse", "", "you said hi"),
	)

	DescribeTable("fails its scenario with a clear reason, and ends the service",
		func(kind string, edit func(*external.Spec), want string) {
			spec := service(kind)
			pidFile := filepath.Join(GinkgoT().TempDir(), "pid")
			spec.Env["PID_FILE"] = pidFile
			edit(&spec)
			_, _, _, err := runOnce(spec, "a", "hi")
			Expect(err).To(MatchError(MatchRegexp(want)))
			Eventually(func() bool { return ended(pidOf(pidFile)) }).Should(BeTrue())
		},
		Entry("a service that exits at once", "exit", func(*external.Spec) {},
			`the agent's service exited before it listened on 127\.0\.0\.1:\d+ \(exit status 3; command \[".*"\]\); its output ends: config missing: NOTES_TOKEN`),
		Entry("a service that never listens", "no-port", func(s *external.Spec) { s.StartTimeout = 300 * time.Millisecond },
			`the agent's service did not listen on 127\.0\.0\.1:\d+ within 300ms`),
		Entry("an error status", "status", func(*external.Spec) {},
			`turn 1: the agent answered 503 Service Unavailable to POST http://127\.0\.0\.1:\d+/chat: model overloaded`),
		Entry("a body that is not the JSON it says it is", "not-json", func(*external.Spec) {},
			`turn 1: the agent answered "application/json" that is not JSON \(its Content-Type says JSON\): <html>oops</html>`),
		Entry("text where reply: needs JSON", "text", func(s *external.Spec) { s.HTTP.Reply = ".answer" },
			`turn 1: the agent answered "text/plain" that is not JSON \(reply: \.answer needs JSON\)`),
		Entry("JSON without the text", "json", func(s *external.Spec) { s.HTTP.Reply = ".pid" },
			`turn 1: the reply has no text at \.pid`),
		Entry("a JSON-RPC error, quoted", "rpc-error", func(s *external.Spec) { s.HTTP.Reply = ".result.parts[0].text" },
			`turn 1: the reply has no text at \.result\.parts\[0\]\.text: the agent answered the JSON-RPC error -32009 "requested A2A protocol version '0\.3' is not supported"`),
		Entry("no answer in time", "slow", func(s *external.Spec) { s.TurnTimeout = 300 * time.Millisecond },
			`turn 1: the agent did not answer within 300ms`),
	)
})

var _ = Describe("an outside agent's service that cannot start", func() {
	It("fails its scenario naming the command", func() {
		spec := service("json")
		spec.Command = []string{"./no-such-server", "--port", "{{port}}"}
		_, _, _, err := runOnce(spec, "a", "hi")
		Expect(err).To(MatchError(MatchRegexp(`^the agent did not start: .*no-such-server.* \(command \["\./no-such-server" "--port" "\d+"\] in .*\)$`)))
	})
})

// mcpServer is the fake agent's MCP server reached over transport (""
// for streamable HTTP) at url (none for stdio).
func mcpServer(transport, url string) external.Spec {
	kind := "mcp"
	if transport == external.TransportStdio {
		kind = "mcp-stdio"
	}
	spec := service(kind)
	spec.HTTP, spec.MCP = nil, &external.MCP{URL: url, Transport: transport, Tool: "echo", Args: map[string]any{"query": "{{input}}", "turn": "{{turn}}"}}
	return spec
}

var _ = Describe("an outside agent that is an MCP server", func() {
	mcpService := func() external.Spec { return mcpServer("", "http://127.0.0.1:{{port}}/mcp") }

	DescribeTable("calls the tool per turn: the reply is the structured result's text, the data the whole result, and the server's notes are traced",
		func(spec external.Spec) {
			ans, tr, cassette, err := runOnce(spec, "a", "hello", "again")
			Expect(err).NotTo(HaveOccurred())
			Expect(ans.Replies[0].Text).To(Equal("you said hello"))
			Expect(ans.Replies[1].Data).To(HaveKeyWithValue("turn", 1.0))
			Expect(tr.keys).To(ContainElement("route"))
			Expect(cassette.all()).To(Equal([]string{"https://notes.example/turn/hello", "https://notes.example/turn/again"}))
		},
		Entry("over streamable HTTP", mcpService()),
		Entry("over the older HTTP+SSE transport", mcpServer(external.TransportSSE, "http://127.0.0.1:{{port}}/sse")),
		Entry("on the program's stdin and stdout", mcpServer(external.TransportStdio, "")),
	)

	It("on stdio, takes a line of its stdout that is no JSON message (a banner) out of the session, and quotes it in errors", func() {
		spec := mcpServer(external.TransportStdio, "")
		spec.Env["BANNER"] = "Weather MCP server v2 listening on stdio"
		ans, _, _, err := runOnce(spec, "a", "hello")
		Expect(err).NotTo(HaveOccurred())
		Expect(ans.Replies[0].Text).To(Equal("you said hello"))
		_, _, _, err = runOnce(spec, "a", "crash")
		Expect(err).To(MatchError(ContainSubstring("Weather MCP server v2 listening on stdio")))
	})

	It("on stdio, quotes all a program that dies in a call said, however slowly its stderr is read", func() {
		DeferCleanup(external.SetBeforeOutput(func() { time.Sleep(100 * time.Millisecond) }))
		_, _, _, err := runOnce(mcpServer(external.TransportStdio, ""), "a", "crash")
		Expect(err).To(MatchError(ContainSubstring("its stderr ends: echo server ready on stdio\npanic: the index is gone")))
	})

	It("reads a result's text blocks each on lines of its own", func() {
		ans, _, _, err := runOnce(mcpService(), "a", "blocks")
		Expect(err).NotTo(HaveOccurred())
		Expect(ans.Replies[0].Text).To(Equal("Oslo is at -3.2 °C.\nAnything else?"))
	})

	DescribeTable("fails its scenario with a clear reason",
		func(edit func(*external.Spec), input, want string) {
			spec := mcpService()
			edit(&spec)
			_, _, _, err := runOnce(spec, "a", input)
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("a tool error", func(*external.Spec) {}, "fail", "turn 1: the tool echo answered an error: the cassette is stale"),
		Entry("a tool the server lacks", func(s *external.Spec) { s.MCP.Tool = "nosuch" }, "hi", "turn 1: call nosuch:"),
		Entry("a reply path that finds no text", func(s *external.Spec) { s.MCP.Reply = ".turn" }, "hi", "turn 1: the reply has no text at .turn"),
		Entry("on stdio, a program that exits at once", func(s *external.Spec) { *s = mcpServer(external.TransportStdio, ""); s.Env["FAKE_AGENT"] = "exit" }, "hi",
			"the agent exited before the MCP session opened (exit status 3); its stderr ends: config missing: NOTES_TOKEN"),
		Entry("on stdio, a program that is no MCP server", func(s *external.Spec) {
			*s = mcpServer(external.TransportStdio, "")
			s.Command = []string{"sh", "-c", "echo hello; sleep 1"}
		}, "hi",
			"the agent exited before the MCP session opened (it closed its output); its output ends: hello"),
		Entry("on stdio, a program that dies in a call", func(s *external.Spec) { *s = mcpServer(external.TransportStdio, "") }, "crash", "turn 1: call echo:"),
		Entry("on stdio, a program that dies in a call, quoted", func(s *external.Spec) { *s = mcpServer(external.TransportStdio, "") }, "crash", "its stderr ends: echo server ready on stdio\npanic: the index is gone"),
	)
})

var _ = Describe("an outside agent that is an MCP server on stdio", func() {
	stdio := func() external.Spec { return mcpServer(external.TransportStdio, "") }

	It("ends the program with the run", func() {
		ans, _, _, err := runOnce(stdio(), "a", "hello")
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() bool { return ended(int(ans.Replies[0].Data.(map[string]any)["pid"].(float64))) }).Should(BeTrue())
	})

	It("keeps one program and one session for every run of a variant", func() {
		spec := stdio()
		spec.KeepAlive, spec.Pool = true, external.NewPool()
		DeferCleanup(spec.Pool.Close)
		var pids []float64
		for _, in := range []string{"one", "two"} {
			ans, _, cassette, err := runOnce(spec, "a", in)
			Expect(err).NotTo(HaveOccurred())
			Expect(cassette.all()).To(Equal([]string{"https://notes.example/turn/" + in}), "each run's calls in its own cassette")
			pids = append(pids, ans.Replies[0].Data.(map[string]any)["pid"].(float64))
		}
		Expect(pids[1]).To(Equal(pids[0]))
	})

	It("runs in its own network namespace when it can", func() {
		spec := stdio()
		spec.Isolate = testBinary()
		if iso := external.Probe(spec.Isolate); !iso.Hermetic {
			Skip("this system cannot isolate a program: " + iso.String())
		}
		ans, tr, _, err := runNoted(spec, "hello")
		Expect(err).NotTo(HaveOccurred())
		Expect(ans.Replies[0].Text).To(Equal("you said hello"))
		Expect(tr.by[agents.NoteIsolation]).To(Equal([]any{"hermetic by network namespace"}))
	})

})

var _ = Describe("a kept-alive outside agent", func() {
	It("serves every run of a variant from one program, one run at a time, each run's calls in its own cassette; Close ends it", func() {
		pool := external.NewPool()
		DeferCleanup(pool.Close)
		spec := service("json")
		spec.KeepAlive, spec.Pool = true, pool
		pids := map[string][]float64{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, variant := range []string{"a", "a", "a", "b"} {
			wg.Add(1)
			go func() {
				defer GinkgoRecover()
				defer wg.Done()
				input := "q" + strconv.Itoa(int(time.Now().UnixNano()%1e6))
				ans, _, cassette, err := runOnce(spec, variant, input)
				Expect(err).NotTo(HaveOccurred())
				Expect(cassette.all()).To(Equal([]string{"https://notes.example/turn/" + input}))
				mu.Lock()
				pids[variant] = append(pids[variant], ans.Replies[0].Data.(map[string]any)["pid"].(float64))
				mu.Unlock()
			}()
		}
		wg.Wait()
		Expect(pids["a"]).To(HaveLen(3))
		Expect(pids["a"]).To(HaveEach(pids["a"][0]))
		Expect(pids["b"][0]).NotTo(Equal(pids["a"][0]))
		Expect(ended(int(pids["a"][0]))).To(BeFalse())
		Expect(pool.Close()).To(Succeed())
		Expect(ended(int(pids["a"][0]))).To(BeTrue())
		Expect(ended(int(pids["b"][0]))).To(BeTrue())
		_, _, _, err := runOnce(spec, "a", "late")
		Expect(err).To(MatchError(ContainSubstring("kept-alive programs are stopped")))
	})

	It("keeps a command speaking JSON lines too: each run's turns on the same stdin, a new session id for each", func() {
		pool := external.NewPool()
		DeferCleanup(pool.Close)
		spec := external.Spec{Command: []string{"sh", "-c", `read -r me _ </proc/self/stat; while read l; do printf '{"text":"%s","data":%s}\n' $me "$l"; done`}, KeepAlive: true, Pool: pool}
		first, _, _, err := runOnce(spec, "a", "one", "two")
		Expect(err).NotTo(HaveOccurred())
		second, _, _, err := runOnce(spec, "a", "three")
		Expect(err).NotTo(HaveOccurred())
		Expect(second.Replies[0].Text).To(Equal(first.Replies[0].Text), "one program")
		Expect(second.Replies[0].Data).To(HaveKeyWithValue("input", "three"))
		Expect(second.Replies[0].Data).To(HaveKeyWithValue("turn", 0.0))
		Expect(first.Replies[1].Data).To(HaveKeyWithValue("session", first.Replies[0].Data.(map[string]any)["session"]))
		Expect(second.Replies[0].Data).NotTo(HaveKeyWithValue("session", first.Replies[0].Data.(map[string]any)["session"]))
		pid, err := strconv.Atoi(first.Replies[0].Text) // as testbed sees it: $$ is the namespace's

		Expect(err).NotTo(HaveOccurred())
		Expect(pool.Close()).To(Succeed())
		Eventually(func() bool { return ended(pid) }).Should(BeTrue())
	})

	It("keeps one command for the runs of every variant with RunEnv, telling it each run's variables in the run's first line", func() {
		pool := external.NewPool()
		DeferCleanup(pool.Close)
		spec := external.Spec{Command: []string{"sh", "-c", `read -r me _ </proc/self/stat; while read -r l; do printf '{"text":"%s","data":%s}\n' $me "$l"; done`},
			KeepAlive: true, RunEnv: true, Pool: pool, Env: map[string]string{"SUITE_SETTING": "x"}}
		first, _, _, err := runOnce(spec, "a", "one", "two")
		Expect(err).NotTo(HaveOccurred())
		second, _, _, err := runOnce(spec, "b", "three")
		Expect(err).NotTo(HaveOccurred())
		Expect(second.Replies[0].Text).To(Equal(first.Replies[0].Text), "one program for both variants")
		env := func(r agents.Reply) map[string]any {
			GinkgoHelper()
			e, ok := r.Data.(map[string]any)["env"].(map[string]any)
			Expect(ok).To(BeTrue(), "the first line of a run has env: %v", r.Data)
			return e
		}
		Expect(env(first.Replies[0])).To(HaveKeyWithValue("TESTBED_VARIANT", `{"v":"a"}`))
		Expect(env(second.Replies[0])).To(HaveKeyWithValue("TESTBED_VARIANT", `{"v":"b"}`))
		Expect(env(second.Replies[0])).To(HaveKeyWithValue("TESTBED_MODEL", "m"))
		Expect(env(second.Replies[0])).To(HaveKeyWithValue("NOTES_BASE_URL", HaveSuffix("/upstream/notes")))
		Expect(env(second.Replies[0])).NotTo(HaveKey("SUITE_SETTING"), "the suite's env: is the program's own")
		Expect(env(second.Replies[0])).To(HaveKeyWithValue("TESTBED_STREAM", ""), "not another run's")
		Expect(first.Replies[1].Data).NotTo(HaveKey("env"), "only a run's first line carries it")
	})

	It("tells a run's variables in its first line only to a kept command", func() {
		spec := service("json")
		spec.KeepAlive, spec.RunEnv, spec.Pool = true, true, external.NewPool()
		DeferCleanup(spec.Pool.Close)
		_, _, _, err := runOnce(spec, "a", "hi")
		Expect(err).To(MatchError(ContainSubstring("only to a kept-alive command speaking JSON lines")))
	})

	It("ends the program of a run that fails, and starts a fresh one for the next run", func() {
		pool := external.NewPool()
		DeferCleanup(pool.Close)
		spec := service("json")
		spec.KeepAlive, spec.Pool, spec.TurnTimeout = true, pool, 300*time.Millisecond
		pidFile := filepath.Join(GinkgoT().TempDir(), "pid")
		spec.Env["PID_FILE"] = pidFile
		_, _, _, err := runOnce(spec, "a", "hang")
		Expect(err).To(MatchError(ContainSubstring("did not answer within 300ms")))
		failed := pidOf(pidFile)
		Eventually(func() bool { return ended(failed) }).Should(BeTrue())
		ans, _, _, err := runOnce(spec, "a", "hi")
		Expect(err).NotTo(HaveOccurred())
		Expect(ans.Replies[0].Data).To(HaveKeyWithValue("pid", BeNumerically(">", 0)))
		Expect(ans.Replies[0].Data).NotTo(HaveKeyWithValue("pid", float64(failed)))
	})

	It("needs a pool", func() {
		a, err := external.New(external.Spec{Command: []string{"x"}, KeepAlive: true}, ".")(agents.Config{})
		Expect(err).NotTo(HaveOccurred(), "lint builds agents without running them")
		_, err = a.Run(context.Background(), agents.Input{Turns: []string{"hi"}})
		Expect(err).To(MatchError(ContainSubstring("keep_alive needs a Pool")))
	})
})
