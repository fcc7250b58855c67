package report_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

var _ = Describe("SummarizeStreams", func() {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	call := func(role string, ttft, dur time.Duration, tokens, output int) trace.StreamCall {
		return trace.StreamCall{Role: role, Output: output,
			Stream: trace.Stream{Events: tokens + 2, TokenEvents: tokens, FirstToken: ttft, GapMean: ms(10), GapP95: ms(20), Duration: dur}}
	}
	scenario := func(calls ...trace.StreamCall) report.Scenario {
		return report.Scenario{Verdict: report.VerdictPass, Metrics: trace.Metrics{Streams: calls}}
	}

	It("is nil when no call streamed", func() {
		Expect(report.SummarizeStreams([]report.Scenario{{Verdict: report.VerdictPass}}, nil)).To(BeNil())
	})

	It("gives time to first token by percentile and role, time per output token, rate and goodput against a budget", func() {
		scs := []report.Scenario{
			scenario(call("router", ms(200), ms(1200), 11, 11)), // TPOT 100ms
			scenario(call("answer", ms(400), ms(600), 5, 21)),   // TPOT 10ms, 105 tok/s
			scenario(call("answer", -1, ms(300), 0, 0)),         // ended before a token
		}
		st := report.SummarizeStreams(scs, &report.Budget{TTFT: ms(300), TPOT: ms(50)})
		Expect(st.Calls).To(Equal(3))
		Expect(st.Tokenless).To(Equal(1))
		Expect(st.TTFTMean).To(Equal(300.0))
		Expect(st.TTFTP50).To(Equal(200.0))
		Expect(st.TTFTP95).To(Equal(400.0))
		Expect(st.TPOTMean).To(Equal(55.0))
		Expect(st.TokensPerSecond).To(BeNumerically("~", (11/1.0+21/0.2)/2, 1e-9))
		Expect(st.DurationMean).To(Equal(700.0))
		Expect(st.GapMean).To(Equal(10.0))
		Expect(*st.Goodput).To(BeNumerically("==", 0), "the router was slow per token, the answer late, the last tokenless")
		Expect(st.Roles).To(Equal(map[string]float64{"router": 200, "answer": 400}))

		st = report.SummarizeStreams(scs, &report.Budget{TTFT: ms(500), TPOT: ms(100)})
		Expect(*st.Goodput).To(BeNumerically("~", 2.0/3, 1e-9))
	})

	It("is part of a variant's summary", func() {
		s := report.Summarize([]report.Scenario{scenario(call("", ms(150), ms(400), 3, 6))})
		Expect(s.Streaming).NotTo(BeNil())
		Expect(s.Streaming.TTFTP95).To(Equal(150.0))
		Expect(s.Streaming.Roles).To(BeNil(), "an agent without roles has none to list")
	})
})

var _ = Describe("the streamed calls' table", func() {
	It("shows time to first token beside the stream's duration, per variant, with goodput and tokenless streams", func() {
		r := passing()
		good := 0.5
		r.Suites[0].Variants[0].Summary.Streaming = &report.Streaming{Calls: 4, Tokenless: 1, TTFTMean: 310, TTFTP50: 280, TTFTP95: 620,
			GapMean: 21, GapP95: 48, TPOTMean: 24, TokensPerSecond: 41.7, DurationMean: 1490, Goodput: &good, Roles: map[string]float64{"router": 280, "writer": 340}}
		for _, w := range []writer{report.WriteText, report.WriteMarkdown} {
			text := string(render(w, r))
			Expect(text).To(ContainSubstring("streamed model calls (time to first token, from the request)"))
			Expect(text).To(MatchRegexp(`280 ms\s*\|?\s*620 ms\s*\|?\s*310 ms`))
			Expect(text).To(ContainSubstring("1,490 ms"))
			Expect(text).To(ContainSubstring("50.0%"))
			Expect(text).To(ContainSubstring("1 streamed call carried no token"))
			Expect(text).To(ContainSubstring("role writer, ttft mean 340 ms"))
		}
		Expect(string(render(report.WriteText, passing()))).NotTo(ContainSubstring("streamed model calls"))
	})
})

var _ = Describe("the time-to-first-token chart", func() {
	It("draws each streamed call's first token beside the latency chart, with the ttft threshold as its budget", func() {
		r := passing()
		v := &r.Suites[0].Variants[0]
		v.Summary.Streaming = &report.Streaming{Calls: 1, TTFTP50: 420, TTFTP95: 420}
		v.Scenarios[0].Metrics.Streams = []trace.StreamCall{{Role: "writer", Output: 9,
			Stream: trace.Stream{Events: 12, TokenEvents: 9, FirstToken: 420 * time.Millisecond, Duration: 1900 * time.Millisecond}}}
		v.Thresholds = append(v.Thresholds, report.Threshold{Source: "ttft_p95 < 800ms", Observed: 420, Target: 800, Pass: true})
		html := string(render(report.WriteHTML, r))
		Expect(html).To(ContainSubstring(`aria-label="time to first token per streamed call (dots), p50 and p95 (ticks)"`))
		Expect(html).To(ContainSubstring("first token at 420 ms of 1900 ms"))
		Expect(html).To(ContainSubstring(">budget 0.8 s</text>"))
		Expect(string(render(report.WriteHTML, passing()))).NotTo(ContainSubstring("time to first token per streamed call"))
	})
})

