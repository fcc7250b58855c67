package report

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/agentreplay/testbed/harness/trace"
)

// Sampled metrics: each has a mean and a 95% interval in Sampling.Metrics
// and in Summary.CI.
const (
	MetricInputTokens  = "input_tokens"
	MetricOutputTokens = "output_tokens"
	MetricLLMCalls     = "llm_calls"
	MetricLatencyMS    = "latency_ms"
	// MetricTTFTMS is a run's mean time to first token over its streamed
	// calls; it is sampled only where some call streamed (see
	// sampledMetrics).
	MetricTTFTMS = "ttft_ms"
)

// SampledMetrics lists the metrics sampling measures, in display order.
func SampledMetrics() []string {
	return []string{MetricInputTokens, MetricOutputTokens, MetricLLMCalls, MetricLatencyMS}
}

func metricOf(m trace.Metrics, name string) float64 {
	switch name {
	case MetricInputTokens:
		return float64(m.InputTokens)
	case MetricOutputTokens:
		return float64(m.OutputTokens)
	case MetricLLMCalls:
		return float64(m.LLMCalls)
	case MetricLatencyMS:
		return float64(m.Latency.Microseconds()) / 1000
	case MetricTTFTMS:
		var sum float64
		n := 0
		for _, c := range m.Streams {
			if c.FirstToken >= 0 {
				sum += float64(c.FirstToken.Microseconds()) / 1000
				n++
			}
		}
		if n == 0 {
			return 0
		}
		return sum / float64(n)
	}
	return 0
}

// sampledMetrics is SampledMetrics, with MetricTTFTMS when any run of scs
// streamed a model call.
func sampledMetrics(scs ...Scenario) []string {
	names := SampledMetrics()
	for _, sc := range scs {
		for _, r := range sc.Runs() {
			if len(r.Metrics.Streams) > 0 {
				return append(names, MetricTTFTMS)
			}
		}
	}
	return names
}

