package main

import (
	"fmt"
	"os"
	"os/exec"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/external"
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

	It("says why not when the system refuses namespaces, and runs the agent on the machine's network", func() {
		if _, err := exec.LookPath("unshare"); err != nil {
			Skip("unshare is not installed")
		}
		odbchatAs(root, "odbchat-ext", fmt.Sprintf("  command: [%s, agent, odbchat, --root, %s]\n", bin, root))
		// A user namespace of its own whose limit of nested ones is 0: as
		// on a system with user.max_user_namespaces=0, without changing this one.
		out, err := exec.Command("unshare", "-r", "sh", "-c", `echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"`, "sh",
			bin, "run", "--root", root, "--suite", "odbchat-ext", "--variant", "single-pass", "--out", "", "--baseline", "", "--quiet").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(string(out)).To(ContainSubstring("; 0 unused cassettes; outside agents not isolated: this system does not let an unprivileged process create a user and network namespace ("))
		Expect(string(out)).To(ContainSubstring("user.max_user_namespaces is 0: a call that ignores HTTP_PROXY is not seen\n"))
		Expect(string(out)).To(ContainSubstring("PASS: all"))
	})
})
