package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
)

var _ = Describe("a kept-alive program", func() {
	// testdata/keptstate is a JSON-lines agent (sh and curl) that sends the
	// model every input it was ever given, across runs: each scenario is
	// recorded alone, by a fresh program, and replayed by programs that
	// serve several runs, so every run after a program's first misses.
	leaky := func(keep string) string {
		GinkgoHelper()
		root := GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(root, "scenarios"), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(root, "agent.sh"), []byte(mustRead("testdata/keptstate/agent.sh")), 0o644)).To(Succeed())
		suite := strings.Replace(mustRead("testdata/keptstate/leaky.yaml"), "keep_alive: variant", "keep_alive: "+keep, 1)
		Expect(os.WriteFile(filepath.Join(root, "scenarios", "leaky.yaml"), []byte(suite), 0o644)).To(Succeed())
		for _, id := range []string{"s1", "s2", "s3"} {
			r := testbed("record", "--root", root, "--suite", "leaky", "--scenario", id, "--quiet")
			Expect(r.code).To(Equal(exitOK), r.String())
		}
		return root
	}
	// replays replays root three times with args and returns each
	// scenario's verdict and error, the same every time.
	replays := func(root string, args ...string) map[string]report.Scenario {
		GinkgoHelper()
		var first map[string]report.Scenario
		for range 3 {
			r := testbed(append([]string{"run", "--root", root, "--json", "--out", "", "--baseline", "", "--quiet"}, args...)...)
			Expect(r.code).To(Equal(exitStale), r.String())
			var rep report.Report
			Expect(json.Unmarshal([]byte(r.stdout), &rep)).To(Succeed())
			got := map[string]report.Scenario{}
			for _, sc := range rep.Suites[0].Variants[0].Scenarios {
				got[sc.ID] = report.Scenario{Verdict: sc.Verdict, Error: sc.Error}
			}
			if first == nil {
				first = got
			}
			Expect(got).To(Equal(first), "every replay the same")
		}
		return first
	}

	It("kept for its variant serves the variant's runs in scenario order every time, and a miss says which run it kept state from", func() {
		got := replays(leaky("variant"))
		Expect(got["s1"].Verdict).To(Equal(report.VerdictPass), "the first run has nothing to leak")
		Expect(got["s2"].Verdict).To(Equal(report.VerdictStale))
		Expect(got["s2"].Error).To(ContainSubstring(`the program kept state from run leaky/default/s1: this request carries that run's "first question about the weather"`))
		Expect(got["s3"].Error).To(ContainSubstring(`the program kept state from runs leaky/default/s1, leaky/default/s2: this request carries what they said ("first question about the weather", "second question about the tides, a longer one")`))
	})

	It("kept for any of the agent's runs is one of as many as run at once, each dealt the same runs in turn every time", func() {
		root := leaky("agent")
		got := replays(root, "-j", "2")
		Expect(got["s1"].Verdict).To(Equal(report.VerdictPass), "the first program's first run")
		Expect(got["s2"].Verdict).To(Equal(report.VerdictPass), "the second program's first run")
		Expect(got["s3"].Verdict).To(Equal(report.VerdictStale))
		Expect(got["s3"].Error).To(ContainSubstring(`the program kept state from run leaky/default/s1: this request carries that run's "first question about the weather"`))

		got = replays(root, "-j", "1")
		Expect(got["s2"].Error).To(ContainSubstring(`the program kept state from run leaky/default/s1:`), "one program serves them all")
		Expect(got["s3"].Error).To(ContainSubstring(`the program kept state from runs leaky/default/s1, leaky/default/s2:`))
	})
})