// Interval is a mean with its 95% confidence interval [Lo, Hi] and the
// samples' standard deviation. With one observation Lo = Hi = Mean.
type Interval struct {
	Mean float64 `json:"mean"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
	SD   float64 `json:"sd"`
}

// HalfWidth is the distance from the mean to either end of the interval.
func (i Interval) HalfWidth() float64 { return (i.Hi - i.Lo) / 2 }

// Run is one sample of a scenario: one replayed cassette.
type Run struct {
	Sample  int           `json:"sample"` // 1-based
	Verdict string        `json:"verdict"`
	Route   string        `json:"route,omitempty"`
	Error   string        `json:"error,omitempty"`
	Metrics trace.Metrics `json:"metrics"`
	// Replayed and Unplayed count the sample's recorded interactions that
	// were served and those that were not.
	Replayed int  `json:"replayed"`
	Unplayed int  `json:"unplayed"`
	Crashed  bool `json:"crashed,omitempty"`
	// Escaped is the scenario's: its agent called a host it was not given.
	Escaped bool `json:"escaped,omitempty"`
	// Recorded and Dropped are the scenario's, for a record-missing run.
	Recorded int      `json:"recorded,omitempty"`
	Dropped  []string `json:"dropped,omitempty"`
	// Events are the sample's trace, kept by the run that made it (for
	// testbed show); report files hold only the first sample's.
	Events []trace.Event `json:"-"`
	// Checks and Answer are the sample's own checks and replies, kept by
	// the run that made it as Events are (for testbed show of a sample
	// past the first); report files hold only the first sample's.
	Checks []Check  `json:"-"`
	Answer []string `json:"-"`
}

// Sampling is what the samples of one scenario say. A scenario recorded
// with `testbed record --repeat N` has N cassettes, each replayed as a Run;
// the Scenario's other fields are those of sample 1, but for its Grading,
// which is every sample's.
type Sampling struct {
	N      int `json:"n"`
	Passed int `json:"passed"`
	// PassRate is Passed/N with its Wilson 95% interval.
	PassRate Interval `json:"pass_rate"`
	// PassHat[k-1] is pass^k: the chance that k fresh runs all pass,
	// estimated without bias as C(Passed,k)/C(N,k).
	PassHat []float64 `json:"pass_hat"`
	// MinPassRate is the share of samples that must pass for the scenario
	// to pass (the suite's min_sample_pass_rate).
	MinPassRate float64 `json:"min_pass_rate"`
	// Metrics are each sampled metric's mean and interval over the
	// measured samples (Run.Measured); a metric no sample measured is
	// absent.
	Metrics map[string]Interval `json:"metrics"`
	Runs    []Run               `json:"runs"`
}

// Unmeasured counts the samples whose metrics were not measured.
func (s *Sampling) Unmeasured() int {
	n := 0
	for _, r := range s.Runs {
		if !r.Measured() {
			n++
		}
	}
	return n
}

// PassHatK returns pass^k, or NaN when k is out of 1..N.
func (s *Sampling) PassHatK(k int) float64 {
	if k < 1 || k > len(s.PassHat) {
		return math.NaN()
	}
	return s.PassHat[k-1]
}

// Sample folds the runs of one scenario (sample 1 first) into one Scenario:
// sample 1's details, a verdict over all samples, Sampling, and the grading
// of every sample together (SummarizeGrading: their grader calls and
// tokens, mean score and pooled calibration). A single
// run is returned as it is. The verdict is stale if any sample's cassette
// is; otherwise pass when at least minPassRate of the samples pass.
func Sample(runs []Scenario, minPassRate float64) Scenario {
	if len(runs) <= 1 {
		return runs[0]
	}
	if minPassRate <= 0 {
		minPassRate = 1
	}
	out := runs[0]
	sp := &Sampling{N: len(runs), MinPassRate: minPassRate, Metrics: map[string]Interval{}}
	stale := -1
	for i, r := range runs {
		sp.Runs = append(sp.Runs, Run{Sample: i + 1, Verdict: r.Verdict, Route: r.Route, Error: r.Error, Metrics: r.Metrics,
			Replayed: replayed(r.Events), Unplayed: r.Unplayed, Crashed: r.Crashed, Escaped: r.Escaped, Recorded: r.Recorded, Dropped: r.Dropped, Events: r.Events,
			Checks: r.Checks, Answer: r.Answer})
		if r.Verdict == VerdictPass {
			sp.Passed++
		}
		if r.Verdict == VerdictStale && stale < 0 {
			stale = i
		}
	}
	sp.PassRate = wilson(sp.Passed, sp.N)
	for k := 1; k <= sp.N; k++ {
		sp.PassHat = append(sp.PassHat, passHat(sp.Passed, sp.N, k))
	}
	// The metrics are over the samples that measured them: a stale or
	// errored sample's are part of a run, or nothing.
	for _, name := range sampledMetrics(runs...) {
		var xs []float64
		for _, r := range runs {
			if measured(r.Verdict) {
				xs = append(xs, metricOf(r.Metrics, name))
			}
		}
		if len(xs) > 0 {
			sp.Metrics[name] = meanInterval(xs)
		}
	}
	out.Sampling = sp
	// Every sample was graded apart: its grader calls count, and its
	// labelled examples are pooled into one calibration.
	out.Grading = SummarizeGrading(runs)
	share := float64(sp.Passed) / float64(sp.N)
	c := Check{Name: "samples.pass_rate", Pass: share >= minPassRate,
		Detail: fmt.Sprintf("%d of %d samples passed (%.0f%%, need %.0f%%)", sp.Passed, sp.N, share*100, minPassRate*100)}
	out.Checks = append(append([]Check{}, out.Checks...), c)
	switch {
	case stale >= 0:
		out.Verdict, out.Error, out.Fix = VerdictStale, fmt.Sprintf("sample %d: %s", stale+1, runs[stale].Error), runs[stale].Fix
	case c.Pass:
		out.Verdict, out.Error = VerdictPass, ""
	case out.Verdict == VerdictPass:
		out.Verdict = VerdictFail
	}
	return out
}

// replayed counts the HTTP exchanges of events that were served.
func replayed(events []trace.Event) int {
	n := 0
	for _, e := range events {
		if e.Kind == trace.KindHTTP && e.HTTP.Error == "" {
			n++
		}
	}
	return n
}

// wilson is the Wilson score interval of a proportion at 95%.
func wilson(passed, n int) Interval {
	p := float64(passed) / float64(n)
	const z = 1.959963984540054
	nf := float64(n)
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return Interval{Mean: p, Lo: math.Max(0, mid-half), Hi: math.Min(1, mid+half), SD: math.Sqrt(p * (1 - p))}
}

// passHat is C(c,k)/C(n,k), the unbiased estimate of pass^k from c passes
// in n samples.
func passHat(c, n, k int) float64 {
	if c < k {
		return 0
	}
	v := 1.0
	for i := 0; i < k; i++ {
		v *= float64(c-i) / float64(n-i)
	}
	return v
}

// meanInterval is the mean of xs with its Student-t 95% interval.
func meanInterval(xs []float64) Interval {
	mean, variance := stat.MeanVariance(xs, nil)
	if len(xs) < 2 || variance == 0 || math.IsNaN(variance) {
		return Interval{Mean: mean, Lo: mean, Hi: mean}
	}
	sd := math.Sqrt(variance)
	half := tCrit(float64(len(xs)-1)) * sd / math.Sqrt(float64(len(xs)))
	return Interval{Mean: mean, Lo: mean - half, Hi: mean + half, SD: sd}
}

// tCrit is the two-sided 95% critical value of Student's t with df degrees
// of freedom.
func tCrit(df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.975)
}

// Noise is a difference of two means and whether it is larger than the
// sampling noise: Beyond when the 95% interval of the difference excludes
// zero (Welch's t for one scenario; summed within-scenario variances for a
// variant's means).
type Noise struct {
	Metric string  `json:"metric"`
	Base   float64 `json:"base"`
	Head   float64 `json:"head"`
	Delta  float64 `json:"delta"`
	// HalfWidth is the half-width of the difference's 95% interval.
	HalfWidth float64 `json:"half_width"`
	Beyond    bool    `json:"beyond_noise"`
}

// welch compares two samples' means of one metric.
func welch(metric string, b, h Interval, nb, nh int) Noise {
	d := Noise{Metric: metric, Base: b.Mean, Head: h.Mean, Delta: h.Mean - b.Mean}
	vb, vh := b.SD*b.SD/float64(nb), h.SD*h.SD/float64(nh)
	se := math.Sqrt(vb + vh)
	if se == 0 {
		d.Beyond = d.Delta != 0
		return d
	}
	// Welch–Satterthwaite degrees of freedom; a side of one sample has
	// no variance of its own and adds none.
	den := 0.0
	if nb > 1 {
		den += vb * vb / float64(nb-1)
	}
	if nh > 1 {
		den += vh * vh / float64(nh-1)
	}
	df := (vb + vh) * (vb + vh) / den
	d.HalfWidth = tCrit(df) * se
	d.Beyond = math.Abs(d.Delta) > d.HalfWidth
	return d
}
