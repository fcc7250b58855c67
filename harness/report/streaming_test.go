package report_test

import (
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
