package report_test

import (
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
)

var _ = Describe("the wall time of an outside agent's run", func() {
	It("is written in milliseconds, to the microsecond, and read back", func() {
		sc := report.Scenario{ID: "a", Wall: &report.WallTime{Start: 312*time.Millisecond + 4567*time.Nanosecond, Proxy: 250 * time.Microsecond, Cassette: time.Millisecond, Agent: 2 * time.Second}}
		b, err := json.Marshal(sc)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(ContainSubstring(`"wall_clock":{"start_ms":312.004,"proxy_ms":0.25,"cassette_ms":1,"agent_ms":2000}`))
		var back report.Scenario
		Expect(json.Unmarshal(b, &back)).To(Succeed())
		Expect(*back.Wall).To(Equal(report.WallTime{Start: 312004 * time.Microsecond, Proxy: 250 * time.Microsecond, Cassette: time.Millisecond, Agent: 2 * time.Second}))
	})

	It("is left out for a built-in agent's run", func() {
		b, err := json.Marshal(report.Scenario{ID: "a"})
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).NotTo(ContainSubstring("wall_clock"))
	})
})
