package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/trace"
)

// outcome is what must not change when an agent runs outside testbed.
type outcome struct {
	Verdict, Route, Error string
	Failed                []string
	Tools                 []string
	LLM, HTTP             int
	Input                 trace.Parts
	InputTokens, Output   int
	Raw, Context          int
	Embeds, EmbedTokens   int
	Latency               int64
	// Streams is the timing of each streamed model call: an outside agent
	// on a streaming SDK replays its streams with their timing.
	Streams []trace.StreamCall
}

func outcomes(rep *report.Report) map[string]outcome {
	out := map[string]outcome{}
	for _, s := range rep.Suites {
		for _, v := range s.Variants {
			for _, sc := range v.Scenarios {
				o := outcome{Verdict: sc.Verdict, Route: sc.Route, Error: sc.Error, LLM: sc.Metrics.LLMCalls, HTTP: sc.Metrics.HTTPCalls,
					Input: sc.Metrics.Input, InputTokens: sc.Metrics.InputTokens, Output: sc.Metrics.OutputTokens,
					Raw: sc.Metrics.RawTokens, Context: sc.Metrics.ContextTokens, Latency: int64(sc.Metrics.Latency), Streams: sc.Metrics.Streams,
					Embeds: sc.Metrics.EmbedCalls, EmbedTokens: sc.Metrics.EmbedTokens}
				for _, c := range sc.Checks {
					if !c.Pass {
						o.Failed = append(o.Failed, c.Name+": "+c.Detail)
					}
				}
				for _, e := range sc.Events {
					if e.Kind == trace.KindTool {
						o.Tools = append(o.Tools, e.Tool.Name)
					}
				}
				out[v.Name+"/"+sc.ID] = o
			}
		}
	}
	return out
}

// outside returns the agent: block that runs a built-in agent as an
// outside one, through bin (testbed agent NAME).
func outside(bin, root, name string) string {
	return agentBlock(name, fmt.Sprintf("  command: [%s, agent, %s, --root, %s]\n  all_turns: true\n", bin, name, root))
}

// agentBlock is the agent: block of built-in agent name run as an outside
// one, named name-ext, with its endpoints; how (indented lines) says how
// the program is run.
func agentBlock(name, how string) string {
	info := all.Registry()[name].Info
	var b strings.Builder
	fmt.Fprintf(&b, "agent:\n  name: %s-ext\n%s", name, how)
	fmt.Fprintf(&b, "  model: {provider: %s, base_url: %q, model: %q}\n", info.Model.Provider, info.Model.BaseURL, info.Model.Model)
	if e := info.Embeddings; e != nil && e.BaseURL != info.Model.BaseURL {
		fmt.Fprintf(&b, "  embeddings: %q\n", e.BaseURL)
	}
	if len(info.Upstreams) > 0 {
		b.WriteString("  upstreams:\n")
		for _, u := range slices.Sorted(maps.Keys(info.Upstreams)) {
			fmt.Fprintf(&b, "    %s: {base_url: %q}\n", u, info.Upstreams[u])
		}
	}
	return b.String()
}

// buildTestbed builds the testbed binary and returns its path.
func buildTestbed() string {
	GinkgoHelper()
	bin := filepath.Join(GinkgoT().TempDir(), "testbed")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), string(out))
	return bin
}

// odbchatAs writes, under root (a project()), suite name: the odbchat suite
// with its agent run as an outside one as how says, and its cassettes.
func odbchatAs(root, name, how string) {
	GinkgoHelper()
	text := mustRead(filepath.Join(root, "scenarios", "odbchat.yaml"))
	Expect(text).To(ContainSubstring("\nagent: odbchat\n"))
	text = strings.Replace(text, "suite: odbchat\n", "suite: "+name+"\n", 1)
	text = strings.Replace(text, "\nagent: odbchat\n", "\n"+agentBlock("odbchat", how), 1)
	Expect(os.WriteFile(filepath.Join(root, "scenarios", name+".yaml"), []byte(text), 0o644)).To(Succeed())
	Expect(os.CopyFS(filepath.Join(root, "cassettes", name), os.DirFS(filepath.Join(root, "cassettes", "odbchat")))).To(Succeed())
}

// replayOutcomes replays suite under root and returns its outcomes.
func replayOutcomes(root, suite string) map[string]outcome {
	GinkgoHelper()
	r := testbed("run", "--root", root, "--suite", suite, "--json", "--out", "", "--baseline", "", "--quiet")
	var rep report.Report
	Expect(json.Unmarshal([]byte(r.stdout), &rep)).To(Succeed(), r.String())
	return outcomes(&rep)
}

