package scenario_test

import (
	"strings"

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

// withThreshold is a suite whose variant b holds the one threshold expr.
func withThreshold(expr string) string {
	return `suite: odbchat
agent: odbchat
clock: 2025-11-06T10:00:00Z
baseline: a
variants:
  a: {}
  b: {}
thresholds:
  b: ["` + expr + `"]
scenarios:
  - id: one
    input: "What is GHRSST?"
    expect: {llm_calls: 1}
`
}

var _ = Describe("a threshold that could only pass", func() {
	loose := scenario.LoadOptions{Agents: opts.Agents} // every metric name taken
	DescribeTable("is refused at its line, saying which bound the metric never crosses",
		func(expr, why string) {
			_, err := scenario.Parse("odbchat.yaml", []byte(withThreshold(expr)), loose)
			Expect(err).To(MatchError(ContainSubstring(`odbchat.yaml:9: thresholds.b[0]: "` + expr + `" could only pass: ` + why + `; give a target it can miss`)))
		},
		Entry("a pass rate of at least 0", "pass_rate >= 0%", "pass_rate is never below 0"),
		Entry("a mean rubric score of at most 1", "rubric_score_mean <= 1", "rubric_score_mean is never above 1"),
		Entry("a mean rubric score of at least 0", "rubric_score_mean >= 0", "rubric_score_mean is never below 0"),
		Entry("a kappa of at least -1", "grader_kappa >= -1", "grader_kappa is never below -1"),
		Entry("a kappa that is not 2", "grader_kappa != 2", "grader_kappa is never 2"),
		Entry("a latency of at least 0", "latency_p95 >= 0s", "latency_p95 is never below 0"),
		Entry("a cost above -1 dollar", "cost_mean > $-1", "cost_mean is never below 0"),
		Entry("a token reduction of at most 100%", "token_reduction <= 100%", "token_reduction is never above 1"),
	)

	DescribeTable("is not a target a run can miss, which loads",
		func(expr string) {
			_, err := scenario.Parse("odbchat.yaml", []byte(withThreshold(expr)), loose)
			Expect(err).NotTo(HaveOccurred())
		},
		Entry("a pass rate above 0", "pass_rate > 0"),
		Entry("a mean rubric score as a percentage, as a rubric's min_score is written", "rubric_score_mean >= 80%"),
		Entry("a kappa of at least 0", "grader_kappa >= 0"),
		Entry("a token reduction that may be negative", "token_reduction >= -10%"),
	)
})

var _ = Describe("a threshold that could only fail", func() {
	loose := scenario.LoadOptions{Agents: opts.Agents} // every metric name taken
	DescribeTable("is refused at its line, saying which bound the metric never crosses",
		func(expr, why string) {
			_, err := scenario.Parse("odbchat.yaml", []byte(withThreshold(expr)), loose)
			Expect(err).To(MatchError(ContainSubstring(`odbchat.yaml:9: thresholds.b[0]: "` + expr + `" could only fail: ` + why + `; give a target it can meet`)))
		},
		Entry("a kappa above 1", "grader_kappa > 1", "grader_kappa is never above 1"),
		Entry("a kappa below -1", "grader_kappa < -1", "grader_kappa is never below -1"),
		Entry("a pass rate above 100%", "pass_rate > 100%", "pass_rate is never above 1"),
		Entry("a pass rate of at least 101%", "pass_rate >= 101%", "pass_rate is never above 1"),
		Entry("a pass rate written as a whole number", "pass_rate >= 95", "pass_rate is never above 1 (write a percentage with %, as 95%)"),
		Entry("a mean rubric score above 100%", "rubric_score_mean > 100%", "rubric_score_mean is never above 1"),
		Entry("a mean rubric score of at most -1", "rubric_score_mean <= -1", "rubric_score_mean is never below 0"),
		Entry("a latency below 0", "latency_p95 < 0s", "latency_p95 is never below 0"),
		Entry("a token reduction above 100%", "token_reduction > 100%", "token_reduction is never above 1"),
		Entry("a mean of input tokens below 0", "input_tokens_mean < 0", "input_tokens_mean is never below 0"),
		Entry("a cost of exactly -1 dollar", "cost_mean == $-1", "cost_mean is never -1"),
	)

	DescribeTable("is not a target a run can meet, which loads",
		func(expr string) {
			_, err := scenario.Parse("odbchat.yaml", []byte(withThreshold(expr)), loose)
			Expect(err).NotTo(HaveOccurred())
		},
		Entry("a pass rate of 100%", "pass_rate >= 100%"),
		Entry("a kappa of 1", "grader_kappa == 1"),
		Entry("a latency of at most 0, on a replayed clock", "latency_p95 <= 0s"),
		Entry("a token reduction of 100%", "token_reduction >= 100%"),
		Entry("a mean of input tokens below 1", "input_tokens_mean < 1"),
	)

	It("is refused with every other one at once, each at its line", func() {
		suite := strings.Replace(withThreshold("pass_rate > 100%"), `  b: ["pass_rate > 100%"]`,
			"  b:\n    - \"pass_rate > 100%\"\n    - \"latency_p95 < 0s\"\n    - \"grader_kappa >= -1\"", 1)
		_, err := scenario.Parse("odbchat.yaml", []byte(suite), loose)
		Expect(err).To(MatchError(And(
			ContainSubstring(`odbchat.yaml:10: thresholds.b[0]: "pass_rate > 100%" could only fail`),
			ContainSubstring(`odbchat.yaml:11: thresholds.b[1]: "latency_p95 < 0s" could only fail`),
			ContainSubstring(`odbchat.yaml:12: thresholds.b[2]: "grader_kappa >= -1" could only pass`),
		)))
	})
})
