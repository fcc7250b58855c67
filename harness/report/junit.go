package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// JUnit XML, as CI systems read it: one testsuite per suite and variant,
// one testcase per scenario and per threshold. A testcase's time is the
// scenario's replayed latency.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
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
	// Properties carry the scenario's mean time to first token, when a
	// call streamed.
	Properties *junitProperties `xml:"properties,omitempty"`
	Failure    *junitProblem    `xml:"failure,omitempty"`
	Error      *junitProblem    `xml:"error,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func seconds(ms float64) string { return fmt.Sprintf("%.3f", ms/1000) }

// WriteJUnit renders r as JUnit XML. A failed expectation or threshold is a
// failure; an agent or harness error and a stale cassette are errors.
func WriteJUnit(w io.Writer, r *Report) error {
	out := junitSuites{Name: "testbed"}
	for _, s := range r.Suites {
		for _, v := range s.Variants {
			js := junitSuite{Name: s.Name + "/" + v.Name, Properties: streamingProperties(v.Summary.Streaming)}
			var total float64
			for _, sc := range v.Scenarios {
				ms := float64(sc.Metrics.Latency.Microseconds()) / 1000
				total += ms
				c := junitCase{Class: s.Name + "." + v.Name, Name: sc.ID, Time: seconds(ms)}
				if len(sc.Metrics.Streams) > 0 {
					c.Properties = &junitProperties{[]junitProperty{{"ttft_ms", fmt.Sprintf("%.0f", metricOf(sc.Metrics, MetricTTFTMS))}}}
				}
				switch sc.Verdict {
				case VerdictFail:
					var lines []string
					for _, ch := range sc.Checks {
						if !ch.Pass {
							lines = append(lines, fmt.Sprintf("turn %d %s: %s", ch.Turn, ch.Name, ch.Detail))
						}
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
				if !t.Pass {
					c.Failure = &junitProblem{Message: t.Detail, Type: "threshold", Text: t.Detail}
					js.Failures++
				}
				js.Cases = append(js.Cases, c)
			}
			js.Tests, js.Time = len(js.Cases), seconds(total)
			out.Tests += js.Tests
			out.Failures += js.Failures
			out.Errors += js.Errors
			out.Suites = append(out.Suites, js)
		}
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