var _ = Describe("the built-in agents run as outside ones", func() {
	It("replay every committed suite through the proxy and the JSON-lines driver with the in-process results", func() {
		root := GinkgoT().TempDir()
		for _, dir := range []string{"cassettes", "fixtures", "scenarios"} {
			Expect(os.CopyFS(filepath.Join(root, dir), os.DirFS(filepath.Join(repoRoot, dir)))).To(Succeed())
		}
		bin := buildTestbed()

		paths, err := filepath.Glob(filepath.Join(root, "scenarios", "*.yaml"))
		Expect(err).NotTo(HaveOccurred())
		var names []string
		for _, p := range paths {
			text := mustRead(p)
			name := strings.TrimSuffix(filepath.Base(p), ".yaml")
			agent := regexp.MustCompile(`(?m)^agent: (\S+)\n`).FindStringSubmatch(text)
			Expect(agent).NotTo(BeNil(), p)
			ext := strings.Replace(text, "suite: "+name+"\n", "suite: "+name+"-ext\n", 1)
			ext = strings.Replace(ext, agent[0], outside(bin, root, agent[1]), 1)
			Expect(os.WriteFile(filepath.Join(root, "scenarios", name+"-ext.yaml"), []byte(ext), 0o644)).To(Succeed())
			Expect(os.CopyFS(filepath.Join(root, "cassettes", name+"-ext"), os.DirFS(filepath.Join(root, "cassettes", name)))).To(Succeed())
			names = append(names, name)
		}
		Expect(len(names)).To(BeNumerically(">=", 14), "the committed suites, not an empty glob")
		for name := range all.Registry() {
			Expect(os.CopyFS(filepath.Join(root, "fixtures", name+"-ext"), os.DirFS(filepath.Join(root, "fixtures", name)))).To(Succeed())
		}

		// Over Gemini's wire a tool result travels as a structured
		// functionResponse, which the wire reading counts as it is; the
		// in-process count reads the agent's text, as an OpenAI request
		// carries it. The two differ in the tool-result tokens only.
		gemini := map[string]bool{}
		for _, s := range committedSuitesAt(root) {
			for _, v := range s.Variants {
				ep := all.Registry()[s.Agent].Info.Model
				if v.Endpoint != nil {
					ep = *v.Endpoint
				}
				gemini[s.Name+" "+v.Name] = ep.Provider == "gemini"
			}
		}
		var diff []string
		total, geminiRuns, streamed := 0, 0, 0
		for _, name := range names {
			in, ext := replayOutcomes(root, name), replayOutcomes(root, name+"-ext")
			total += len(in)
			for k, want := range in {
				got := ext[k]
				if gemini[name+" "+strings.Split(k, "/")[0]] {
					geminiRuns++
					Expect(got.Input.ToolResults == 0).To(Equal(want.Input.ToolResults == 0), "%s %s:\n  in-process %+v\n  outside    %+v", name, k, want, got)
					got.Input.ToolResults, want.Input.ToolResults = 0, 0
					got.InputTokens, want.InputTokens = 0, 0
				}
				if len(got.Streams) > 0 && got.Streams[0].FirstToken > 0 {
					streamed++
				}
				if !reflect.DeepEqual(got, want) {
					diff = append(diff, fmt.Sprintf("%s %s:\n  in-process %+v\n  outside    %+v", name, k, want, got))
				}
			}
		}
		sort.Strings(diff)
		Expect(diff).To(BeEmpty())

		By("printing the outside agent's own processing time beside, not in, its latency")
		const dur = `(\d+ms|\d+(\.\d+)?s)` // milliseconds, or seconds on a loaded machine
		r := testbed("run", "--root", root, "--suite", "odbchat-ext", "--out", "", "--baseline", "", "--quiet")
		Expect(r.stdout).To(MatchRegexp(`(?m)^odbchat-ext/single-pass: the agent's own processing, wall clock, not in its latency: p50 `+dur+`, p95 `+dur+` over 30 scenario runs$`), r.String())
		Expect(r.stdout).NotTo(ContainSubstring("odbchat/single-pass: the agent's own processing"))
		Expect(total).To(BeNumerically(">", 300))
		Expect(geminiRuns).To(BeNumerically("<", total/3))
		Expect(streamed).To(BeNumerically(">=", 27+16+18), "the climate, kura and family responses-streaming variants stream outside too, with their timing")
	})
})

var _ = Describe("ODBchat served over MCP", func() {
	DescribeTable("replays the committed odbchat suite through testbed serve odbchat and the mcp: driver with the in-process results",
		func(keep string) {
			root := project()
			bin := buildTestbed()
			odbchatAs(root, "odbchat-mcp", fmt.Sprintf("  command: [%s, serve, odbchat, --root, %s]\n", bin, root)+
				"  mcp: {url: \"http://127.0.0.1:{{port}}/mcp\", tool: router.answer, args: {query: \"{{input}}\", debug: true}}\n"+keep)

			in, served := replayOutcomes(root, "odbchat"), replayOutcomes(root, "odbchat-mcp")
			Expect(len(in)).To(BeNumerically(">=", 50))
			Expect(served).To(HaveLen(len(in)))
			var diff []string
			for k, want := range in {
				if got := served[k]; !reflect.DeepEqual(got, want) {
					diff = append(diff, fmt.Sprintf("%s:\n  in-process %+v\n  over MCP   %+v", k, want, got))
				}
			}
			sort.Strings(diff)
			Expect(diff).To(BeEmpty())
		},
		Entry("a server per scenario run", ""),
		Entry("a server per variant, kept alive for its runs", "  keep_alive: variant\n"),
	)
})

