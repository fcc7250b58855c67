package judge_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/judge"
)

func pref(w string) judge.Preference { return judge.Preference{Winner: w} }

var _ = Describe("pairwise judging", func() {
	DescribeTable("Combine reads both orders as one outcome for the head answer, cancelling position",
		func(first, swapped string, want judge.Outcome) {
			Expect(judge.Combine(pref(first), pref(swapped))).To(Equal(want))
		},
		// first: base is A, head is B; swapped: head is A, base is B.
		Entry("head preferred in both orders", "B", "A", judge.OutcomeWin),
		Entry("base preferred in both orders", "A", "B", judge.OutcomeLoss),
		Entry("tie in both orders", "tie", "tie", judge.OutcomeTie),
		Entry("always the first position: inconsistent", "A", "A", judge.OutcomeInconsistent),
		Entry("always the second position: inconsistent", "B", "B", judge.OutcomeInconsistent),
		Entry("a win and a tie: inconsistent", "B", "tie", judge.OutcomeInconsistent),
	)

	It("tallies outcomes and gives the win rate over decided pairs only", func() {
		var t judge.Tally
		for _, o := range []judge.Outcome{judge.OutcomeWin, judge.OutcomeWin, judge.OutcomeWin, judge.OutcomeLoss, judge.OutcomeTie, judge.OutcomeInconsistent} {
			t.Add(o)
		}
		Expect(t).To(Equal(judge.Tally{Wins: 3, Losses: 1, Ties: 1, Inconsistent: 1}))
		Expect(t.Decided()).To(Equal(4))
		Expect(t.WinRate()).To(Equal(0.75))
		Expect(judge.Tally{Ties: 2}.WinRate()).To(Equal(0.0))
	})

	// Hand-computed with z = 1.959964 (z² = 3.841459):
	// 8 of 10: p = 0.8, centre = 0.8 + 0.192073 = 0.992073,
	// margin = 1.959964·√(0.016 + 0.009604) = 1.959964·0.160012 = 0.313617,
	// divided by 1.384146: [0.490162, 0.943318] (the interval usually quoted
	// for 8 of 10 is 0.490 to 0.943).
	// 3 of 4: p = 0.75, centre = 0.75 + 0.480182 = 1.230182,
	// margin = 1.959964·√(0.046875 + 0.060023) = 1.959964·0.326952 = 0.640815,
	// divided by 1.960365: [0.300642, 0.954413].
	// 0 of 5: centre = 0.384146, margin = 1.959964·√0.038415 = 0.384146,
	// divided by 1.768292: [0, 0.434482].
	DescribeTable("Wilson matches hand-computed 95% intervals",
		func(k, n int, lo, hi float64) {
			l, h := judge.Wilson(k, n, judge.Z95)
			Expect(l).To(BeNumerically("~", lo, 5e-6))
			Expect(h).To(BeNumerically("~", hi, 5e-6))
		},
		Entry("8 of 10", 8, 10, 0.490162, 0.943318),
		Entry("3 of 4", 3, 4, 0.300642, 0.954413),
		Entry("0 of 5", 0, 5, 0.0, 0.434482),
		Entry("nothing decided", 0, 0, 0.0, 1.0),
	)
})
