package runner_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/memtest"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
)

var _ = Describe("memory", Serial, func() {
	It("keeps nothing of a replayed cassette once its scenario is done", func() {
		// 12 copies of a scenario with a 1 MB cassette, one at a time: what
		// the run holds after each scenario may grow by that scenario's
		// result, never by its cassette.
		const n = 12
		root, suite, size := copiesOf(GinkgoTB(), "family", "inline", "pool-chart-5-days", n)
		var held []uint64
		opts := runner.Options{Root: root, Mode: cassette.ModeReplay, Agents: all.Registry(), Parallel: 1,
			Progress: func(done, total int, suite, variant, id string) { held = append(held, memtest.Live()) }}
		rep, err := runner.Run(context.Background(), []*scenario.Suite{suite}, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.Passed()).To(BeTrue())
		Expect(held).To(HaveLen(n))
		// The mean of scenarios 9–12 against that of 3–6, six scenarios
		// apart: keeping each cassette would add six of them.
		mean := func(xs []uint64) int64 {
			var sum uint64
			for _, x := range xs {
				sum += x
			}
			return int64(sum) / int64(len(xs))
		}
		growth := mean(held[8:12]) - mean(held[2:6])
		GinkgoWriter.Printf("live heap after each scenario: %v\n", held)
		Expect(growth).To(BeNumerically("<", size),
			"the live heap grew by %d bytes over 6 scenarios of a %d-byte cassette: %v", growth, size, held)
	})
})
