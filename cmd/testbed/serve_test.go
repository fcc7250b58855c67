package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/external"
)

var _ = Describe("testbed serve odbchat", func() {
	var root string
	BeforeEach(func() { root = project() })

	const ac1 = "現在台灣周遭海溫多少？"

	// serve starts the server in replay of the odbchat suite's variant
	// single-pass, and returns an MCP client session on it and the
	// server's end.
	serve := func(ctx context.Context, extra ...string) (*mcp.ClientSession, <-chan result) {
		GinkgoHelper()
		lines, done := serving(ctx, append([]string{"serve", "odbchat", "--root", root, "--suite", "odbchat", "--variant", "single-pass"}, extra...)...)
		Expect(lines[0]).To(MatchRegexp(`^http://127\.0\.0\.1:\d+/mcp$`))
		client := mcp.NewClient(&mcp.Implementation{Name: "odbchat-cli", Version: "0"}, nil)
		session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: lines[0], DisableStandaloneSSE: true}, nil)
		Expect(err).NotTo(HaveOccurred())
		return session, done
	}
	call := func(session *mcp.ClientSession, args map[string]any) (*mcp.CallToolResult, map[string]any, string) {
		GinkgoHelper()
		res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "router.answer", Arguments: args})
		Expect(err).NotTo(HaveOccurred())
		var text strings.Builder
		for _, c := range res.Content {
			text.WriteString(c.(*mcp.TextContent).Text)
		}
		env, _ := res.StructuredContent.(map[string]any)
		if env == nil && !res.IsError {
			Expect(json.Unmarshal([]byte(text.String()), &env)).To(Succeed())
		}
		return res, env, text.String()
	}
	end := func(cancel context.CancelFunc, done <-chan result) result {
		GinkgoHelper()
		cancel()
		var r result
		Eventually(done).WithTimeout(time.Minute).Should(Receive(&r))
		return r
	}

	It("answers each call from the cassette of the scenario whose input it is, with the seed's envelope and the agent's notes in _meta", func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		session, done := serve(ctx)
		res, env, _ := call(session, map[string]any{"query": ac1})
		Expect(res.IsError).To(BeFalse())
		Expect(env).To(HaveKeyWithValue("mode", "tool"))
		Expect(env["text"]).To(ContainSubstring("26.4 °C"))
		raw := env["raw"].(map[string]any)
		Expect(raw).To(HaveKey("plan"))
		Expect(raw).To(HaveKeyWithValue("tool_result", HaveKeyWithValue("date", "2025-11-06")))
		Expect(raw).NotTo(HaveKey("trace"), "the trace is sent only with debug")
		Expect(res.Meta[external.MetaNotes]).To(ContainElement(HaveKeyWithValue("key", "route")))
		Expect(res.Meta[external.MetaTools]).To(ContainElement(HaveKeyWithValue("name", "ghrsst.bbox_mean")))

		_, env, _ = call(session, map[string]any{"query": ac1, "debug": true})
		Expect(env["raw"]).To(HaveKeyWithValue("trace", HaveKeyWithValue("t_classify_ms", BeNumerically(">", 0))), "the replayed clock times the steps")
		r := end(cancel, done)
		Expect(r.code).To(Equal(exitOK), r.String())
	})

	It("says the cassette is stale, with the miss diagnosis, when the agent makes a call the cassette lacks, and exits 3", func() {
		replace(cassettePath(root, "single-pass", "ac1-taiwan-sst"), `{\"query\":\"`+ac1+`\",\"now\":\"2025-11-06\"`, `{\"query\":\"`+ac1+`\",\"now\":\"2025-11-05\"`, 1)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		session, done := serve(ctx)
		res, _, text := call(session, map[string]any{"query": ac1})
		Expect(res.IsError).To(BeTrue(), text)
		Expect(text).To(ContainSubstring("stale cassette: no answer, because the agent made a call the cassette lacks"))
		Expect(text).To(ContainSubstring("has no match for POST http://localhost:11434/v1/chat/completions"))
		Expect(text).To(ContainSubstring("testbed record --suite odbchat --variant single-pass --scenario ac1-taiwan-sst"))
		Expect(text).NotTo(ContainSubstring("UNAVAILABLE"))
		Expect(text).NotTo(ContainSubstring("not answering"))
		r := end(cancel, done)
		Expect(r.code).To(Equal(exitStale), r.String())
		Expect(r.stderr).To(ContainSubstring("1 calls were answered as stale"))
	})

	It("says the cassette is stale for a question no scenario asks", func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		session, done := serve(ctx)
		res, _, text := call(session, map[string]any{"query": "What is the weather on Mars?"})
		Expect(res.IsError).To(BeTrue())
		Expect(text).To(ContainSubstring(`stale cassette: no scenario of suite odbchat starts with "What is the weather on Mars?"`))
		Expect(end(cancel, done).code).To(Equal(exitStale))
	})

	It("answers every call from the scenario --scenario names", func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		session, done := serve(ctx, "--scenario", "ac1-taiwan-sst")
		res, env, _ := call(session, map[string]any{"query": ac1})
		Expect(res.IsError).To(BeFalse())
		Expect(env).To(HaveKeyWithValue("source", "ghrsst.bbox_mean"))
		Expect(end(cancel, done).code).To(Equal(exitOK))
	})

	It("records the cassette of the scenario a call asks against the stand-ins, which then replays", func() {
		path := cassettePath(root, "single-pass", "ac1-taiwan-sst")
		Expect(os.Remove(path)).To(Succeed())
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		session, done := serve(ctx, "--record")
		res, recorded, _ := call(session, map[string]any{"query": ac1})
		Expect(res.IsError).To(BeFalse())
		Expect(recorded).To(HaveKeyWithValue("source", "ghrsst.bbox_mean"))
		r := end(cancel, done)
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(mustRead(path)).To(ContainSubstring("url: http://localhost:11434/v1/chat/completions"))

		ctx, cancel = context.WithCancel(context.Background())
		defer cancel()
		session, done = serve(ctx)
		_, replayed, _ := call(session, map[string]any{"query": ac1})
		Expect(replayed["text"]).To(Equal(recorded["text"]))
		Expect(end(cancel, done).code).To(Equal(exitOK))
	})

	DescribeTable("refuses what it cannot serve",
		func(args []string, want string) {
			r := testbed(append([]string{"serve"}, args...)...)
			Expect(r.code).To(Equal(exitUsage), r.String())
			Expect(r.stderr).To(ContainSubstring(want))
		},
		Entry("no agent", []string{}, "serve what? testbed serve odbchat"),
		Entry("another agent", []string{"kura"}, "serve what?"),
		Entry("a suite without a variant", []string{"odbchat", "--suite", "odbchat"}, "give --variant with --suite"),
		Entry("recording without a suite", []string{"odbchat", "--record"}, "--record needs --suite and --variant"),
	)

	It("explains itself with --help, with an example", func() {
		r := testbed("serve", "odbchat", "--help")
		Expect(r.code).To(Equal(exitOK))
		Expect(r.stderr).To(ContainSubstring("testbed serve odbchat --suite odbchat --variant single-pass"))
	})
})
