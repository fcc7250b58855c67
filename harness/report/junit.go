package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// formatFloat writes v without needless digits.
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// JUnit XML, as CI systems read it: one testsuite per suite and variant,
// one testcase per scenario and per threshold, and one for the regression
// gate.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Time     string       `xml:"time,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string `xml:"name,attr"`
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   int    `xml:"errors,attr"`
	Time     string `xml:"time,attr"`
	// Properties carry the variant's streaming figures, when it streamed.
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
}

type junitProperties struct {
	Items []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Class string `xml:"classname,attr"`
	Name  string `xml:"name,attr"`
	Time  string `xml:"time,attr"`
	// Properties carry the scenario's replayed latency and, when a call
	// streamed, its mean time to first token; none when its run was not
	// measured (stale or errored).
	Properties *junitProperties `xml:"properties,omitempty"`
	Failure    *junitProblem    `xml:"failure,omitempty"`
	Error      *junitProblem    `xml:"error,omitempty"`
	// Skipped marks a known failure of the baseline: it failed as blessed.
	Skipped *junitProblem `xml:"skipped,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// knownMessage is the message of a known failure's skipped test case.
const knownMessage = "known failure, blessed in the baseline"

func seconds(ms float64) string { return fmt.Sprintf("%.3f", ms/1000) }

// JUnitRun is what a run knows beside its report: how long it took on the
// wall clock.
type JUnitRun struct {
	Wall time.Duration
}

// WriteJUnit renders r as JUnit XML, with no wall time (see WriteJUnitRun).
func WriteJUnit(w io.Writer, r *Report) error { return WriteJUnitRun(w, r, JUnitRun{}) }

// WriteJUnitRun renders r as JUnit XML. A failed expectation or threshold,
// and each regression the gate found (r.Gate), is a failure, as is a gate
// that failed with none; an agent or harness
// error and a stale cassette are errors; a known failure of the baseline
// (see ApplyKnown) is skipped, with its failed checks. Times are wall times, as CI
// dashboards read them: the run's on the whole document, none on a
// scenario (whose replayed latency is its replayed_latency_ms property, which
// a stale or errored run, whose latency was not measured, has not).
func WriteJUnitRun(w io.Writer, r *Report, run JUnitRun) error {
	out := junitSuites{Name: "testbed", Time: seconds(float64(run.Wall.Microseconds()) / 1000)}
	for _, s := range r.Suites {
		for _, v := range s.Variants {
			js := junitSuite{Name: s.Name + "/" + v.Name, Properties: streamingProperties(v.Summary.Streaming)}
			var total float64
			for _, sc := range v.Scenarios {
				c := junitCase{Class: s.Name + "." + v.Name, Name: sc.ID, Time: "0.000"}
				if sc.Measured() {
					// a stale or errored run's latency was not measured: no property
					ms := float64(sc.Metrics.Latency.Microseconds()) / 1000
					total += ms
					c.Properties = &junitProperties{[]junitProperty{{"replayed_latency_ms", fmt.Sprintf("%.0f", ms)}}}
					if len(sc.Metrics.Streams) > 0 {
						c.Properties.Items = append(c.Properties.Items, junitProperty{"ttft_ms", fmt.Sprintf("%.0f", metricOf(sc.Metrics, MetricTTFTMS))})
					}
				}
				switch sc.Verdict {
				case VerdictFail:
					var lines []string
					for _, ch := range sc.Checks {
						if !ch.Pass {
							lines = append(lines, ch.Label()+": "+ch.Detail)
						}
					}
					if sc.Known {
						c.Skipped = &junitProblem{Message: knownMessage, Type: "known", Text: strings.Join(lines, "\n")}
						break
					}
					c.Failure = &junitProblem{Message: fmt.Sprintf("%d expectations failed", len(lines)), Type: "expectation", Text: strings.Join(lines, "\n")}
					js.Failures++
				case VerdictError, VerdictStale:
					c.Error = &junitProblem{Message: sc.Verdict, Type: sc.Verdict, Text: sc.Error}
					js.Errors++
				}
				js.Cases = append(js.Cases, c)
			}
			for _, t := range v.Thresholds {
				c := junitCase{Class: s.Name + "." + v.Name, Name: "threshold: " + t.Source, Time: "0.000"}
				switch {
				case t.Known:
					c.Skipped = &junitProblem{Message: knownMessage, Type: "known", Text: t.Detail}
				case !t.Pass:
					c.Failure = &junitProblem{Message: t.Detail, Type: "threshold", Text: t.Detail}
					js.Failures++
				}
				js.Cases = append(js.Cases, c)
			}
			js.Tests, js.Time = len(js.Cases), "0.000"
			if js.Properties == nil {
				js.Properties = &junitProperties{}
			}
			js.Properties.Items = append([]junitProperty{{"replayed_latency_ms", fmt.Sprintf("%.0f", total)}}, js.Properties.Items...)
			out.Tests += js.Tests
			out.Failures += js.Failures
			out.Errors += js.Errors
			out.Suites = append(out.Suites, js)
		}
	}
	if g := r.Gate; g != nil && (g.Compared || g.Failed) {
		js := junitSuite{Name: "regression gate", Time: "0.000"}
		for _, g := range g.Regressions {
			name := g.Suite + "/" + g.Variant + " " + g.Metric
			if g.Scenario != "" {
				name = g.Suite + "/" + g.Variant + "/" + g.Scenario + " " + g.Metric
			}
			js.Cases = append(js.Cases, junitCase{Class: "gate", Name: name, Time: "0.000", Failure: &junitProblem{Message: "regression against the blessed baseline", Type: "regression", Text: g.change()}})
			js.Failures++
		}
		switch {
		case len(g.Regressions) > 0:
		case g.Failed:
			// No regression, but the gate failed: a baseline missing in CI,
			// or one that lacks what ran.
			js.Cases = append(js.Cases, junitCase{Class: "gate", Name: "the blessed baseline " + g.Baseline, Time: "0.000", Failure: &junitProblem{Message: g.Summary, Type: "gate", Text: g.Summary}})
			js.Failures++
		default:
			js.Cases = append(js.Cases, junitCase{Class: "gate", Name: "no regression against the blessed baseline", Time: "0.000"})
		}
		js.Tests = len(js.Cases)
		out.Tests += js.Tests
		out.Failures += js.Failures
		out.Suites = append(out.Suites, js)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// streamingProperties are a variant's streaming figures as JUnit
// properties; none when nothing streamed.
func streamingProperties(st *Streaming) *junitProperties {
	if st == nil {
		return nil
	}
	f := func(v float64) string { return fmt.Sprintf("%.0f", v) }
	out := []junitProperty{{"streamed_calls", fmt.Sprint(st.Calls)}, {"ttft_mean_ms", f(st.TTFTMean)}, {"ttft_p50_ms", f(st.TTFTP50)},
		{"ttft_p95_ms", f(st.TTFTP95)}, {"gap_p95_ms", f(st.GapP95)}, {"tpot_mean_ms", f(st.TPOTMean)},
		{"output_tps_mean", fmt.Sprintf("%.1f", st.TokensPerSecond)}}
	if st.Goodput != nil {
		out = append(out, junitProperty{"goodput", fmt.Sprintf("%.3f", *st.Goodput)})
	}
	return &junitProperties{out}
}
