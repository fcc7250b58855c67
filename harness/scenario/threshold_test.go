package scenario_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/scenario"
)

var _ = Describe("ParseThreshold", func() {
	DescribeTable("parses",
		func(expr string, want scenario.Threshold) {
			want.Source = expr
			Expect(scenario.ParseThreshold(expr)).To(Equal(want))
		},
		Entry("a number", "routing_accuracy >= 0.95",
			scenario.Threshold{Metric: "routing_accuracy", Op: ">=", Value: 0.95}),
		Entry("baseline", "llm_calls_mean <= baseline",
			scenario.Threshold{Metric: "llm_calls_mean", Op: "<=", Baseline: true}),
		Entry("seconds", "latency_p95 < 2s",
			scenario.Threshold{Metric: "latency_p95", Op: "<", Value: 2, Unit: "s"}),
		Entry("milliseconds", "latency_p50 > 350ms",
			scenario.Threshold{Metric: "latency_p50", Op: ">", Value: 0.35, Unit: "s"}),
		Entry("a compound duration", "latency_p99 <= 1m30s",
			scenario.Threshold{Metric: "latency_p99", Op: "<=", Value: 90, Unit: "s"}),
		Entry("a percentage", "pass_rate == 100%",
			scenario.Threshold{Metric: "pass_rate", Op: "==", Value: 1, Unit: "%"}),
		Entry("a fractional percentage", "token_reduction >= 69.5%",
			scenario.Threshold{Metric: "token_reduction", Op: ">=", Value: 0.695, Unit: "%"}),
		Entry("an integer", "input_tokens_mean != 4000",
			scenario.Threshold{Metric: "input_tokens_mean", Op: "!=", Value: 4000}),
		Entry("a negative number", "delta > -1.5",
			scenario.Threshold{Metric: "delta", Op: ">", Value: -1.5}),
		Entry("an exponent", "x < 1e-3",
			scenario.Threshold{Metric: "x", Op: "<", Value: 0.001}),
		Entry("no spaces", "latency_mean<=baseline",
			scenario.Threshold{Metric: "latency_mean", Op: "<=", Baseline: true}),
		Entry("extra spaces", "  pass_rate   >   0.5  ",
			scenario.Threshold{Metric: "pass_rate", Op: ">", Value: 0.5}),
	)

	DescribeTable("rejects",
		func(expr, msg string) {
			_, err := scenario.ParseThreshold(expr)
			Expect(err).To(MatchError(msg))
		},
		Entry("nothing", "  ", `empty threshold; write one like "latency_p95 < 2s"`),
		Entry("no metric", ">= 0.5", `threshold ">= 0.5": want a metric name first, like "latency_p95 < 2s"`),
		Entry("a metric alone", "pass_rate",
			`threshold "pass_rate": want an operator (< <= > >= == !=) and a value after "pass_rate"`),
		Entry("an unknown operator", "pass_rate => 0.5",
			`threshold "pass_rate => 0.5": want an operator (< <= > >= == !=) after "pass_rate", got "=> 0.5"`),
		Entry("a single =", "pass_rate = 0.5",
			`threshold "pass_rate = 0.5": want an operator (< <= > >= == !=) after "pass_rate", got "= 0.5"`),
		Entry("a dash in the metric", "latency-p95 < 2s",
			`threshold "latency-p95 < 2s": want an operator (< <= > >= == !=) after "latency", got "-p95 < 2s"`),
		Entry("no value", "pass_rate >=",
			`threshold "pass_rate >=": want a value after ">=": baseline, a number, a percentage or a duration`),
		Entry("a word", "pass_rate >= high",
			`threshold "pass_rate >= high": value "high" is not baseline, variant:<name>, a number (0.95), a percentage (95%) or a duration (2s, 350ms)`),
		Entry("a spaced duration", "latency_p95 < 2 s",
			`threshold "latency_p95 < 2 s": value "2 s" is not baseline, variant:<name>, a number (0.95), a percentage (95%) or a duration (2s, 350ms)`),
		Entry("NaN", "pass_rate < NaN",
			`threshold "pass_rate < NaN": value "NaN" is not baseline, variant:<name>, a number (0.95), a percentage (95%) or a duration (2s, 350ms)`),
		Entry("infinity", "pass_rate < +Inf",
			`threshold "pass_rate < +Inf": value "+Inf" is not baseline, variant:<name>, a number (0.95), a percentage (95%) or a duration (2s, 350ms)`),
		Entry("a bare percent sign", "pass_rate < %",
			`threshold "pass_rate < %": value "%" is not baseline, variant:<name>, a number (0.95), a percentage (95%) or a duration (2s, 350ms)`),
		Entry("a variant reference without a name", "pass_rate >= variant:",
			`threshold "pass_rate >= variant:": value "variant:" does not name a variant; write variant:<name>`),
		Entry("two values", "pass_rate < 1 2",
			`threshold "pass_rate < 1 2": value "1 2" is not baseline, variant:<name>, a number (0.95), a percentage (95%) or a duration (2s, 350ms)`),
	)
})
