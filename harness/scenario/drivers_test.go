package scenario_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/scenario"
)

var _ = Describe("an outside agent's driver", func() {
	parse := func(agent string) *scenario.External {
		GinkgoHelper()
		src := "suite: outside\nagent:\n  name: outside\n  model: {provider: openai, base_url: \"https://api.openai.com/v1\", model: m}\n" + agent +
			"clock: 2025-11-06T10:00:00+08:00\nbaseline: v1\nvariants:\n  v1: {}\nscenarios:\n  - id: a\n    input: hi\n    expect: {llm_calls: 1}\n"
		s, err := scenario.Parse("s.yaml", []byte(src), opts)
		Expect(err).NotTo(HaveOccurred())
		return s.External
	}

	It("reads the env: variables whose values are no secret, and says where one that is not in env: is named", func() {
		e := parse("  command: [node, agent.js]\n  env: {OPENAI_MODEL: gpt-4.1-mini, TOKEN: tenant-abcdefgh}\n  not_secret: [OPENAI_MODEL]\n")
		Expect(e.NotSecret).To(Equal([]string{"OPENAI_MODEL"}))

		src := "suite: outside\nagent:\n  name: outside\n  model: {provider: openai, base_url: \"https://api.openai.com/v1\", model: m}\n" +
			"  command: [node, agent.js]\n  env: {TOKEN: tenant-abcdefgh}\n  not_secret: [OPENAI_MODEL]\n" +
			"clock: 2025-11-06T10:00:00+08:00\nbaseline: v1\nvariants:\n  v1: {}\nscenarios:\n  - id: a\n    input: hi\n    expect: {llm_calls: 1}\n"
		_, err := scenario.Parse("s.yaml", []byte(src), opts)
		Expect(err).To(MatchError(ContainSubstring("s.yaml:7: agent.not_secret[0]: OPENAI_MODEL is not a variable of env:")))
	})

	It("reads an http: service with its request template, kept alive per variant", func() {
		e := parse(`  command: [python3, app.py, --port, "{{port}}"]
  http:
    url: "http://127.0.0.1:{{port}}/chat"
    body: {message: "{{input}}", conversation: "{{session}}", n: "{{turn}}", opts: [1, true]}
    headers: {Authorization: "Bearer x"}
    reply: .answer.text
  keep_alive: variant
  start_timeout: 5s
`)
		Expect(e.HTTP).To(Equal(&scenario.HTTPDriver{
			URL:     "http://127.0.0.1:{{port}}/chat",
			Body:    map[string]any{"message": "{{input}}", "conversation": "{{session}}", "n": "{{turn}}", "opts": []any{1, true}},
			Headers: map[string]string{"Authorization": "Bearer x"},
			Reply:   ".answer.text",
		}))
		Expect(e.MCP).To(BeNil())
		Expect(e.KeepAlive).To(Equal(scenario.KeepAliveVariant))
		Expect(e.StartTimeout).To(Equal(5 * time.Second))
	})

	It("reads an mcp: server and its tool, started once per scenario run by default", func() {
		e := parse(`  command: [testbed, serve, odbchat]
  mcp: {url: "http://localhost:{{port}}/mcp", tool: router.answer, args: {query: "{{input}}", debug: true}}
  keep_alive: scenario
`)
		Expect(e.MCP).To(Equal(&scenario.MCPDriver{URL: "http://localhost:{{port}}/mcp", Tool: "router.answer", Args: map[string]any{"query": "{{input}}", "debug": true}}))
		Expect(e.HTTP).To(BeNil())
		Expect(e.KeepAlive).To(BeEmpty())
	})

	DescribeTable("reads an mcp: server's transport",
		func(mcp string, want scenario.MCPDriver) {
			Expect(parse("  command: [python3, server.py]\n  mcp: " + mcp + "\n  keep_alive: variant\n").MCP).To(Equal(&want))
		},
		Entry("stdio", "{transport: stdio, tool: ask}", scenario.MCPDriver{Transport: "stdio", Tool: "ask"}),
		Entry("sse", `{transport: sse, url: "http://127.0.0.1:{{port}}/sse", tool: ask}`, scenario.MCPDriver{Transport: "sse", URL: "http://127.0.0.1:{{port}}/sse", Tool: "ask"}),
		Entry("streamable-http, the default", `{transport: streamable-http, url: "http://127.0.0.1:{{port}}/mcp", tool: ask}`, scenario.MCPDriver{URL: "http://127.0.0.1:{{port}}/mcp", Tool: "ask"}),
	)

	It("reads an attachment: template, whose placeholders are an attachment's fields", func() {
		e := parse(`  command: [node, app.js]
  http:
    url: "http://127.0.0.1:{{port}}/"
    body: {parts: [{text: "{{input}}"}, "{{attachments}}"]}
    attachment: {kind: file, file: {name: "{{name}}", mimeType: "{{mime}}", bytes: "{{data}}"}}
`)
		Expect(e.HTTP.Attachment).To(Equal(map[string]any{"kind": "file", "file": map[string]any{"name": "{{name}}", "mimeType": "{{mime}}", "bytes": "{{data}}"}}))
		Expect(e.HTTP.Body).To(Equal(map[string]any{"parts": []any{map[string]any{"text": "{{input}}"}, "{{attachments}}"}}))
	})

	It("refuses a turn's placeholder in an attachment: template, naming the line and the ones it knows", func() {
		src := "suite: outside\nagent:\n  name: outside\n  model: {provider: openai, base_url: \"https://api.openai.com/v1\", model: m}\n  command: [node, app.js]\n  mcp:\n    url: \"http://127.0.0.1:{{port}}/mcp\"\n    tool: ask\n    args: {q: \"{{input}}\", files: \"{{attachments}}\"}\n    attachment: {text: \"{{input}}\"}\n" +
			"clock: 2025-11-06T10:00:00+08:00\nbaseline: v1\nvariants:\n  v1: {}\nscenarios:\n  - id: a\n    input: hi\n    expect: {llm_calls: 1}\n"
		_, err := scenario.Parse("s.yaml", []byte(src), opts)
		Expect(err).To(MatchError(ContainSubstring("s.yaml:10: agent.mcp.attachment.text: unknown placeholder {{input}} (known: {{name}}, {{mime}}, {{description}}, {{data}})")))
	})

	DescribeTable("refuses an mcp: server given both ways or neither, naming the line",
		func(mcp, want string) {
			src := "suite: outside\nagent:\n  name: outside\n  model: {provider: openai, base_url: \"https://api.openai.com/v1\", model: m}\n  command: [node, app.js]\n  mcp:\n" + mcp +
				"clock: 2025-11-06T10:00:00+08:00\nbaseline: v1\nvariants:\n  v1: {}\nscenarios:\n  - id: a\n    input: hi\n    expect: {llm_calls: 1}\n"
			_, err := scenario.Parse("s.yaml", []byte(src), opts)
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("both", "    url: \"http://127.0.0.1:{{port}}/mcp\"\n    transport: stdio\n    tool: ask\n", "s.yaml:7: agent.mcp.url: a server on transport: stdio is reached on the program's stdin and stdout, not at a URL"),
		Entry("neither", "    tool: ask\n", "s.yaml:7: agent.mcp: missing url: (the server's endpoint, like http://127.0.0.1:{{port}}/mcp), or transport: stdio"),
		Entry("neither, over SSE", "    transport: sse\n    tool: ask\n", "s.yaml:7: agent.mcp: missing url:"),
		Entry("a transport MCP lacks", "    transport: websocket\n    tool: ask\n", "s.yaml:7: agent.mcp.transport"),
	)

	DescribeTable("reads network:, the machine's or a namespace of the program's own",
		func(line string, host bool) {
			Expect(parse("  command: [node, agent.js]\n" + line).HostNetwork).To(Equal(host))
		},
		Entry("by default, isolated", "", false),
		Entry("isolated", "  network: isolated\n", false),
		Entry("host", "  network: host\n", true),
	)

	It("refuses a network: it does not know, naming the line", func() {
		src := "suite: outside\nagent:\n  name: outside\n  model: {provider: openai, base_url: \"https://api.openai.com/v1\", model: m}\n  command: [node, app.js]\n  network: bridge\n" +
			"clock: 2025-11-06T10:00:00+08:00\nbaseline: v1\nvariants:\n  v1: {}\nscenarios:\n  - id: a\n    input: hi\n    expect: {llm_calls: 1}\n"
		_, err := scenario.Parse("s.yaml", []byte(src), opts)
		Expect(err).To(MatchError(ContainSubstring("s.yaml:6: agent.network")))
	})

	It("keeps a command speaking JSON lines alive for any of the agent's runs", func() {
		e := parse("  command: [node, agent.js]\n  keep_alive: agent\n")
		Expect(e.KeepAlive).To(Equal(scenario.KeepAliveAgent))
	})

	It("refuses to keep a service alive for any of the agent's runs, naming the line", func() {
		src := "suite: outside\nagent:\n  name: outside\n  model: {provider: openai, base_url: \"https://api.openai.com/v1\", model: m}\n  command: [node, app.js]\n  mcp: {url: \"http://127.0.0.1:{{port}}/mcp\", tool: ask}\n  keep_alive: agent\n" +
			"clock: 2025-11-06T10:00:00+08:00\nbaseline: v1\nvariants:\n  v1: {}\nscenarios:\n  - id: a\n    input: hi\n    expect: {llm_calls: 1}\n"
		_, err := scenario.Parse("s.yaml", []byte(src), opts)
		Expect(err).To(MatchError(ContainSubstring("s.yaml:7: agent.keep_alive: agent is for a command that speaks JSON lines")))
	})

	It("needs the command that starts the service", func() {
		src := "suite: outside\nagent:\n  name: outside\n  model: {provider: openai, base_url: \"https://api.openai.com/v1\", model: m}\n  http: {url: \"http://127.0.0.1:8080/\"}\n" +
			"clock: 2025-11-06T10:00:00+08:00\nbaseline: v1\nvariants:\n  v1: {}\nscenarios:\n  - id: a\n    input: hi\n    expect: {llm_calls: 1}\n"
		_, err := scenario.Parse("s.yaml", []byte(src), opts)
		Expect(err).To(MatchError(ContainSubstring(`s.yaml:3: agent: missing required key "command"`)))
	})

	DescribeTable("reads max_request_body as a size",
		func(size string, want int64) {
			Expect(parse("  command: [node, a.js]\n  max_request_body: " + size + "\n").MaxRequestBody).To(Equal(want))
		},
		Entry("MiB", "64MiB", int64(64<<20)),
		Entry("KiB", "512KiB", int64(512<<10)),
		Entry("bytes", "1000", int64(1000)),
	)

	It("refuses a size it cannot read, with path:line", func() {
		src := "suite: outside\nagent:\n  name: outside\n  model: {provider: openai, base_url: \"https://api.openai.com/v1\", model: m}\n  command: [node, a.js]\n  max_request_body: 64MB\n" +
			"clock: 2025-11-06T10:00:00+08:00\nbaseline: v1\nvariants:\n  v1: {}\nscenarios:\n  - id: a\n    input: hi\n"
		_, err := scenario.Parse("s.yaml", []byte(src), opts)
		Expect(err).To(MatchError(ContainSubstring(`s.yaml:6: agent.max_request_body: "64MB" is not a size above 0; write it like 64MiB`)))
	})
})
