package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/harness/scenario"
)

// fixturesOf is a fresh project folder holding agent's fixtures only.
func fixturesOf(agent string) string {
	GinkgoHelper()
	root := GinkgoT().TempDir()
	Expect(os.CopyFS(filepath.Join(root, "fixtures", agent), os.DirFS(filepath.Join(repoRoot, "fixtures", agent)))).To(Succeed())
	return root
}

var _ = Describe("testbed init", func() {
	DescribeTable("writes a starter suite that loads cleanly and lints",
		func(agent string) {
			root := fixturesOf(agent)

			r := testbed("init", "starter", "--agent", agent, "--root", root)

			Expect(r.code).To(Equal(exitOK), r.String())
			path := filepath.Join(root, "scenarios", "starter.yaml")
			Expect(r.stdout).To(ContainSubstring("wrote " + path))
			data, err := os.ReadFile(path)
			Expect(err).NotTo(HaveOccurred())
			e := all.Registry()[agent]
			for _, key := range e.Info.Config {
				Expect(string(data)).To(ContainSubstring(key), "the variants' config keys are listed")
			}
			s, err := scenario.Load(path, scenario.LoadOptions{Agents: all.Names()})
			Expect(err).NotTo(HaveOccurred())
			Expect(s.Scenarios).To(HaveLen(1))
			Expect(s.Scenarios[0].Turns[0].Expect.Answer).NotTo(BeNil())
			Expect(s.Thresholds).To(HaveKey("candidate"))

			lint := testbed("lint", "--root", root)
			Expect(lint.code).To(Equal(exitOK), "the CLI loads it, configs included: %s", lint.String())
			Expect(lint.stdout).To(ContainSubstring("agree in 1 suite, and"))
			list := testbed("list", "--root", root)
			Expect(list.code).To(Equal(exitOK), list.String())
			Expect(list.stdout).To(ContainSubstring("first-question"))
		},
		Entry("cba", "cba"), Entry("climate", "climate"), Entry("family", "family"),
		Entry("kura", "kura"), Entry("odbchat", "odbchat"),
	)

	It("takes the name after the flags too", func() {
		root := fixturesOf("cba")
		r := testbed("init", "--agent", "cba", "--root", root, "late")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(filepath.Join(root, "scenarios", "late.yaml")).To(BeAnExistingFile())
	})

	It("refuses to overwrite a file", func() {
		root := project()
		path := filepath.Join(root, "scenarios", "odbchat.yaml")
		before := mustRead(path)

		r := testbed("init", "odbchat", "--agent", "odbchat", "--root", root)

		Expect(r.code).To(Equal(exitUsage), r.String())
		Expect(r.stderr).To(ContainSubstring(path + " exists"))
		Expect(mustRead(path)).To(Equal(before))
	})

	DescribeTable("refuses bad usage",
		func(want string, args ...string) {
			r := testbed(append([]string{"init", "--root", GinkgoT().TempDir()}, args...)...)
			Expect(r.code).To(Equal(exitUsage), r.String())
			Expect(r.stderr).To(ContainSubstring(want))
		},
		Entry("no agent", "usage: testbed init <suite> --agent <name>", "mysuite"),
		Entry("no name", "usage: testbed init <suite> --agent <name>", "--agent", "cba"),
		Entry("an unknown agent", `unknown agent "cbb"`, "mysuite", "--agent", "cbb"),
		Entry("a bad name", `suite name "My Suite"`, "My Suite", "--agent", "cba"),
		Entry("a built-in agent and a command", "not both", "mysuite", "--agent", "cba", "--", "node", "agent.js"),
		Entry("nothing after --", "no command after --", "mysuite", "--"),
		Entry("a command without a name", "usage: testbed init <suite> -- <command>", "--", "node", "agent.js"),
		Entry("a provider init does not write", `--provider "azure"`, "mysuite", "--provider", "azure", "--", "node", "agent.js"),
	)
})

