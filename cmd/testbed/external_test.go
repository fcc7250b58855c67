package main

import (
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
					Raw: sc.Metrics.RawTokens, Context: sc.Metrics.ContextTokens, Latency: int64(sc.Metrics.Latency), Streams: sc.Metrics.Streams}
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
	info := all.Registry()[name].Info
	var b strings.Builder
	fmt.Fprintf(&b, "agent:\n  name: %s-ext\n  command: [%s, agent, %s, --root, %s]\n  all_turns: true\n", name, bin, name, root)
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

var _ = Describe("the built-in agents run as outside ones", func() {
	It("replay every committed suite through the proxy and the JSON-lines driver with the in-process results", func() {
		root := GinkgoT().TempDir()
		for _, dir := range []string{"cassettes", "fixtures", "scenarios"} {
			Expect(os.CopyFS(filepath.Join(root, dir), os.DirFS(filepath.Join(repoRoot, dir)))).To(Succeed())
		}
		bin := filepath.Join(GinkgoT().TempDir(), "testbed")
		out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))

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
		Expect(names).To(HaveLen(12))
		for name := range all.Registry() {
			Expect(os.CopyFS(filepath.Join(root, "fixtures", name+"-ext"), os.DirFS(filepath.Join(root, "fixtures", name)))).To(Succeed())
		}

		run := func(suite string) map[string]outcome {
			GinkgoHelper()
			r := testbed("run", "--root", root, "--suite", suite, "--json", "--out", "", "--baseline", "", "--quiet")
			var rep report.Report
			Expect(json.Unmarshal([]byte(r.stdout), &rep)).To(Succeed(), r.String())
			return outcomes(&rep)
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
			in, ext := run(name), run(name+"-ext")
			total += len(in)
			for k, want := range in {
				got := ext[k]
				if gemini[name+" "+strings.Split(k, "/")[0]] {
					geminiRuns++
					Expect(got.Input.ToolResults == 0).To(Equal(want.Input.ToolResults == 0), k)
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
		r := testbed("run", "--root", root, "--suite", "odbchat-ext", "--out", "", "--baseline", "", "--quiet")
		Expect(r.stdout).To(MatchRegexp(`(?m)^odbchat-ext/single-pass: the agent's own processing, wall clock, not in its latency: p50 \d+ms, p95 \d+ms over 30 scenario runs$`), r.String())
		Expect(r.stdout).NotTo(ContainSubstring("odbchat/single-pass: the agent's own processing"))
		Expect(total).To(BeNumerically(">", 300))
		Expect(geminiRuns).To(BeNumerically("<", total/3))
		Expect(streamed).To(BeNumerically(">=", 27+16), "the climate and kura streaming variants stream outside too, with their timing")
	})
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
