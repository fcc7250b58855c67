package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
)

// exampleRoot is the TypeScript example's own project root.
const exampleRoot = repoRoot + "/examples/weather-ts"

// langchainRoot is the LangChain.js example's own project root.
const langchainRoot = repoRoot + "/examples/langchain-ts"

// exampleCopy copies the TypeScript example's project, without its
// packages, into a fresh temporary folder and returns it.
func exampleCopy() string {
	GinkgoHelper()
	return exampleCopyOf(exampleRoot)
}

// exampleCopyOf copies the example project at dir, without its packages,
// into a fresh temporary folder and returns it.
func exampleCopyOf(dir string) string {
	GinkgoHelper()
	root := GinkgoT().TempDir()
	for _, name := range []string{"agent.js", "package.json", "scenarios", "cassettes", "fixtures", "reports"} {
		src := filepath.Join(dir, name)
		info, err := os.Stat(src)
		Expect(err).NotTo(HaveOccurred())
		if info.IsDir() {
			Expect(os.CopyFS(filepath.Join(root, name), os.DirFS(src))).To(Succeed())
		} else {
			Expect(os.WriteFile(filepath.Join(root, name), []byte(mustRead(src)), 0o644)).To(Succeed())
		}
	}
	return root
}

// exampleProject is exampleCopy with the example's node_modules linked in,
// or skips the spec when Node or the example's packages are missing.
func exampleProject() string {
	GinkgoHelper()
	return exampleProjectOf(exampleRoot, "openai")
}

// exampleProjectOf is exampleCopyOf(dir) with its node_modules linked in,
// or skips the spec when Node or the package pkg is missing there.
func exampleProjectOf(dir, pkg string) string {
	GinkgoHelper()
	if _, err := exec.LookPath("node"); err != nil {
		Skip("node is not installed: the example agent runs on Node (make examples installs its packages; .ci/run installs Node)")
	}
	modules, err := filepath.Abs(filepath.Join(dir, "node_modules"))
	Expect(err).NotTo(HaveOccurred())
	if _, err := os.Stat(filepath.Join(modules, pkg)); err != nil {
		Skip(dir + "/node_modules is missing: run make examples (npm ci --prefix " + dir + ")")
	}
	root := exampleCopyOf(dir)
	Expect(os.Symlink(modules, filepath.Join(root, "node_modules"))).To(Succeed())
	return root
}

