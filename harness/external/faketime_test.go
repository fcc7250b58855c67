package external_test

import (
	"context"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/external"
)

// runAt runs the command once, for one turn, with the scenario's clock at
// clock.
func runAt(spec external.Spec, clock time.Time) (agents.Answer, error) {
	GinkgoHelper()
	cfg := agents.Config{
		HTTP: &http.Client{Transport: &seen{}}, Tracer: &notes{}, Clock: func() time.Time { return clock },
		Endpoint: llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "m"},
	}
	a, err := external.New(spec, GinkgoT().TempDir())(cfg)
	Expect(err).NotTo(HaveOccurred())
	return a.Run(context.Background(), agents.Input{Turns: []string{"what time is it?"}})
}

var _ = Describe("clock: fake", func() {
	clock := time.Date(2031, 5, 17, 9, 30, 0, 0, time.UTC)
	// date is a dynamically linked C program: it reads the clock through libc.
	const date = `read l; printf '{"text":"%s"}\n' "$(date -u +%Y-%m-%dT%H:%M)"`

	It("makes a program that reads the system clock through libc see the scenario's clock", func() {
		ans, err := runAt(external.Spec{Command: []string{"sh", "-c", date}, FakeClock: true}, clock)
		Expect(err).NotTo(HaveOccurred(), "CI installs libfaketime (.ci/run); locally: apt-get install libfaketime")
		Expect(ans.Replies[0].Text).To(Equal("2031-05-17T09:30"))
	})

	It("leaves the system clock alone without it", func() {
		ans, err := runAt(external.Spec{Command: []string{"sh", "-c", date}}, clock)
		Expect(err).NotTo(HaveOccurred())
		Expect(ans.Replies[0].Text).NotTo(HavePrefix("2031-05-17"))
	})

	It("says so, and how to install it, when libfaketime is missing", func() {
		DeferCleanup(external.SetFakeTimeLibraries([]string{"/no/such/libfaketime.so.1"}))
		_, err := runAt(external.Spec{Command: []string{"sh", "-c", date}, FakeClock: true}, clock)
		Expect(err).To(MatchError(external.ErrNoFakeTime))
		Expect(err.Error()).To(ContainSubstring("agent.clock: fake needs libfaketime's preload library, found in none of /no/such/libfaketime.so.1"))
		Expect(err.Error()).To(ContainSubstring("apt-get install libfaketime"))
	})

	It("refuses a Go program, which reads the clock without libc, saying what to do instead", func() {
		// The go command is itself a Go program.
		_, err := runAt(external.Spec{Command: []string{"go", "version"}, FakeClock: true}, clock)
		Expect(err).To(MatchError(external.ErrGoClock))
		Expect(err.Error()).To(ContainSubstring("cannot change the clock of go, a Go program"))
		Expect(err.Error()).To(ContainSubstring("read TESTBED_NOW or TESTBED_CLOCK_URL"))
	})
})
