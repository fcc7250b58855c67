package check_test

import (
	"sort"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/check"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/scenario"
)

// summary has a distinct value in every metric.
var summary = report.Summary{
	Scenarios:        20,
	Passed:           19,
	PassRate:         0.95,
	Routed:           20,
	RoutingAccuracy:  0.9,
	LLMCallsMean:     1.5,
	ToolCallsMean:    0.75,
	InputTokensMean:  812.5,
	OutputTokensMean: 61.25,
	TokenReduction:   0.693,
	LatencyMean:      1100,
	LatencyP50:       1000,
	LatencyP95:       1500,
	LatencyP99:       2100,
}

var _ = Describe("MetricNames and Value", func() {
	It("lists the metrics, sorted", func() {
		names := check.MetricNames()
		Expect(sort.StringsAreSorted(names)).To(BeTrue())
		Expect(names).To(ConsistOf("routing_accuracy", "pass_rate", "token_reduction", "input_tokens_mean",
			"output_tokens_mean", "llm_calls_mean", "tool_calls_mean", "latency_mean", "latency_p50",
			"latency_p95", "latency_p99", "prompt_tokens_per_call", "artifacts",
			"ttft_mean", "ttft_p50", "ttft_p95", "ttft_p99", "gap_mean", "gap_p95", "tpot_mean", "output_tps_mean",
			"stream_duration_mean", "goodput", "cost_mean", "cost_p95", "cost_total", "rubric_score_mean", "grader_kappa"))
	})

	DescribeTable("reads each metric from a summary",
		func(name string, want float64) {
			v, ok := check.Value(name, summary)
			Expect(ok).To(BeTrue())
			Expect(v).To(Equal(want))
		},
		Entry(nil, "routing_accuracy", 0.9),
		Entry(nil, "pass_rate", 0.95),
		Entry(nil, "token_reduction", 0.693),
		Entry(nil, "input_tokens_mean", 812.5),
		Entry(nil, "output_tokens_mean", 61.25),
		Entry(nil, "llm_calls_mean", 1.5),
		Entry(nil, "tool_calls_mean", 0.75),
		Entry(nil, "latency_mean", 1100.0),
		Entry(nil, "latency_p50", 1000.0),
		Entry(nil, "latency_p95", 1500.0),
		Entry(nil, "latency_p99", 2100.0),
	)

	It("knows every name it lists and no other", func() {
		for _, n := range check.MetricNames() {
			_, ok := check.Value(n, summary)
			Expect(ok).To(BeTrue(), n)
		}
		_, ok := check.Value("latency_p90", summary)
		Expect(ok).To(BeFalse())
	})
})