var _ = Describe("testbed init for an agent outside testbed", func() {
	DescribeTable("writes a starter suite that loads, lints, records against the stand-in and replays",
		func(provider, model, base, call string) {
			if _, err := exec.LookPath("curl"); err != nil {
				Skip("curl is not installed")
			}
			root := GinkgoT().TempDir()
			// An agent that asks its model once a turn, by the base URL it
			// is given, and says it did.
			agent := "while read -r line; do " + call + " > /dev/null || exit 1; echo '{\"text\": \"asked\"}'; done\n"
			Expect(os.WriteFile(filepath.Join(root, "echo agent.sh"), []byte(agent), 0o755)).To(Succeed())

			r := testbed("init", "mine", "--root", root, "--provider", provider, "--", "sh", "echo agent.sh")

			Expect(r.code).To(Equal(exitOK), r.String())
			path := filepath.Join(root, "scenarios", "mine.yaml")
			s, err := scenario.Load(path, scenario.LoadOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(s.External).NotTo(BeNil())
			Expect(s.External.Command).To(Equal([]string{"sh", "echo agent.sh"}))
			Expect(s.External.Model.Provider).To(Equal(provider))
			Expect(s.External.Model.Model).To(Equal(model))
			Expect(s.External.Model.BaseURL).To(Equal(base))
			Expect(s.Scenarios).To(HaveLen(1))
			Expect(s.Scenarios[0].Turns[0].Expect.Answer).NotTo(BeNil())

			lint := testbed("lint", "--root", root)
			Expect(lint.code).To(Equal(exitOK), lint.String())
			rec := testbed("record", "--root", root)
			Expect(rec.code).To(Equal(exitOK), rec.String())
			run := testbed("run", "--root", root, "--out", "", "--baseline", "")
			Expect(run.code).To(Equal(exitOK), run.String())
			Expect(run.stdout).To(ContainSubstring("PASS: all 2 scenarios and 2 thresholds passed"))
		},
		Entry("OpenAI", "openai", "gpt-4.1-mini", "https://api.openai.com/v1",
			`curl -sf "$OPENAI_BASE_URL/chat/completions" -H "authorization: Bearer $OPENAI_API_KEY" -H 'content-type: application/json' -d '{"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "Hello"}]}'`),
		Entry("Anthropic", "anthropic", "claude-haiku-4-5", "https://api.anthropic.com",
			`curl -sf "$ANTHROPIC_BASE_URL/v1/messages" -H "x-api-key: $ANTHROPIC_API_KEY" -H 'anthropic-version: 2023-06-01' -H 'content-type: application/json' -d '{"model": "claude-haiku-4-5", "max_tokens": 64, "messages": [{"role": "user", "content": "Hello"}]}'`),
		Entry("Gemini", "gemini", "gemini-2.5-flash", "https://generativelanguage.googleapis.com",
			`curl -sf "$GEMINI_BASE_URL/v1beta/models/gemini-2.5-flash:generateContent" -H "x-goog-api-key: $GEMINI_API_KEY" -H 'content-type: application/json' -d '{"contents": [{"role": "user", "parts": [{"text": "Hello"}]}]}'`),
		Entry("Ollama", "ollama", "llama3.2", "http://localhost:11434",
			`curl -sf "$OLLAMA_HOST/api/chat" -d '{"model": "llama3.2", "stream": false, "messages": [{"role": "user", "content": "Hello"}]}'`),
	)

	It("reads its scenarios from a data file with --from", func() {
		root := GinkgoT().TempDir()
		cases := filepath.Join(root, "scenarios", "cases", "desk.csv")
		Expect(os.MkdirAll(filepath.Dir(cases), 0o755)).To(Succeed())
		Expect(os.WriteFile(cases, []byte("id,question\ngreet,Hello\nparts,Are brake pads in stock?\n"), 0o644)).To(Succeed())
		r := testbed("init", "mine", "--root", root, "--from", cases, "--", "node", "agent.js")
		Expect(r.code).To(Equal(exitOK), r.String())
		s, err := scenario.Load(filepath.Join(root, "scenarios", "mine.yaml"), scenario.LoadOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(s.External.Command).To(Equal([]string{"node", "agent.js"}))
		Expect(s.Scenarios).To(HaveLen(2))
	})

	DescribeTable("shows, commented out, an http: service and an MCP server that load as written once uncommented",
		func(commented string, check func(*scenario.External)) {
			root := GinkgoT().TempDir()
			r := testbed("init", "mine", "--root", root, "--", "node", "server.js")
			Expect(r.code).To(Equal(exitOK), r.String())
			path := filepath.Join(root, "scenarios", "mine.yaml")
			text := mustRead(path)
			Expect(text).To(ContainSubstring("\n  #   " + commented))
			Expect(os.WriteFile(path, []byte(strings.Replace(text, "\n  #   "+commented, "\n  "+commented, 1)), 0o644)).To(Succeed())
			s, err := scenario.Load(path, scenario.LoadOptions{})
			Expect(err).NotTo(HaveOccurred())
			check(s.External)
		},
		Entry("http:", "http: ", func(e *scenario.External) { Expect(e.HTTP.URL).To(Equal("http://127.0.0.1:{{port}}/chat")) }),
		Entry("mcp: on stdio", "mcp: ", func(e *scenario.External) { Expect(e.MCP.Transport).To(Equal("stdio")) }),
	)

	It("shows, commented out, an upstream that loads as written once uncommented, and where its stubs go", func() {
		root := GinkgoT().TempDir()
		r := testbed("init", "mine", "--root", root, "--", "node", "agent.js")
		Expect(r.code).To(Equal(exitOK), r.String())
		path := filepath.Join(root, "scenarios", "mine.yaml")
		text := mustRead(path)
		Expect(text).To(ContainSubstring("stubs in fixtures/mine/routes.yaml"))
		const commented = "\n  # upstreams:\n  #   weather: {base_url: \"https://api.open-meteo.com\", env: WEATHER_URL}\n"
		Expect(text).To(ContainSubstring(commented))
		uncommented := "\n  upstreams:\n    weather: {base_url: \"https://api.open-meteo.com\", env: WEATHER_URL}\n"
		Expect(os.WriteFile(path, []byte(strings.Replace(text, commented, uncommented, 1)), 0o644)).To(Succeed())
		s, err := scenario.Load(path, scenario.LoadOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(s.External.Upstreams).To(Equal(map[string]string{"weather": "https://api.open-meteo.com"}))
		Expect(s.External.UpstreamEnv).To(HaveKeyWithValue("weather", "WEATHER_URL"))
	})

	It("takes the model and base URL given", func() {
		root := GinkgoT().TempDir()
		r := testbed("init", "mine", "--root", root, "--model", "qwen3:14b", "--base-url", "http://localhost:8000/v1", "--", "python3", "agent.py")
		Expect(r.code).To(Equal(exitOK), r.String())
		s, err := scenario.Load(filepath.Join(root, "scenarios", "mine.yaml"), scenario.LoadOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(s.External.Model.Model).To(Equal("qwen3:14b"))
		Expect(s.External.Model.BaseURL).To(Equal("http://localhost:8000/v1"))
	})

	DescribeTable("refuses to write a secret given on the command line, and writes nothing",
		func(args ...string) {
			root := GinkgoT().TempDir()
			r := testbed(append([]string{"init", "mine", "--root", root}, args...)...)
			Expect(r.code).To(Equal(exitUsage), r.String())
			Expect(r.stderr).To(ContainSubstring("the new suite would hold a secret given on the command line"))
			Expect(filepath.Join(root, "scenarios", "mine.yaml")).NotTo(BeAnExistingFile())
		},
		Entry("a key among the agent's arguments", "--", "node", "agent.js", "--api-key", "sk-proj-"+"Q7vX2mB9kLp4RtY8wZ3nHc6JfD1sGe5AuK0iOqWxT2yZ"),
		Entry("a password in the base URL", "--base-url", "https://admin:Pw0rd-gateway-8841@gateway.example/v1", "--", "node", "agent.js"),
	)
})

var _ = Describe("testbed init --from", func() {
	It("writes a starter suite whose scenarios are the data file's rows", func() {
		root := project()
		cases := filepath.Join(root, "scenarios", "cases", "sst.csv")
		Expect(os.MkdirAll(filepath.Dir(cases), 0o755)).To(Succeed())
		Expect(os.WriteFile(cases, []byte("case_id,question,tags,expected_tool\nsst-1,現在台灣周遭海溫多少？,zh;bbox,ghrsst.bbox_mean\nsst-2,GHRSST 是什麼？,zh,\n"), 0o644)).To(Succeed())

		r := testbed("init", "sst-cases", "--agent", "odbchat", "--root", root, "--from", cases)

		Expect(r.code).To(Equal(exitOK), r.String())
		path := filepath.Join(root, "scenarios", "sst-cases.yaml")
		Expect(mustRead(path)).To(ContainSubstring("scenarios_from:\n  file: cases/sst.csv\n  id: case_id\n  input: question\n  tags: tags\n"))
		Expect(mustRead(path)).To(ContainSubstring("{expected_tool}"))
		s, err := scenario.Load(path, scenario.LoadOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Scenarios).To(HaveLen(2))
		Expect(s.Scenarios[0].Tags).To(Equal([]string{"zh", "bbox"}))
		lint := testbed("lint", "--root", root, "--suite", "sst-cases")
		Expect(lint.code).To(Equal(exitOK), lint.String())
	})

	It("lists as placeholders only the columns a placeholder can name, and says to rename the others", func() {
		root := project()
		cases := filepath.Join(root, "scenarios", "cases", "odd.csv")
		Expect(os.MkdirAll(filepath.Dir(cases), 0o755)).To(Succeed())
		Expect(os.WriteFile(cases, []byte("id,question,expected tool,\"tool, then mode\",2nd\na,Hello,x,y,z\n"), 0o644)).To(Succeed())
		r := testbed("init", "odd-cases", "--agent", "odbchat", "--root", root, "--from", cases)
		Expect(r.code).To(Equal(exitOK), r.String())
		text := mustRead(filepath.Join(root, "scenarios", "odd-cases.yaml"))
		Expect(text).To(ContainSubstring("the file's other columns: {expected tool}\n"))
		Expect(text).To(ContainSubstring(`# no placeholder can name "tool, then mode", "2nd": rename it`))
		Expect(testbed("lint", "--root", root, "--suite", "odd-cases").code).To(Equal(exitOK))
	})

	It("refuses a file outside scenarios/, saying where to put it", func() {
		root := project()
		cases := filepath.Join(root, "sst.csv")
		Expect(os.WriteFile(cases, []byte("id,input\na,b\n"), 0o644)).To(Succeed())
		r := testbed("init", "sst-cases", "--agent", "odbchat", "--root", root, "--from", cases)
		Expect(r.code).To(Equal(exitUsage), r.String())
		Expect(r.stderr).To(ContainSubstring("move the file under"))
	})
})