var _ = Describe("the TypeScript example (examples/weather-ts)", Label("examples"), func() {
	It("replays through its real openai SDK, labelled as the generic plumbing stand-in", func() {
		root := exampleProject()
		r := testbed("run", "--root", root, "--json", "--out", "", "--quiet")
		Expect(r.code).To(Equal(exitOK), r.String())
		var rep report.Report
		Expect(json.Unmarshal([]byte(r.stdout), &rep)).To(Succeed())
		Expect(rep.Suites).To(HaveLen(1))
		v := rep.Suites[0].Variants[0]
		Expect(v.Provenance).To(Equal("replayed from generic plumbing stand-in shaped like gpt-4.1-mini's API"))
		Expect(v.Scenarios).To(HaveLen(6))
		for _, sc := range v.Scenarios {
			Expect(sc.Verdict).To(Equal(report.VerdictPass), sc.ID)
			Expect(sc.Unplayed).To(BeZero(), sc.ID)
		}
	})

	It("records against the generic plumbing stand-in, says so, and reproduces the committed cassettes byte for byte", func() {
		root := exampleProject()
		r := testbed("record", "--root", root, "--json", "--quiet")
		Expect(r.code).To(Equal(exitOK), r.String())
		var rep report.Report
		Expect(json.Unmarshal([]byte(r.stdout), &rep)).To(Succeed())
		Expect(rep.Suites[0].Variants[0].Provenance).To(Equal("generic plumbing stand-in shaped like gpt-4.1-mini's API"))
		paths, err := filepath.Glob(filepath.Join(exampleRoot, "cassettes", "weather-ts", "default", "*.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(paths).To(HaveLen(6))
		for _, p := range paths {
			Expect(mustRead(filepath.Join(root, "cassettes", "weather-ts", "default", filepath.Base(p)))).To(Equal(mustRead(p)), p)
		}
	})

	It("names in testbed show the generic rule that gave each model answer", func() {
		root := exampleProject()
		r := testbed("show", "weather-ts/default/current-oslo", "--root", root)
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(MatchRegexp(`POST https://api.openai.com/v1/chat/completions → 200 in [\d,]+ ms \(stand-in rule generic:call-tool\)`))
		Expect(r.stdout).To(ContainSubstring("(stand-in rule generic:answer-from-results)"))
	})

	It("goes stale (exit 3) when the agent's prompt changes", func() {
		root := exampleProject()
		replace(filepath.Join(root, "agent.js"), "You are a concise weather assistant.", "You are a terse weather assistant.", 1)
		r := testbed("run", "--root", root, "--out", "", "--quiet", "--no-baseline")
		Expect(r.code).To(Equal(exitStale), r.String())
		Expect(r.stdout + r.stderr).To(ContainSubstring("/messages/0/content"))
		Expect(r.stdout + r.stderr).To(ContainSubstring("6 scenario runs stale for one cause"))
		Expect(r.stdout + r.stderr).To(ContainSubstring("re-record them all (only the calls that miss) with: testbed record --suite weather-ts --variant default --root " + root + " --record-missing"))
	})

	It("records by hand through testbed proxy --record: its fixture upstream served, the generic policy named in the provenance", func() {
		root := exampleCopy()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		env, done := serving(ctx, "proxy", "--root", root, "--suite", "weather-ts", "--variant", "default", "--scenario", "current-oslo", "--record")
		vars := map[string]string{}
		for _, line := range env {
			if k, v, ok := strings.Cut(line, "="); ok {
				vars[k] = v
			}
		}
		Expect(vars).To(HaveKey("OPENAI_BASE_URL"))
		Expect(vars).To(HaveKeyWithValue("WEATHER_URL", HaveSuffix("/upstream/weather")), "the suite's upstreams: {weather: {env: WEATHER_URL}}")

		body := `{"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "What's the weather in Oslo?"}], "tools": [{"type": "function",
			"function": {"name": "get_weather", "description": "Current weather in a city", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]}`
		resp, err := http.Post(vars["OPENAI_BASE_URL"]+"/chat/completions", "application/json", strings.NewReader(body))
		Expect(err).NotTo(HaveOccurred())
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK), string(answer))
		Expect(string(answer)).To(ContainSubstring(`"arguments":"{\"city\":\"Oslo\"}"`))

		resp, err = http.Get(vars["WEATHER_URL"] + "/v1/forecast?latitude=59.91&longitude=10.75&current=temperature_2m,relative_humidity_2m,wind_speed_10m")
		Expect(err).NotTo(HaveOccurred())
		forecast, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK), string(forecast))
		Expect(string(forecast)).To(ContainSubstring(`"temperature_2m":-3.2`))

		cancel()
		var r result
		Eventually(done).WithTimeout(time.Minute).Should(Receive(&r))
		Expect(r.code).To(Equal(exitOK), r.String())
		p, err := cassette.ReadProvenance(filepath.Join(root, "cassettes", "weather-ts", "default", "current-oslo.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Policy).To(Equal(cassette.GenericPolicy))
		Expect(p.String()).To(Equal("generic plumbing stand-in shaped like gpt-4.1-mini's API"))
		recorded, err := os.ReadFile(filepath.Join(root, "cassettes", "weather-ts", "default", "current-oslo.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(recorded)).To(MatchRegexp(`X-Testbed-Rule:\s+- generic:call-tool`), "the rule that answered, which testbed show prints")
	})
})

var _ = Describe("the LangChain.js example (examples/langchain-ts)", Label("examples"), func() {
	It("replays both variants through LangChain's ChatOpenAI, the streaming one as server-sent chunks", func() {
		rep := exampleReplay(exampleProjectOf(langchainRoot, "@langchain/openai"), 2, 6)
		streamed := rep.Suites[0].Variants[1]
		Expect(streamed.Name).To(Equal("streaming"))
		Expect(streamed.Summary.Streaming).NotTo(BeNil(), "the streaming variant's calls were streamed")
		Expect(streamed.Summary.Streaming.Calls).To(BeNumerically(">=", 6))
		Expect(rep.Suites[0].Variants[0].Summary.Streaming).To(BeNil(), "the default variant's were not")
	})

	It("records against the stand-ins and reproduces the committed cassettes byte for byte", func() {
		root := exampleProjectOf(langchainRoot, "@langchain/openai")
		r := testbed("record", "--root", root, "--json", "--quiet")
		Expect(r.code).To(Equal(exitOK), r.String())
		expectSameCassettes(langchainRoot, root, "langchain-ts/*/*.yaml", 12)
	})
})

// exampleReplay replays the example project at root, whose one suite's
// variants of scenarios each, recorded against the generic stand-in, must
// all pass with every recorded call replayed, and returns its report.
func exampleReplay(root string, variants, scenarios int) report.Report {
	GinkgoHelper()
	r := testbed("run", "--root", root, "--json", "--out", "", "--quiet")
	Expect(r.code).To(Equal(exitOK), r.String())
	var rep report.Report
	Expect(json.Unmarshal([]byte(r.stdout), &rep)).To(Succeed())
	Expect(rep.Suites).To(HaveLen(1))
	Expect(rep.Suites[0].Variants).To(HaveLen(variants))
	for _, v := range rep.Suites[0].Variants {
		Expect(v.Provenance).To(HavePrefix("replayed from generic plumbing stand-in"), v.Name)
		Expect(v.Scenarios).To(HaveLen(scenarios), v.Name)
		for _, sc := range v.Scenarios {
			Expect(sc.Verdict).To(Equal(report.VerdictPass), v.Name+"/"+sc.ID)
			Expect(sc.Unplayed).To(BeZero(), v.Name+"/"+sc.ID)
		}
	}
	return rep
}

// expectSameCassettes expects the n cassettes under example's cassettes/
// that pattern names to be byte for byte the same under root's.
func expectSameCassettes(example, root, pattern string, n int) {
	GinkgoHelper()
	paths, err := filepath.Glob(filepath.Join(example, "cassettes", pattern))
	Expect(err).NotTo(HaveOccurred())
	Expect(paths).To(HaveLen(n))
	for _, p := range paths {
		rel, err := filepath.Rel(example, p)
		Expect(err).NotTo(HaveOccurred())
		Expect(mustRead(filepath.Join(root, rel))).To(Equal(mustRead(p)), p)
	}
}