var _ = Describe("Thresholds", func() {
	with := func(change func(*report.Summary)) report.Summary {
		s := summary
		change(&s)
		return s
	}
	slower := with(func(s *report.Summary) { s.LatencyP95 = 2500; s.LatencyMean = 1300; s.LLMCallsMean = 2 })

	DescribeTable("one threshold",
		func(th scenario.Threshold, s report.Summary, base *report.Summary, observed, target float64, detail string) {
			th.Source = "the source"
			got := check.Thresholds([]scenario.Threshold{th}, s, base)
			Expect(got).To(HaveLen(1))
			Expect(got[0].Source).To(Equal("the source"))
			Expect(got[0].Detail).To(Equal(detail))
			Expect(got[0].Pass).To(Equal(detail == ""))
			Expect(got[0].Observed).To(Equal(observed))
			Expect(got[0].Target).To(Equal(target))
		},
		Entry("a number", scenario.Threshold{Metric: "routing_accuracy", Op: ">=", Value: 0.9},
			summary, nil, 0.9, 0.9, ""),
		Entry("a number, failing", scenario.Threshold{Metric: "routing_accuracy", Op: ">=", Value: 0.95},
			summary, nil, 0.9, 0.95, "routing_accuracy = 0.9, want >= 0.95"),
		Entry("a count", scenario.Threshold{Metric: "input_tokens_mean", Op: "<", Value: 1000},
			summary, nil, 812.5, 1000.0, ""),
		Entry("a count, failing", scenario.Threshold{Metric: "input_tokens_mean", Op: "<", Value: 800},
			summary, nil, 812.5, 800.0, "input_tokens_mean = 812.5, want < 800"),
		Entry("a percentage", scenario.Threshold{Metric: "token_reduction", Op: ">=", Value: 0.6, Unit: "%"},
			summary, nil, 0.693, 0.6, ""),
		Entry("a percentage, failing", scenario.Threshold{Metric: "pass_rate", Op: "==", Value: 1, Unit: "%"},
			summary, nil, 0.95, 1.0, "pass_rate = 95.0%, want == 100.0%"),
		Entry("a duration", scenario.Threshold{Metric: "latency_p95", Op: "<", Value: 2, Unit: "s"},
			summary, nil, 1500.0, 2000.0, ""),
		Entry("a duration, failing", scenario.Threshold{Metric: "latency_p95", Op: "<", Value: 2, Unit: "s"},
			slower, nil, 2500.0, 2000.0, "latency_p95 = 2500 ms, want < 2000 ms"),
		Entry("a sub-second duration", scenario.Threshold{Metric: "latency_p50", Op: "<=", Value: 0.999, Unit: "s"},
			summary, nil, 1000.0, 999.0, "latency_p50 = 1000 ms, want <= 999 ms"),
		Entry("a latency in plain milliseconds", scenario.Threshold{Metric: "latency_p99", Op: "<=", Value: 2100},
			summary, nil, 2100.0, 2100.0, ""),
		Entry("equality allows for rounding", scenario.Threshold{Metric: "llm_calls_mean", Op: "==", Value: 1.5000000000001},
			summary, nil, 1.5, 1.5000000000001, ""),
		Entry("the baseline", scenario.Threshold{Metric: "llm_calls_mean", Op: "<=", Baseline: true},
			summary, &slower, 1.5, 2.0, ""),
		Entry("the baseline, failing", scenario.Threshold{Metric: "llm_calls_mean", Op: "<=", Baseline: true},
			slower, &summary, 2.0, 1.5, "llm_calls_mean = 2, want <= 1.5 (baseline)"),
		Entry("the baseline's latency, failing", scenario.Threshold{Metric: "latency_mean", Op: "<", Baseline: true},
			slower, &summary, 1300.0, 1100.0, "latency_mean = 1300 ms, want < 1100 ms (baseline)"),
		Entry("an unknown metric", scenario.Threshold{Metric: "latency_p90", Op: "<", Value: 2, Unit: "s"},
			summary, nil, 0.0, 0.0, `unknown metric "latency_p90" (want one of artifacts, cost_mean, cost_p95, cost_total, gap_mean, gap_p95, goodput, grader_kappa, input_tokens_mean, latency_mean, `+
				`latency_p50, latency_p95, latency_p99, llm_calls_mean, output_tokens_mean, output_tps_mean, pass_rate, `+
				`prompt_tokens_per_call, routing_accuracy, rubric_score_mean, stream_duration_mean, token_reduction, tool_calls_mean, tpot_mean, `+
				`ttft_mean, ttft_p50, ttft_p95, ttft_p99)`),
		Entry("an unknown operator", scenario.Threshold{Metric: "pass_rate", Op: "=<", Value: 1},
			summary, nil, 0.95, 1.0, `unknown operator "=<" (want <, <=, >, >=, == or !=)`),
		Entry("a duration on a metric that is not a latency", scenario.Threshold{Metric: "pass_rate", Op: ">", Value: 1, Unit: "s"},
			summary, nil, 0.95, 0.0, "pass_rate is not a latency; write its target without a duration unit"),
	)

	It("keeps the thresholds' order", func() {
		ths := []scenario.Threshold{
			{Source: "routing_accuracy >= 0.95", Metric: "routing_accuracy", Op: ">=", Value: 0.95},
			{Source: "llm_calls_mean <= baseline", Metric: "llm_calls_mean", Op: "<=", Baseline: true},
			{Source: "latency_p95 < 2s", Metric: "latency_p95", Op: "<", Value: 2, Unit: "s"},
		}
		got := check.Thresholds(ths, summary, &slower)
		Expect(got).To(HaveLen(3))
		for i, th := range ths {
			Expect(got[i].Source).To(Equal(th.Source))
		}
		Expect([]bool{got[0].Pass, got[1].Pass, got[2].Pass}).To(Equal([]bool{false, true, true}))
	})
})

