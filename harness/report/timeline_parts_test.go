package report_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

var _ = Describe("a model call on the HTML report's timeline", func() {
	It("gives every part of its input, the overhead among them, so that they add up to the total it gives", func() {
		call := trace.Event{Kind: trace.KindLLM, LLM: &trace.LLMCall{Role: "router", Model: "gemma3:4b", Duration: 400 * time.Millisecond,
			Input: trace.Parts{System: 288, History: 439, User: 209, Overhead: 39}, Output: 74}}
		sc := report.Scenario{ID: "ac1", Verdict: report.VerdictPass, Events: []trace.Event{call},
			Metrics: trace.Measure([]trace.Event{call})}
		v := report.Variant{Name: "single-pass", Scenarios: []report.Scenario{sc}}
		v.Summary = report.Summarize(v.Scenarios)
		r := &report.Report{Mode: "replay", Suites: []report.Suite{{Name: "odbchat", Agent: "odbchat", Variants: []report.Variant{v}}}}
		Expect(string(render(report.WriteHTML, r))).To(ContainSubstring(
			"975 in (system 288, tools 0, history 439, tool results 0, user 209, overhead 39), 74 out"))
	})
})