var _ = Describe("a built-in agent run as an outside program by testbed agent", func() {
	DescribeTable("replays the committed odbchat suite over JSON lines with the in-process results",
		func(keep string) {
			root := project()
			bin := buildTestbed()
			odbchatAs(root, "odbchat-lines", fmt.Sprintf("  command: [%s, agent, odbchat, --root, %s]\n  all_turns: true\n", bin, root)+keep)

			in, outside := replayOutcomes(root, "odbchat"), replayOutcomes(root, "odbchat-lines")
			Expect(len(in)).To(BeNumerically(">=", 50))
			Expect(outside).To(HaveLen(len(in)))
			var diff []string
			for k, want := range in {
				if got := outside[k]; !reflect.DeepEqual(got, want) {
					diff = append(diff, fmt.Sprintf("%s:\n  in-process %+v\n  outside    %+v", k, want, got))
				}
			}
			sort.Strings(diff)
			Expect(diff).To(BeEmpty())
		},
		Entry("a program per scenario run", ""),
		Entry("a program per variant, serving its runs one after the other until stdin ends", "  keep_alive: variant\n"),
		Entry("programs for any of its runs, each told its run's variant in the run's first line", "  keep_alive: agent\n"),
	)
})

// committedSuitesAt loads the built-in agents' suites under root.
func committedSuitesAt(root string) []*scenario.Suite {
	GinkgoHelper()
	var out []*scenario.Suite
	paths, err := filepath.Glob(filepath.Join(root, "scenarios", "*.yaml"))
	Expect(err).NotTo(HaveOccurred())
	for _, p := range paths {
		s, err := scenario.Load(p, scenario.LoadOptions{})
		Expect(err).NotTo(HaveOccurred())
		if s.External == nil {
			out = append(out, s)
		}
	}
	return out
}

var _ = Describe("an outside agent that fails", func() {
	DescribeTable("fails each scenario with the driver's reason, runs every other, and leaves no program running",
		func(how func(bin, root string) string, want string) {
			root := project()
			bin := buildTestbed()
			odbchatAs(root, "broken", how(bin, root))

			r := testbed("run", "--root", root, "--suite", "broken", "--json", "--out", "", "--baseline", "", "--quiet")
			Expect(r.code).To(Equal(exitFailed), r.String())
			var rep report.Report
			Expect(json.Unmarshal([]byte(r.stdout), &rep)).To(Succeed(), r.String())
			got := outcomes(&rep)
			Expect(len(got)).To(BeNumerically(">=", 50))
			for k, o := range got {
				Expect(o.Verdict).To(Equal(report.VerdictError), k)
				Expect(o.Error).To(MatchRegexp(want), k)
			}
			out, _ := exec.Command("pgrep", "-f", root).Output()
			Expect(strings.TrimSpace(string(out))).To(BeEmpty(), "programs left running")
		},
		Entry("a service that never listens", func(_, root string) string {
			return fmt.Sprintf("  command: [sh, -c, \"sleep 30; exit 1\", %s]\n  http: {url: \"http://127.0.0.1:{{port}}/chat\"}\n  start_timeout: 200ms\n", root)
		}, `^the agent's service did not listen on 127\.0\.0\.1:\d+ within 200ms \(command \["sh" "-c" "sleep 30; exit 1" ".*"\]\)$`),
		Entry("an MCP server without the tool, kept alive", func(bin, root string) string {
			return fmt.Sprintf("  command: [%s, serve, odbchat, --root, %s]\n  mcp: {url: \"http://127.0.0.1:{{port}}/mcp\", tool: nosuch}\n  keep_alive: variant\n", bin, root)
		}, `^turn 1: call nosuch: .*nosuch`),
	)

	It("stops every kept-alive program when the run is interrupted, even one still starting", func() {
		root := project()
		odbchatAs(root, "starting", fmt.Sprintf("  command: [sh, -c, \"sleep 60; exit 1\", %s]\n  http: {url: \"http://127.0.0.1:{{port}}/chat\"}\n  keep_alive: variant\n  start_timeout: 50s\n", root))

		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := background(ctx, "run", "--root", root, "--suite", "starting", "--out", "", "--baseline", "", "--quiet")
		Eventually(func() string {
			out, _ := exec.Command("pgrep", "-f", root).Output()
			return string(out)
		}).WithTimeout(20 * time.Second).ShouldNot(BeEmpty())
		cancel()
		var r result
		Eventually(done).WithTimeout(20 * time.Second).Should(Receive(&r))
		Expect(r.code).To(Equal(exitSignal), r.String())
		out, _ := exec.Command("pgrep", "-f", root).Output()
		Expect(strings.TrimSpace(string(out))).To(BeEmpty(), "programs left running")
	})
})