var _ = Describe("Thresholds over runs that measured nothing", func() {
	stale := report.Summary{Scenarios: 3, Incomplete: 1, LLMCallsMean: 0, LatencyMean: 0}
	clean := report.Summary{Scenarios: 3, LLMCallsMean: 2, LatencyMean: 900}
	idle := report.Summary{Scenarios: 3, Passed: 3, PassRate: 1} // runs that passed without a model call

	DescribeTable("are not evaluated, and fail",
		func(th scenario.Threshold, s report.Summary, base *report.Summary, why string) {
			got := check.Thresholds([]scenario.Threshold{th}, s, base)
			Expect(got).To(HaveLen(1))
			Expect(got[0].Pass).To(BeFalse())
			Expect(got[0].NotEvaluated).To(BeTrue())
			Expect(got[0].Detail).To(Equal("not evaluated: " + why))
		},
		Entry("a stale run, against the baseline",
			scenario.Threshold{Source: "llm_calls_mean <= baseline", Metric: "llm_calls_mean", Op: "<=", Baseline: true}, stale, &clean,
			"1 of 3 runs are stale or errored, so llm_calls_mean was not measured; fix them first"),
		Entry("a stale run, against a number",
			scenario.Threshold{Source: "latency_mean <= 2s", Metric: "latency_mean", Op: "<=", Value: 2, Unit: "s"}, stale, nil,
			"1 of 3 runs are stale or errored, so latency_mean was not measured; fix them first"),
		Entry("a baseline with a stale run",
			scenario.Threshold{Source: "latency_mean <= baseline", Metric: "latency_mean", Op: "<=", Baseline: true}, clean, &stale,
			"the baseline: 1 of 3 runs are stale or errored, so latency_mean was not measured; fix them first"),
		Entry("the baseline, being the baseline",
			scenario.Threshold{Source: "latency_mean <= baseline", Metric: "latency_mean", Op: "<=", Baseline: true}, clean, nil,
			"it compares the baseline variant with itself"),
		Entry("a latency over runs that made no model call",
			scenario.Threshold{Source: "latency_p95 < 1s", Metric: "latency_p95", Op: "<", Value: 1, Unit: "s"}, idle, nil,
			"its 3 runs made no model call, so latency_p95 was not measured"),
		Entry("a count of calls over runs that made none, against the baseline",
			scenario.Threshold{Source: "llm_calls_mean <= baseline", Metric: "llm_calls_mean", Op: "<=", Baseline: true}, idle, &clean,
			"its 3 runs made no model call, so llm_calls_mean was not measured"),
		Entry("tokens over runs that made no model call",
			scenario.Threshold{Source: "input_tokens_mean < 10", Metric: "input_tokens_mean", Op: "<", Value: 10}, idle, nil,
			"its 3 runs made no model call, so input_tokens_mean was not measured"),
		Entry("a baseline whose runs made no model call",
			scenario.Threshold{Source: "latency_mean <= baseline", Metric: "latency_mean", Op: "<=", Baseline: true}, clean, &idle,
			"the baseline: its 3 runs made no model call, so latency_mean was not measured"),
		Entry("routing accuracy where no scenario expects a route",
			scenario.Threshold{Source: "routing_accuracy < 50%", Metric: "routing_accuracy", Op: "<", Value: 0.5, Unit: "%"}, clean, nil,
			"no scenario expects a route, so routing_accuracy was not measured"),
		Entry("no runs at all",
			scenario.Threshold{Source: "pass_rate == 100%", Metric: "pass_rate", Op: "==", Value: 1, Unit: "%"}, report.Summary{}, nil,
			"no runs"),
		Entry("time to first token where no call streamed",
			scenario.Threshold{Source: "ttft_p95 < 500ms", Metric: "ttft_p95", Op: "<", Value: 0.5, Unit: "s"}, clean, nil,
			"no model call streamed, so ttft_p95 was not measured"),
		Entry("time to first token where no streamed call carried a token",
			scenario.Threshold{Source: "ttft_mean < 500ms", Metric: "ttft_mean", Op: "<", Value: 0.5, Unit: "s"}, withStreams(report.Streaming{Calls: 2, Tokenless: 2}), nil,
			"no streamed call carried a token, so ttft_mean was not measured"),
		Entry("goodput without a budget",
			scenario.Threshold{Source: "goodput >= 90%", Metric: "goodput", Op: ">=", Value: 0.9, Unit: "%"}, withStreams(report.Streaming{Calls: 2}), nil,
			"the suite sets no goodput budget (goodput: {ttft: 500ms, tpot: 50ms})"),
		Entry("a rubric score where nothing was graded",
			scenario.Threshold{Source: "rubric_score_mean >= 0.8", Metric: "rubric_score_mean", Op: ">=", Value: 0.8}, clean, nil,
			"no rubric check was graded, so rubric_score_mean was not measured (add rubric: checks and a judge: block, docs/judges.md)"),
		Entry("the grader's kappa without labelled examples",
			scenario.Threshold{Source: "grader_kappa >= 0.6", Metric: "grader_kappa", Op: ">=", Value: 0.6}, withGrading(report.Grading{Calls: 2, Score: 0.9}), nil,
			"no rubric has labelled examples (pass:, fail:), so grader_kappa was not measured"),
		Entry("the grader's kappa where it is undefined",
			scenario.Threshold{Source: "grader_kappa >= 0.6", Metric: "grader_kappa", Op: ">=", Value: 0.6}, withGrading(report.Grading{Calls: 3, Calibration: &report.Calibration{TP: 2}}), nil,
			"Cohen's kappa is undefined: every example is labelled pass, so agreement cannot be told from chance; add a fail: example"),
		Entry("a baseline that did not stream",
			scenario.Threshold{Source: "ttft_mean <= baseline", Metric: "ttft_mean", Op: "<=", Baseline: true}, withStreams(report.Streaming{Calls: 2, TTFTMean: 300}), &clean,
			"the baseline: no model call streamed, so ttft_mean was not measured"),
	)
})