var _ = Describe("comparing streamed variants", func() {
	It("gives the time-to-first-token, gap, rate and goodput deltas", func() {
		r := passing()
		base := r.Suites[0].Variants[0]
		head := base
		base.Scenarios = append([]report.Scenario(nil), base.Scenarios...)
		head.Scenarios = append([]report.Scenario(nil), head.Scenarios...)
		streamed := func(sc *report.Scenario, ttft time.Duration) {
			sc.Metrics.Streams = []trace.StreamCall{{Output: 11, Stream: trace.Stream{Events: 12, TokenEvents: 10, FirstToken: ttft,
				GapMean: 40 * time.Millisecond, GapP95: 40 * time.Millisecond, Duration: ttft + 400*time.Millisecond}}}
		}
		streamed(&base.Scenarios[0], 300*time.Millisecond)
		streamed(&head.Scenarios[0], 450*time.Millisecond)
		g1, g2 := 0.9, 0.6
		base.Summary.Streaming = &report.Streaming{Goodput: &g1}
		head.Summary.Streaming = &report.Streaming{Goodput: &g2}
		var buf strings.Builder
		Expect(report.WriteComparisonText(&buf, []report.Comparison{report.CompareVariants("s", &base, &head, "base", "head")}, report.CompareFilter{})).To(Succeed())
		text := buf.String()
		Expect(text).To(MatchRegexp(`time to first token mean \(ms\)\s+300\s+450\s+\+150 \(\+50\.0%\)`))
		Expect(text).To(MatchRegexp(`time to first token p95 \(ms\)\s+300\s+450\s+\+150 \(\+50\.0%\)`))
		Expect(text).To(MatchRegexp(`gap between tokens p95 \(ms\)\s+40\s+40\s+=`))
		Expect(text).To(MatchRegexp(`goodput \(%\)\s+90\.0\s+60\.0\s+-30\.0`))
	})
})

var _ = Describe("JUnit of streamed calls", func() {
	It("carries the variant's streaming figures and each scenario's time to first token as properties, and none without streams", func() {
		r := passing()
		v := &r.Suites[0].Variants[0]
		v.Summary.Streaming = &report.Streaming{Calls: 1, TTFTMean: 420, TTFTP50: 420, TTFTP95: 420}
		v.Scenarios[0].Metrics.Streams = []trace.StreamCall{{Output: 3, Stream: trace.Stream{Events: 4, TokenEvents: 3, FirstToken: 420 * time.Millisecond, Duration: time.Second}}}
		xml := string(render(report.WriteJUnit, r))
		Expect(xml).To(ContainSubstring(`<property name="ttft_p95_ms" value="420"></property>`))
		Expect(xml).To(ContainSubstring(`<property name="ttft_ms" value="420"></property>`))
		Expect(string(render(report.WriteJUnit, passing()))).NotTo(ContainSubstring("ttft"))
	})
})

var _ = Describe("the HTML trace's timeline", func() {
	It("draws each scenario run on its replayed clock: model calls split at the first token, HTTP exchanges, tools", func() {
		r := passing()
		v := &r.Suites[0].Variants[0]
		v.Scenarios = append([]report.Scenario(nil), v.Scenarios...)
		st := &trace.Stream{Events: 5, TokenEvents: 3, FirstToken: 300 * time.Millisecond, Duration: 900 * time.Millisecond}
		v.Scenarios[0].Events = []trace.Event{
			{Kind: trace.KindLLM, At: 0, LLM: &trace.LLMCall{Role: "writer", Model: "m", Duration: 900 * time.Millisecond, Output: 3, Stream: st}},
			{Kind: trace.KindHTTP, At: 0, HTTP: &trace.Exchange{Method: "POST", URL: "https://api.example/v1/chat/completions", Status: 200, Duration: 900 * time.Millisecond, Stream: st}},
			{Kind: trace.KindTool, At: 900 * time.Millisecond, Tool: &trace.ToolCall{Name: "weather", RawTokens: 50, ContextTokens: 10}},
		}
		html := string(render(report.WriteHTML, r))
		Expect(html).To(ContainSubstring(`aria-label="timeline on the replayed clock"`))
		Expect(html).To(ContainSubstring("writer m at 0 ms for 900 ms"))
		Expect(html).To(ContainSubstring("; first token after 300 ms</title>"))
		Expect(html).To(ContainSubstring("POST https://api.example/v1/chat/completions → 200 at 0 ms for 900 ms"))
		Expect(html).To(ContainSubstring("weather at 900 ms: raw 50 tokens → context 10 tokens"))
	})
})
