package report_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

// comparedFixture is two variants of one suite: "moved", whose head asks
// for other arguments, calls one more tool and answers otherwise; "miss",
// whose head missed its cassette at its second step; "same", alike on
// both sides; and "sampled", with three samples a side.
func comparedFixture() report.Comparison {
	ms := time.Millisecond
	model := func(at time.Duration, role, text string, calls ...trace.Call) trace.Event {
		return trace.Event{Kind: trace.KindLLM, At: at, LLM: &trace.LLMCall{Role: role, Model: "m", Duration: 100 * ms,
			Input: trace.Parts{System: 100, User: 10}, Output: 20, Text: text, ToolCalls: calls}}
	}
	tool := func(at time.Duration, name, args string) trace.Event {
		return trace.Event{Kind: trace.KindTool, At: at, Tool: &trace.ToolCall{Name: name, Args: json.RawMessage(args), RawTokens: 50, ContextTokens: 10}}
	}
	run := func(id, verdict string, answer []string, latency time.Duration, events ...trace.Event) report.Scenario {
		return report.Scenario{ID: id, Verdict: verdict, Route: "tool:sst", Answer: answer, Events: events,
			Metrics: trace.Metrics{LLMCalls: 2, InputTokens: 220, OutputTokens: 40, Latency: latency}}
	}
	// sampled is three samples whose latencies are lat-5, lat and lat+5 ms.
	sampled := func(lat time.Duration) report.Scenario {
		var runs []report.Scenario
		for _, d := range []time.Duration{-5, 0, 5} {
			runs = append(runs, run("sampled", report.VerdictPass, []string{"ok"}, lat+d*ms))
		}
		return report.Sample(runs, 1)
	}
	base := &report.Variant{Name: "old", Scenarios: []report.Scenario{
		run("moved", report.VerdictPass, []string{"SST is 27.4 °C.\nSource: GHRSST."}, 300*ms,
			model(0, "answer", "", trace.Call{Name: "sst", Arguments: json.RawMessage(`{"bbox":[118,20,123,26],"day":"2025-11-05"}`)}),
			tool(100*ms, "sst", `{"bbox":[118,20,123,26],"day":"2025-11-05"}`),
			model(200*ms, "answer", "SST is 27.4 °C.")),
		run("miss", report.VerdictPass, []string{"fine"}, 300*ms,
			model(0, "answer", "", trace.Call{Name: "sst", Arguments: json.RawMessage(`{}`)}),
			tool(100*ms, "sst", `{}`), model(200*ms, "answer", "fine")),
		run("same", report.VerdictPass, []string{"same"}, 100*ms, model(0, "answer", "same")),
		sampled(300 * ms),
	}}
	head := &report.Variant{Name: "new", Scenarios: []report.Scenario{
		run("moved", report.VerdictPass, []string{"SST is 26.9 °C.\nSource: GHRSST."}, 400*ms,
			model(0, "answer", "", trace.Call{Name: "sst", Arguments: json.RawMessage(`{"bbox":[118,20,124,26]}`)}),
			tool(100*ms, "sst", `{"bbox":[118,20,124,26]}`),
			tool(150*ms, "trend", `{"years":5}`),
			model(200*ms, "answer", "SST is 26.9 °C.")),
		// As a trace holds them: the exchange that missed, then the model
		// call it carried, which failed, both from 200 ms.
		run("miss", report.VerdictStale, nil, 200*ms,
			model(0, "answer", "", trace.Call{Name: "sst", Arguments: json.RawMessage(`{}`)}),
			tool(100*ms, "sst", `{}`),
			trace.Event{Kind: trace.KindHTTP, At: 200 * ms, HTTP: &trace.Exchange{Method: "POST", URL: "https://api.openai.com/v1/chat/completions",
				Error: "stale cassette: no recorded interaction matches POST https://api.openai.com/v1/chat/completions"}},
			trace.Event{Kind: trace.KindLLM, At: 200 * ms, LLM: &trace.LLMCall{Role: "answer", Model: "m", Error: "could not reach the language model"}}),
		run("same", report.VerdictPass, []string{"same"}, 100*ms, model(0, "answer", "same")),
		sampled(340 * ms),
	}}
	return report.CompareVariants("s", base, head, "old", "new")
}

