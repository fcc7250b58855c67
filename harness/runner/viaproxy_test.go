package runner_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/check"
	"github.com/agentreplay/testbed/harness/proxy"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
)

// committedSuites loads every committed suite.
func committedSuites() []*scenario.Suite {
	GinkgoHelper()
	suites, err := scenario.LoadDir(filepath.Join("..", "..", "scenarios"), scenario.LoadOptions{Metrics: check.MetricNames(), Faults: runner.FaultKinds()})
	Expect(err).NotTo(HaveOccurred())
	return suites
}

var _ = Describe("Run through the proxy", func() {
	It("gives, for every committed suite, the report of the run without it", func() {
		suites := committedSuites()
		opts := runner.Options{Mode: cassette.ModeReplay, Root: filepath.Join("..", ".."), Agents: all.Registry()}
		direct, err := runner.Run(context.Background(), suites, opts)
		Expect(err).NotTo(HaveOccurred())

		p, err := proxy.Start()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(p.Close)
		opts.Proxy = p
		proxied, err := runner.Run(context.Background(), suites, opts)
		Expect(err).NotTo(HaveOccurred())

		var a, b bytes.Buffer
		Expect(report.WriteJSON(&a, direct)).To(Succeed())
		Expect(report.WriteJSON(&b, proxied)).To(Succeed())
		al, bl := strings.Split(a.String(), "\n"), strings.Split(b.String(), "\n")
		var diff []string
		for i := range min(len(al), len(bl)) {
			if al[i] != bl[i] && len(diff) < 20 {
				diff = append(diff, al[i]+"\n  → "+bl[i])
			}
		}
		Expect(diff).To(BeEmpty())
		Expect(b.String()).To(Equal(a.String()))
		Expect(direct.Passed()).To(BeTrue())
	})
})
