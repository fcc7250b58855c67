// The scenario gate: every scenario × variant of every suite under
// scenarios/ is a spec, labelled with its suite, variant and criterion, and
// every suite threshold is a spec too. The suites are replayed once, offline,
// against the committed cassettes.
//
//	ginkgo --label-filter='odbchat && AC-1' ./scenarios
package scenarios_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/check"
	"github.com/agentreplay/testbed/harness/lint"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
)

func TestScenarios(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Scenario gate")
}

const root = ".."

// suites are loaded when the tree is built, so that each scenario is a spec.
var suites = func() []*scenario.Suite {
	s, err := scenario.LoadDir(".", scenario.LoadOptions{Agents: all.Names(), Metrics: check.MetricNames(), Faults: runner.FaultKinds()})
	if err != nil {
		panic(fmt.Sprintf("scenario suites do not load:\n%v", err))
	}
	return s
}()

var rep *report.Report

var _ = SynchronizedBeforeSuite(func() []byte {
	r, err := runner.Run(context.Background(), suites, runner.Options{
		Mode: cassette.ModeReplay, Root: root, Agents: all.Registry(),
	})
	Expect(err).NotTo(HaveOccurred())
	var buf bytes.Buffer
	Expect(report.WriteJSON(&buf, r)).To(Succeed())
	return buf.Bytes()
}, func(data []byte) {
	var err error
	rep, err = report.ReadJSON(bytes.NewReader(data))
	Expect(err).NotTo(HaveOccurred())
	// The baseline's known failures are reported, not failed, as by testbed run.
	if b, err := os.ReadFile(filepath.Join(root, "reports", "baseline.json")); err == nil {
		base, err := report.ReadJSON(bytes.NewReader(b))
		Expect(err).NotTo(HaveOccurred())
		rep.ApplyKnown(base.KnownFailures)
	}
})

var _ = Describe("scenario", func() {
	for _, s := range suites {
		for _, v := range s.Variants {
			for _, sc := range s.Scenarios {
				labels := Label(s.Name, v.Name)
				if sc.Criterion != "" {
					labels = Label(s.Name, v.Name, sc.Criterion)
				}
				It(fmt.Sprintf("%s/%s/%s", s.Name, v.Name, sc.ID), labels, func() {
					got := find(s.Name, v.Name, sc.ID)
					if got.Known {
						AddReportEntry("known failure (blessed in reports/baseline.json)", got.Explain())
						return
					}
					// A stale, missing or unreadable cassette fails even a
					// suite that does not gate: it is no finding.
					if s.NotGating && got.Verdict != report.VerdictPass && got.Verdict != report.VerdictStale && !got.Unreadable {
						AddReportEntry("not gating (gating: false)", got.Explain())
						return
					}
					Expect(got.Verdict).To(Equal(report.VerdictPass), got.Explain())
				})
			}
		}
	}
})

var _ = Describe("threshold", func() {
	for _, s := range suites {
		for _, v := range s.Variants {
			for _, th := range s.Thresholds[v.Name] {
				It(fmt.Sprintf("%s/%s: %s", s.Name, v.Name, th.Source), Label(s.Name, v.Name, "threshold"), func() {
					for _, t := range variant(s.Name, v.Name).Thresholds {
						if t.Source == th.Source {
							if (s.NotGating || t.Known) && !t.Pass {
								AddReportEntry("not gating (gating: false)", t.Source+": "+t.Detail)
								return
							}
							Expect(t.Pass).To(BeTrue(), "%s: %s", t.Source, t.Detail)
							return
						}
					}
					Fail("threshold missing from the report: " + th.Source)
				})
			}
		}
	}
})

var _ = Describe("replay", func() {
	It("is hermetic: no live call, every recorded interaction replayed, no unused cassette", Label("hermetic"), func() {
		Expect(rep.Replay).NotTo(BeNil())
		Expect(rep.Replay.LiveCalls).To(Equal(0))
		Expect(rep.Replay.Replayed).To(Equal(rep.Replay.Recorded), "recorded interactions were left unplayed")
		Expect(rep.Replay.UnusedCassettes).To(BeEmpty(), "cassettes that belong to no scenario")
	})
})

var _ = Describe("baseline gate", func() {
	It("holds every suite within its gate against reports/baseline.json", Label("gate"), func() {
		data, err := os.ReadFile(filepath.Join(root, "reports", "baseline.json"))
		Expect(err).NotTo(HaveOccurred(), "bless a baseline with: testbed baseline bless")
		base, err := report.ReadJSON(bytes.NewReader(data))
		Expect(err).NotTo(HaveOccurred())
		gates := map[string]map[string]float64{}
		for _, s := range suites {
			if s.NotGating {
				continue
			}
			gates[s.Name] = s.Gate
			if s.Gate == nil {
				gates[s.Name] = scenario.DefaultGate()
			}
		}
		Expect(report.Uncompared(base, rep, gates)).To(BeEmpty(), "reports/baseline.json lacks these, so the gate would not compare them; bless with: testbed baseline bless")
		regs := report.Regressions(base, rep, gates)
		var table bytes.Buffer
		Expect(report.WriteRegressionsText(&table, regs)).To(Succeed())
		Expect(regs).To(BeEmpty(), "%s\nif intended, run: testbed baseline bless", table.String())
	})
})

var _ = Describe("reports/summary.md", func() {
	It("is what a fresh replay writes, so the numbers in the repo are never stale", Label("report"), func() {
		committed, err := os.ReadFile(filepath.Join(root, "reports", "summary.md"))
		Expect(err).NotTo(HaveOccurred(), refreshSummary)
		var fresh bytes.Buffer
		Expect(report.WriteMarkdown(&fresh, rep)).To(Succeed())
		// Gomega shows where the two first differ.
		Expect(fresh.String()).To(Equal(string(committed)), "reports/summary.md (below: expected) is stale against a replay of the suites (above); "+refreshSummary)
	})
})

// refreshSummary says exactly which command refreshes reports/summary.md
// and what else it rewrites.
const refreshSummary = `refresh it with: make report
(it builds bin/testbed, replays every suite in scenarios/*.yaml with bin/testbed run --no-baseline, which writes
reports/latest.md, reports/latest-full.md and reports/latest.json, copies reports/latest-full.md to reports/summary.md, renders
reports/report.html, and reports/report.png when Chromium is installed); then commit reports/`

var _ = Describe("prompt lint", func() {
	for _, s := range suites {
		It(s.Name+": every tool a prompt names is in that variant's tool set", Label(s.Name, "lint"), func() {
			problems, err := lint.Suites(root, []*scenario.Suite{s}, all.Registry())
			Expect(err).NotTo(HaveOccurred())
			var lines []string
			for _, p := range problems {
				lines = append(lines, p.String())
			}
			Expect(lines).To(BeEmpty())
		})
	}
})

func variant(suite, name string) *report.Variant {
	for i := range rep.Suites {
		if rep.Suites[i].Name != suite {
			continue
		}
		for j := range rep.Suites[i].Variants {
			if rep.Suites[i].Variants[j].Name == name {
				return &rep.Suites[i].Variants[j]
			}
		}
	}
	Fail(fmt.Sprintf("variant %s/%s missing from the report", suite, name))
	return nil
}

func find(suite, v, id string) report.Scenario {
	for _, sc := range variant(suite, v).Scenarios {
		if sc.ID == id {
			return sc
		}
	}
	Fail(fmt.Sprintf("scenario %s/%s/%s missing from the report", suite, v, id))
	return report.Scenario{}
}
