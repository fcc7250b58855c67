package report_test

import (
	"encoding/json"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

// fetchRun is a passing run: one model call of 1,000 input tokens by a
// planner and an answerer, 2 s, one streamed call with its first token at
// 200 ms, and one fetch whose 1,000 raw tokens were trimmed to 100.
func fetchRun(id string) report.Scenario {
	sc := scenarioOf(id, report.VerdictPass, "tool:a", 1000, 1, 2*time.Second, "ok")
	sc.Metrics.Input = trace.Parts{System: 1000}
	sc.Metrics.Roles = map[string]trace.Role{"planner": {Calls: 1, InputTokens: 600, Latency: 1500 * time.Millisecond},
		"answer": {Calls: 1, InputTokens: 400, Latency: 500 * time.Millisecond}}
	sc.Metrics.Streams = []trace.StreamCall{{Role: "planner", Output: 20,
		Stream: trace.Stream{TokenEvents: 20, FirstToken: 200 * time.Millisecond, Duration: time.Second}}}
	sc.Events = []trace.Event{{Kind: trace.KindTool, Tool: &trace.ToolCall{Name: "fetch", RawTokens: 1000, ContextTokens: 100}}}
	return sc
}

// stoppedRun is a run that stopped at a cassette miss (stale) or an error
// after a model call, 400 ms and two tool calls, one of a tool no measured
// run called: figures that are part of a run, which no table may show as
// if measured.
func stoppedRun(id, verdict string) report.Scenario {
	sc := scenarioOf(id, verdict, "tool:a", 300, 1, 400*time.Millisecond, "")
	sc.Error = "cassette has no match"
	sc.Metrics.OutputTokens = 7
	sc.Metrics.Input = trace.Parts{System: 300}
	sc.Metrics.Roles = map[string]trace.Role{"planner": {Calls: 1, InputTokens: 300, Latency: 400 * time.Millisecond}}
	sc.Metrics.Streams = []trace.StreamCall{{Role: "planner", Output: 3,
		Stream: trace.Stream{TokenEvents: 3, FirstToken: 50 * time.Millisecond, Duration: 400 * time.Millisecond}}}
	sc.Events = []trace.Event{
		{Kind: trace.KindTool, Tool: &trace.ToolCall{Name: "fetch", RawTokens: 5000, ContextTokens: 4900}},
		{Kind: trace.KindTool, Tool: &trace.ToolCall{Name: "lookup", RawTokens: 800, ContextTokens: 100}},
	}
	return sc
}

// reportOf is a one-suite report of variant v over scs, summarized and
// trimmed as package runner does.
func reportOf(scs ...report.Scenario) *report.Report {
	v := report.Variant{Name: "v", Scenarios: scs, Summary: report.Summarize(scs), Trimming: report.Trimming(scs)}
	return &report.Report{SchemaVersion: report.SchemaVersion, Mode: "replay",
		Suites: []report.Suite{{Name: "s", Agent: "x", Tokenizer: "o200k_base", Variants: []report.Variant{v}}}}
}

var verdicts = []TableEntry{Entry("a stale run", report.VerdictStale), Entry("an errored run", report.VerdictError)}

var _ = Describe("the row of a run that was not measured", func() {
	// rows are a's and b's rows of the per-scenario table in each format
	// that draws it: a shows its figures, b none.
	DescribeTable("shows no figure in the per-scenario table, in every format",
		func(verdict string) {
			r := reportOf(fetchRun("a"), stoppedRun("b", verdict))
			up := strings.ToUpper(verdict)
			text := string(render(report.WriteText, r))
			Expect(text).To(MatchRegexp(`(?m)^a\s+PASS\s+tool:a ✓\s+1\s+1000\s+0\s+2000 ms\s+unpriced$`))
			Expect(text).To(MatchRegexp(`(?m)^b\s+%s\s+tool:a ✓\s+—\s+—\s+—\s+—\s+—$`, up), "not 1 call, 300 tokens in 400 ms")
			Expect(text).To(ContainSubstring("⚠ —: not measured; 1 of 2 runs stale or errored"))

			md := string(render(report.WriteMarkdown, r))
			Expect(md).To(ContainSubstring("| b |  | ❌ " + up + " | tool:a ✓ | — | — | — | — | — |"))

			page := string(render(report.WriteHTML, r))
			Expect(page).To(ContainSubstring(`<tr><td>b</td><td></td><td>` + up + `</td><td>tool:a ✓</td>` +
				strings.Repeat(`<td class="num">—</td>`, 5) + `</tr>`))
			Expect(page).To(ContainSubstring(up + " · calls, tokens and latency not measured"))
			Expect(page).NotTo(ContainSubstring("300 in / 7 out tokens"), "the trace's summary line shows no figure either")
		},
		verdicts,
	)

	DescribeTable("is flagged in the JSON, its metrics kept as they were",
		func(verdict string) {
			r := reportOf(fetchRun("a"), stoppedRun("b", verdict))
			js := string(render(report.WriteJSON, r))
			var d struct {
				Suites []struct {
					Variants []struct {
						Scenarios []map[string]any `json:"scenarios"`
					} `json:"variants"`
				} `json:"suites"`
			}
			Expect(json.Unmarshal([]byte(js), &d)).To(Succeed())
			a, b := d.Suites[0].Variants[0].Scenarios[0], d.Suites[0].Variants[0].Scenarios[1]
			Expect(a).NotTo(HaveKey("unmeasured"), "a measured run has no flag, as before")
			Expect(b).To(HaveKeyWithValue("unmeasured", true))
			Expect(b["metrics"]).To(HaveKeyWithValue("input_tokens", 300.0), "what it did before it stopped, for a reader who wants it")
			Expect(string(render(report.WriteJSON, mustRead(js)))).To(Equal(js), "the same bytes after a round trip")
			older := mustRead(strings.Replace(js, `"unmeasured": true,`, "", 1))
			Expect(older.Suites[0].Variants[0].Scenarios[1]).To(HaveField("Unmeasured", true), "a file written before the flag reads as flagged")
		},
		verdicts,
	)

	It("shows a sampled scenario's figures by its first sample, whose they are", func() {
		later := report.Sample([]report.Scenario{fetchRun("a"), stoppedRun("a", report.VerdictStale)}, 0.5)
		first := report.Sample([]report.Scenario{stoppedRun("b", report.VerdictError), fetchRun("b")}, 0.5)
		text := string(render(report.WriteText, reportOf(later, first)))
		Expect(text).To(MatchRegexp(`(?m)^a\s+STALE\s+tool:a ✓\s+1\s+1000\s+0\s+2000 ms`), "sample 1 was measured, though the scenario is stale")
		Expect(text).To(MatchRegexp(`(?m)^b\s+PASS\s+tool:a ✓\s+—\s+—\s+—\s+—\s+unpriced$`), "sample 1 errored; sample 2 passed, as the scenario does")
	})
})

var _ = Describe("the payload trimming of runs that were not measured", func() {
	DescribeTable("is left out of the rows, counted apart, and a tool only they called has no figure",
		func(verdict string) {
			trims := report.Trimming([]report.Scenario{fetchRun("a"), stoppedRun("b", verdict), stoppedRun("c", verdict)})
			trim := func(tool string, calls, raw, context int, reduction float64, unmeasured int) types.GomegaMatcher {
				// by field name, so that the spec compiles (and fails) on a
				// ToolTrim without Unmeasured
				return SatisfyAll(HaveField("Tool", tool), HaveField("Calls", calls), HaveField("RawTokens", raw),
					HaveField("ContextTokens", context), HaveField("Reduction", BeNumerically("~", reduction, 1e-9)), HaveField("Unmeasured", unmeasured))
			}
			Expect(trims).To(HaveExactElements(trim("fetch", 1, 1000, 100, 0.9, 2), trim("lookup", 0, 0, 0, 0, 2)),
				"not fetch 3 calls 11000 → 9900 (10.0%)")

			text := string(render(report.WriteText, reportOf(fetchRun("a"), stoppedRun("b", verdict), stoppedRun("c", verdict))))
			Expect(text).To(MatchRegexp(`(?m)^v\s+fetch\s+1\s+1000\s+100\s+90\.0%$`))
			Expect(text).To(MatchRegexp(`(?m)^v\s+lookup\s+—\s+—\s+—\s+not measured$`), "not 0 0 or a percentage")
			Expect(text).To(MatchRegexp(`(?m)^v\s+total\s+1\s+1000\s+100\s+90\.0%$`))
			Expect(text).To(ContainSubstring("⚠ v: over 1 of 3 runs; 2 stale or errored, not measured: their tool calls are left out"))
		},
		verdicts,
	)

	It("says a variant that measured no run trimmed nothing it can show, in its total too", func() {
		r := reportOf(stoppedRun("b", report.VerdictStale))
		text := string(render(report.WriteText, r))
		Expect(text).To(MatchRegexp(`(?m)^v\s+fetch\s+—\s+—\s+—\s+not measured$`))
		Expect(text).To(MatchRegexp(`(?m)^v\s+total\s+—\s+—\s+—\s+not measured$`))
		Expect(text).To(ContainSubstring("⚠ v: over 0 of 1 run; 1 stale or errored, not measured: their tool calls are left out"))
		Expect(string(render(report.WriteBrief, r))).To(MatchRegexp(`s/v\s+0/1 ✗\s+100\.0%\s+—\s+—`), "its reduction is no 0.0%")
	})

	It("counts a sampled scenario's samples as runs, in its rows and in the note", func() {
		sampled := report.Sample([]report.Scenario{fetchRun("a"), stoppedRun("a", report.VerdictStale), fetchRun("a")}, 0.5)
		text := string(render(report.WriteText, reportOf(sampled)))
		Expect(text).To(MatchRegexp(`(?m)^v\s+fetch\s+2\s+2000\s+200\s+90\.0%$`), "both measured samples, not sample 1 alone")
		Expect(text).To(ContainSubstring("⚠ v: over 2 of 3 runs; 1 stale or errored, not measured: their tool calls are left out"))
	})

	It("writes a tool no measured run called with null figures beside the count that says why", func() {
		var d struct {
			Suites []struct {
				Variants []struct {
					Trimming []map[string]any `json:"trimming"`
				} `json:"variants"`
			} `json:"suites"`
		}
		js := render(report.WriteJSON, reportOf(fetchRun("a"), stoppedRun("b", report.VerdictStale)))
		Expect(json.Unmarshal(js, &d)).To(Succeed())
		fetch, lookup := d.Suites[0].Variants[0].Trimming[0], d.Suites[0].Variants[0].Trimming[1]
		Expect(fetch).To(HaveKeyWithValue("raw_tokens", 1000.0))
		Expect(fetch).To(HaveKeyWithValue("unmeasured_runs", 1.0))
		Expect(lookup).To(Equal(map[string]any{"tool": "lookup", "calls": 0.0, "raw_tokens": nil, "context_tokens": nil,
			"reduction": nil, "unmeasured_runs": 1.0}))
		Expect(string(render(report.WriteJSON, mustRead(string(js))))).To(Equal(string(js)), "reads back as written")
	})
})

var _ = Describe("the other tables and charts of a variant's runs", func() {
	r := func() *report.Report { return reportOf(fetchRun("a"), stoppedRun("b", report.VerdictStale)) }

	It("give input tokens by part as a mean over the runs measured", func() {
		text := string(render(report.WriteText, r()))
		Expect(text).To(MatchRegexp(`(?m)^v\s+1000\s+0\s+0\s+0\s+0\s+0\s+1000\s+—$`), "not (1000 + 300) / 2 = 650")
		Expect(text).To(ContainSubstring("input tokens by part (mean per scenario)\n"))
		Expect(string(render(report.WriteHTML, r()))).To(ContainSubstring("v · system: 1000 tokens"), "and so does the chart")
	})

	It("total LLM calls by role over the runs measured", func() {
		text := string(render(report.WriteText, r()))
		Expect(text).To(MatchRegexp(`(?m)^v\s+planner\s+1\s+600\s+0\s+1500 ms$`), "not 2 calls, 900 tokens, 1900 ms")
		Expect(string(render(report.WriteHTML, r()))).To(ContainSubstring("v · planner: 1500 ms"), "and so does the chart")

		none := string(render(report.WriteText, reportOf(stoppedRun("b", report.VerdictError))))
		Expect(none).To(MatchRegexp(`(?m)^v\s+—\s+—\s+—\s+—\s+not measured$`))
	})

	It("count every measured sample of a sampled scenario, as the summary does", func() {
		later := fetchRun("a")
		later.Metrics.Input = trace.Parts{System: 2000}
		later.Metrics.Roles = map[string]trace.Role{"planner": {Calls: 2, InputTokens: 2000, Latency: time.Second}}
		sampled := reportOf(report.Sample([]report.Scenario{fetchRun("a"), stoppedRun("a", report.VerdictStale), later}, 0.5))
		text := string(render(report.WriteText, sampled))
		Expect(text).To(MatchRegexp(`(?m)^v\s+1500\s+0\s+0\s+0\s+0\s+0\s+1500\s+—$`), "the mean of samples 1 and 3, not sample 1's 1000")
		Expect(text).To(MatchRegexp(`(?m)^v\s+planner\s+3\s+2600\s+0\s+2500 ms$`), "samples 1 and 3 together")
		Expect(text).To(ContainSubstring("⚠ v: over 2 of 3 runs; 1 stale or errored, not measured"))
		Expect(string(render(report.WriteHTML, sampled))).To(ContainSubstring("v · system: 1500 tokens"), "and so does the chart")
	})

	It("time first tokens over the runs measured, in the table, the chart and the summary", func() {
		s := r().Suites[0].Variants[0].Summary
		Expect(s.Streaming.Calls).To(Equal(1))
		Expect(s.Streaming.TTFTP50).To(Equal(200.0), "not the 50 ms of a call that stopped with its run")
		Expect(string(render(report.WriteHTML, r()))).NotTo(ContainSubstring("first token at 50 ms"))
		Expect(string(render(report.WriteText, r()))).To(MatchRegexp(`(?m)^v\s+1\s+200 ms\s+200 ms\s+200 ms`))
	})

	It("give a stale or errored run no replayed latency in JUnit", func() {
		xml := string(render(report.WriteJUnit, r()))
		Expect(xml).To(ContainSubstring(`<property name="replayed_latency_ms" value="2000"></property>`))
		Expect(xml).NotTo(ContainSubstring(`value="400"`))
		Expect(xml).To(MatchRegexp(`<testcase classname="s.v" name="b" time="0.000">\s*<error`), "no properties: its latency was not measured")
	})

	It("give sampled means as no figure when no sample measured them", func() {
		sc := report.Sample([]report.Scenario{stoppedRun("a", report.VerdictStale), stoppedRun("a", report.VerdictError)}, 0.5)
		text := string(render(report.WriteText, reportOf(sc)))
		Expect(text).To(MatchRegexp(`(?m)^v\s+a\s+0/2\s+.*\(k=2\)\s+—\s+—\s+—\s+—$`), "not 0 tokens, 0.00 calls, 0 ms")
		Expect(text).To(MatchRegexp(`(?m)^v\s+all runs\s+0/2\s+.*\(k=2\)\s+—\s+—\s+—\s+—$`))
		Expect(text).To(ContainSubstring("⚠ v/a: over 0 of 2 samples; 2 stale or errored, not measured"))
	})
})