var _ = Describe("WriteComparisonHTML", func() {
	page := func(f report.CompareFilter) string {
		var buf bytes.Buffer
		Expect(report.WriteComparisonHTML(&buf, []report.Comparison{comparedFixture()}, f)).To(Succeed())
		return buf.String()
	}
	// block is one scenario's block of the page.
	block := func(html, id string) string {
		m := regexp.MustCompile(`(?s)<details class="scenario[^"]*" id="s-old-new-` + id + `".*?</details>`).FindString(html)
		Expect(m).NotTo(BeEmpty(), "no block for %s", id)
		return m
	}
	rows := func(html, class string) int { return strings.Count(html, `<tr class="`+class+`">`) }

	It("is one self-contained page that reads on a phone", func() {
		html := page(report.CompareFilter{})
		Expect(html).To(HavePrefix("<!DOCTYPE html>"))
		Expect(html).NotTo(MatchRegexp(`src=|href="[^#]|<link|<script`))
		Expect(html).To(ContainSubstring(`<meta name="viewport"`))
		Expect(html).To(ContainSubstring(`<a href="#s-old-new-moved" class="verdict-fail">▲ moved</a>`))
	})

	It("keeps the summary and per-scenario tables of the text comparison", func() {
		html := page(report.CompareFilter{})
		Expect(html).To(ContainSubstring("<h2>s: old → new (4 scenarios both ran)</h2>"))
		Expect(html).To(ContainSubstring("<th>noise (95%)</th>"))
		Expect(html).To(ContainSubstring("<td>▲ moved</td>"))
		Expect(html).To(ContainSubstring("answer line 1: &#34;SST is 27.4 °C.&#34; → &#34;SST is 26.9 °C.&#34;"))
	})

	It("aligns the steps: same tools beside each other, their arguments diffed as JSON, an extra tool on its own row", func() {
		b := block(page(report.CompareFilter{}), "moved")
		Expect(rows(b, "step-changed")).To(Equal(3)) // the ask, the tool with other arguments, the answer
		Expect(rows(b, "step-head")).To(Equal(1))
		Expect(b).To(MatchRegexp(`<tr class="step-head"><td class="num">3</td>\s*<td>—</td>\s*<td class="ins"><b>tool trend</b>`))
		Expect(b).To(ContainSubstring(`<tr><td>/bbox/2</td><td class="del">123</td><td class="ins">124</td></tr>`))
		Expect(b).To(ContainSubstring(`<tr><td>/day</td><td class="del">&#34;2025-11-05&#34;</td><td class="ins">(absent)</td></tr>`))
	})

	It("diffs the answers line by line", func() {
		b := block(page(report.CompareFilter{}), "moved")
		Expect(b).To(ContainSubstring(`<tr class="line-base"><td class="del"><pre>SST is 27.4 °C.</pre></td><td><pre></pre></td></tr>`))
		Expect(b).To(ContainSubstring(`<tr class="line-head"><td><pre></pre></td><td class="ins"><pre>SST is 26.9 °C.</pre></td></tr>`))
		Expect(b).To(ContainSubstring(`<tr class="line-same"><td><pre>Source: GHRSST.</pre></td><td><pre>Source: GHRSST.</pre></td></tr>`))
	})

	It("shows a cassette miss at the step where it happened", func() {
		b := block(page(report.CompareFilter{}), "miss")
		Expect(rows(b, "step-same")).To(Equal(2)) // the ask and the tool
		Expect(b).To(MatchRegexp(`(?s)<tr class="step-miss"><td class="num">3</td>\s*<td class="del"><b>model call answer \(m\) · 110 in / 20 out</b><pre>fine</pre></td>\s*` +
			`<td class="ins"><b>model call answer \(m\) · 0 in / 0 out — cassette miss: POST https://api.openai.com/v1/chat/completions</b> <span class="miss">✗</span><pre>stale cassette: no recorded`))
		Expect(rows(b, "step-base") + rows(b, "step-head")).To(BeZero())
		Expect(b).To(ContainSubstring("PASS → STALE"))
	})

	It("gives each scenario's metric deltas with the noise of sampled ones", func() {
		html := page(report.CompareFilter{})
		Expect(block(html, "sampled")).To(MatchRegexp(`<tr><td>latency \(ms\)</td><td class="num">300</td><td class="num">340</td><td class="num">&#43;40 \(&#43;13.3%\)</td><td>±[0-9.]+ beyond noise</td></tr>`))
		Expect(block(html, "moved")).To(ContainSubstring(`<tr><td>latency (ms)</td><td class="num">300</td><td class="num">400</td><td class="num">&#43;100 (&#43;33.3%)</td><td>—</td></tr>`))
	})

	It("says which side's report kept no trace", func() {
		base := &report.Variant{Name: "old", Scenarios: []report.Scenario{{ID: "moved", Verdict: report.VerdictPass}}}
		head := &report.Variant{Name: "new", Scenarios: []report.Scenario{{ID: "moved", Verdict: report.VerdictPass,
			Events: []trace.Event{{Kind: trace.KindTool, Tool: &trace.ToolCall{Name: "sst"}}}}}}
		c := report.CompareVariants("s", base, head, "old", "new")
		var buf bytes.Buffer
		Expect(report.WriteComparisonHTML(&buf, []report.Comparison{c}, report.CompareFilter{})).To(Succeed())
		Expect(buf.String()).To(ContainSubstring("<p>the base report keeps no trace of this run (a blessed baseline keeps none): head's steps only</p>"))
		Expect(buf.String()).To(ContainSubstring(`<tr class="step-head"><td class="num">1</td>`))
	})

	It("opens the regressions, folds the rest, and leaves out what the filter drops", func() {
		html := page(report.CompareFilter{})
		Expect(block(html, "moved")).To(HavePrefix(`<details class="scenario regressed" id="s-old-new-moved" open>`))
		Expect(block(html, "same")).To(HavePrefix(`<details class="scenario" id="s-old-new-same">`))
		Expect(page(report.CompareFilter{Changed: true})).NotTo(ContainSubstring(`id="s-old-new-same"`))
	})
})
