package report_test

import (
	"bytes"
	"encoding/xml"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

var _ = Describe("WriteJUnit", func() {
	It("writes a testsuite per variant with failures, errors and thresholds", func() {
		r := &report.Report{Suites: []report.Suite{{Name: "odbchat", Variants: []report.Variant{{Name: "single-pass",
			Scenarios: []report.Scenario{
				{ID: "ok", Verdict: report.VerdictPass, Metrics: trace.Metrics{Latency: 1500 * time.Millisecond}},
				{ID: "wrong", Verdict: report.VerdictFail, Checks: []report.Check{{Turn: 0, Name: "route", Detail: "want tool, got code"}}},
				{ID: "old", Verdict: report.VerdictStale, Error: "cassette has no match"},
			},
			Thresholds: []report.Threshold{{Source: "pass_rate == 100%", Pass: false, Detail: "pass_rate = 33.3%"}},
		}}}}}
		var buf bytes.Buffer
		Expect(report.WriteJUnit(&buf, r)).To(Succeed())
		var doc struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Errors   int `xml:"errors,attr"`
			Suites   []struct {
				Name  string `xml:"name,attr"`
				Cases []struct {
					Name       string `xml:"name,attr"`
					Time       string `xml:"time,attr"`
					Properties []struct {
						Name  string `xml:"name,attr"`
						Value string `xml:"value,attr"`
					} `xml:"properties>property"`
					Failure *struct {
						Text string `xml:",chardata"`
					} `xml:"failure"`
					Error *struct {
						Text string `xml:",chardata"`
					} `xml:"error"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		Expect(xml.Unmarshal(buf.Bytes(), &doc)).To(Succeed())
		Expect([]int{doc.Tests, doc.Failures, doc.Errors}).To(Equal([]int{4, 2, 1}))
		Expect(doc.Suites[0].Name).To(Equal("odbchat/single-pass"))
		cs := doc.Suites[0].Cases
		Expect(cs[0].Time).To(Equal("0.000"), "a testcase's time is wall time, which a replay does not spend per scenario")
		Expect(cs[0].Properties[0].Name).To(Equal("replayed_latency_ms"))
		Expect(cs[0].Properties[0].Value).To(Equal("1500"))
		Expect(cs[1].Failure.Text).To(Equal("turn 1 route: want tool, got code"))
		Expect(cs[2].Error.Text).To(Equal("cassette has no match"))
		Expect(cs[3].Name).To(Equal("threshold: pass_rate == 100%"))
	})
})

var _ = Describe("WriteJUnitRun", func() {
	It("gives the run's wall time, and each regression the gate found as a failure", func() {
		r := passing()
		var buf bytes.Buffer
		r.Gate = &report.Gate{Baseline: "reports/baseline.json", Compared: true, Failed: true, Regressions: []report.Regression{
			{Suite: "climate", Variant: "trimmed", Scenario: "c1-rainfall", Metric: "input_tokens", Base: 831, Head: 857, Allowed: 0.02},
		}}
		Expect(report.WriteJUnitRun(&buf, r, report.JUnitRun{Wall: 7200 * time.Millisecond})).To(Succeed())
		var doc struct {
			Time     string `xml:"time,attr"`
			Failures int    `xml:"failures,attr"`
			Suites   []struct {
				Name  string `xml:"name,attr"`
				Cases []struct {
					Name    string `xml:"name,attr"`
					Failure *struct {
						Text string `xml:",chardata"`
					} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		Expect(xml.Unmarshal(buf.Bytes(), &doc)).To(Succeed())
		Expect(doc.Time).To(Equal("7.200"))
		Expect(doc.Failures).To(Equal(1), "the scenarios passed; the gate did not")
		gate := doc.Suites[len(doc.Suites)-1]
		Expect(gate.Name).To(Equal("regression gate"))
		Expect(gate.Cases[0].Name).To(Equal("climate/trimmed/c1-rainfall input_tokens"))
		Expect(gate.Cases[0].Failure.Text).To(Equal("input_tokens: 831 → 857, more than the 2.0% allowed"))

		buf.Reset()
		r.Gate = &report.Gate{Baseline: "reports/baseline.json", Compared: true}
		Expect(report.WriteJUnitRun(&buf, r, report.JUnitRun{})).To(Succeed())
		Expect(buf.String()).To(ContainSubstring(`name="no regression against the blessed baseline"`))
	})

	It("fails a gate that failed with no regression, saying why", func() {
		r := passing()
		r.Gate = &report.Gate{Baseline: "reports/baseline.json", Failed: true, Summary: "the gate could not run: no blessed baseline"}
		var buf bytes.Buffer
		Expect(report.WriteJUnitRun(&buf, r, report.JUnitRun{})).To(Succeed())
		Expect(buf.String()).To(ContainSubstring(`failures="1"`))
		Expect(buf.String()).To(ContainSubstring(`message="the gate could not run: no blessed baseline"`))
	})
})