// withGrading is a clean summary whose rubric checks were graded as g says.
func withGrading(g report.Grading) report.Summary {
	return report.Summary{Scenarios: 3, LLMCallsMean: 2, Grading: &g}
}

var _ = Describe("Thresholds over the rubric grader", func() {
	calibrated := withGrading(report.Grading{Calls: 6, Score: 0.75, Calibration: &report.Calibration{TP: 3, FN: 1, TN: 2}})
	DescribeTable("hold its mean score and its agreement with the labels",
		func(th scenario.Threshold, observed float64, pass bool) {
			got := check.Thresholds([]scenario.Threshold{th}, calibrated, nil)
			Expect(got[0].NotEvaluated).To(BeFalse(), got[0].Detail)
			Expect(got[0].Observed).To(BeNumerically("~", observed, 1e-9))
			Expect(got[0].Pass).To(Equal(pass), got[0].Detail)
		},
		Entry("a score above its floor", scenario.Threshold{Metric: "rubric_score_mean", Op: ">=", Value: 0.7}, 0.75, true),
		Entry("a score below it", scenario.Threshold{Metric: "rubric_score_mean", Op: ">=", Value: 0.8}, 0.75, false),
		// po = 5/6, pe = (4·3 + 2·3)/36 = 1/2: kappa = 2/3
		Entry("a kappa above its floor", scenario.Threshold{Metric: "grader_kappa", Op: ">=", Value: 0.6}, 2.0/3, true),
		Entry("a kappa below it", scenario.Threshold{Metric: "grader_kappa", Op: ">", Value: 0.7}, 2.0/3, false),
	)
})

// withStreams is a clean summary whose calls streamed as st says.
func withStreams(st report.Streaming) report.Summary {
	return report.Summary{Scenarios: 3, LLMCallsMean: 2, Streaming: &st}
}

var _ = Describe("Thresholds over streamed calls", func() {
	good := 0.75
	s := withStreams(report.Streaming{Calls: 4, TTFTMean: 320, TTFTP95: 610, TPOTMean: 22, TokensPerSecond: 45, Goodput: &good})

	DescribeTable("compare streaming metrics in their units",
		func(th scenario.Threshold, pass bool, detail string) {
			got := check.Thresholds([]scenario.Threshold{th}, s, nil)
			Expect(got[0].Pass).To(Equal(pass))
			Expect(got[0].Detail).To(Equal(detail))
		},
		Entry("ttft_p95 < 500ms fails at 610 ms", scenario.Threshold{Metric: "ttft_p95", Op: "<", Value: 0.5, Unit: "s"}, false, "ttft_p95 = 610 ms, want < 500 ms"),
		Entry("ttft_mean < 1s passes", scenario.Threshold{Metric: "ttft_mean", Op: "<", Value: 1, Unit: "s"}, true, ""),
		Entry("goodput >= 70% passes", scenario.Threshold{Metric: "goodput", Op: ">=", Value: 0.7, Unit: "%"}, true, ""),
		Entry("goodput >= 90% fails", scenario.Threshold{Metric: "goodput", Op: ">=", Value: 0.9, Unit: "%"}, false, "goodput = 75.0%, want >= 90.0%"),
		Entry("output_tps_mean > 40 passes", scenario.Threshold{Metric: "output_tps_mean", Op: ">", Value: 40}, true, ""),
	)
})
