package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
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
}

func outcomes(rep *report.Report) map[string]outcome {
	out := map[string]outcome{}
	for _, s := range rep.Suites {
		for _, v := range s.Variants {
			for _, sc := range v.Scenarios {
				o := outcome{Verdict: sc.Verdict, Route: sc.Route, Error: sc.Error, LLM: sc.Metrics.LLMCalls, HTTP: sc.Metrics.HTTPCalls,
					Input: sc.Metrics.Input, InputTokens: sc.Metrics.InputTokens, Output: sc.Metrics.OutputTokens,
					Raw: sc.Metrics.RawTokens, Context: sc.Metrics.ContextTokens, Latency: int64(sc.Metrics.Latency)}
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

var _ = Describe("a built-in agent run as an outside one", func() {
	It("replays its suite through the proxy and the JSON-lines driver with the in-process results", func() {
		root := project()
		bin := filepath.Join(GinkgoT().TempDir(), "testbed")
		build := exec.Command("go", "build", "-o", bin, ".")
		out, err := build.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))

		suite := mustRead(filepath.Join(root, "scenarios", "odbchat.yaml"))
		suite = strings.Replace(suite, "suite: odbchat\nagent: odbchat\n", `suite: odbchat-ext
agent:
  name: odbchat-ext
  command: [`+bin+`, agent, odbchat, --root, `+root+`]
  model: {provider: openai, base_url: "http://localhost:11434/v1", model: gemma3:4b}
  upstreams: {ghrsst: {base_url: "https://eco.odb.ntu.edu.tw"}}
`, 1)
		Expect(suite).To(ContainSubstring("name: odbchat-ext"))
		Expect(os.WriteFile(filepath.Join(root, "scenarios", "odbchat-ext.yaml"), []byte(suite), 0o644)).To(Succeed())
		Expect(os.CopyFS(filepath.Join(root, "cassettes", "odbchat-ext"), os.DirFS(filepath.Join(root, "cassettes", "odbchat")))).To(Succeed())

		run := func(suite string) *report.Report {
			GinkgoHelper()
			r := testbed("run", "--root", root, "--suite", suite, "--json", "--out", "", "--baseline", "", "--quiet")
			var rep report.Report
			Expect(json.Unmarshal([]byte(r.stdout), &rep)).To(Succeed(), r.String())
			return &rep
		}
		in, ext := outcomes(run("odbchat")), outcomes(run("odbchat-ext"))
		Expect(in).To(HaveLen(60))
		var diff []string
		for k, want := range in {
			if got := ext[k]; !reflect.DeepEqual(got, want) {
				diff = append(diff, fmt.Sprintf("%s:\n  in-process %+v\n  outside    %+v", k, want, got))
			}
		}
		sort.Strings(diff)
		Expect(diff).To(BeEmpty())
	})
})
