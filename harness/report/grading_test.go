package report_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
)

var _ = Describe("Kappa", func() {
	// 20 examples, 10 labelled pass: 8 passed, 2 failed; 10 labelled fail:
	// 3 passed, 7 failed. po = 15/20 = 0.75; pe = (10·11 + 10·9)/400 = 0.5;
	// kappa = 0.25/0.5 = 0.5.
	DescribeTable("matches hand-computed values",
		func(tp, fn, fp, tn int, want float64) {
			Expect(report.Calibration{TP: tp, FN: fn, FP: fp, TN: tn}.Kappa()).To(BeNumerically("~", want, 1e-12))
		},
		Entry("moderate agreement", 8, 2, 3, 7, 0.5),
		Entry("perfect agreement", 5, 0, 0, 5, 1.0),
		// po = 2/4 = 0.5, pe = (2·2 + 2·2)/16 = 0.5: no better than chance.
		Entry("chance", 1, 1, 1, 1, 0.0),
		// po = 6/10, pe = (5·5 + 5·5)/100 = 0.5: kappa = 0.1/0.5 = 0.2.
		Entry("slight", 3, 2, 2, 3, 0.2),
		// Always the opposite: po = 0, pe = 0.5, kappa = −1.
		Entry("always wrong", 0, 4, 4, 0, -1.0),
		Entry("nothing", 0, 0, 0, 0, 0.0),
	)
})
