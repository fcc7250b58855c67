package main

import (
	"fmt"
	"os"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/external"
)

var _ = Describe("the hermeticity line of a run with an outside agent", func() {
	var root, bin string
	BeforeEach(func() {
		exe, err := os.Executable()
		Expect(err).NotTo(HaveOccurred())
		if iso := external.Probe(exe); !iso.Hermetic {
			Skip("this system cannot isolate a program: " + iso.String())
		}
		root, bin = project(), buildTestbed()
	})

	It("says the agent ran hermetic by network namespace", func() {
		odbchatAs(root, "odbchat-ext", fmt.Sprintf("  command: [%s, agent, odbchat, --root, %s]\n", bin, root))
		r := testbed("run", "--root", root, "--suite", "odbchat-ext", "--variant", "single-pass", "--out", "", "--baseline", "", "--quiet")
		Expect(r.code).To(Equal(0), r.String())
		Expect(r.stdout).To(MatchRegexp(`replay: 0 live calls; [\d,]+ of [\d,]+ recorded interactions replayed; 0 unused cassettes; outside agents hermetic by network namespace\n`))
	})

	It("names the host an agent looked up, fails its run, and counts it", func() {
		odbchatAs(root, "odbchat-ext", fmt.Sprintf("  command: [sh, -c, 'getent hosts huggingface.co; exec %s agent odbchat --root %s']\n", bin, root))
		r := testbed("run", "--root", root, "--suite", "odbchat-ext", "--scenario", "ac1-taiwan-sst", "--out", "", "--baseline", "", "--quiet")
		Expect(r.code).To(Equal(exitFailed), r.String())
		Expect(r.stdout).To(ContainSubstring("the agent looked up huggingface.co, not through the base URLs it was given"))
		Expect(r.stdout).To(ContainSubstring("; outside agents hermetic by network namespace; 2 scenario runs with a call to a host not given (refused: see the errors)\n"))
	})
})
