package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"

	"github.com/agentreplay/testbed/harness/proctest"
)

// Where the system gives no user namespace, as on a system with
// user.max_user_namespaces=0: each outside agent runs under a keeper.
var _ = Describe("the testbed binary without user namespaces", Ordered, func() {
	var bin string
	BeforeAll(func() {
		if runtime.GOOS != "linux" {
			Skip("only Linux has the child subreaper the keeper is")
		}
		for _, tool := range []string{"unshare", "setsid"} {
			if _, err := exec.LookPath(tool); err != nil {
				Skip(tool + " is not installed")
			}
		}
		if err := exec.Command("unshare", "-r", "true").Run(); err != nil {
			// The specs make a user namespace to be without nested ones;
			// where none can be made, the keeper is what every other spec
			// of an outside agent already runs under.
			Skip("this system gives no user namespace (unshare -r: " + err.Error() + ")")
		}
		bin = buildTestbed()
	})

	DescribeTable("leaves no process of an agent's tree that left its process group, or closed its fds, or a signal",
		func(answer bool, end func(cmd *exec.Cmd, release string)) {
			root := project()
			release := filepath.Join(GinkgoT().TempDir(), "answer")
			marker := fmt.Sprintf("300.%06d", rand.IntN(1e6))
			// A daemon double-forked with its fds closed, one in a session
			// of its own, one that ignores SIGTERM, SIGINT and SIGHUP; the
			// agent answers every turn once release is there, or none.
			tree := fmt.Sprintf(`( sh -c 'exec 0<&- 1>&- 2>&-; exec sleep %[1]s' & ); setsid sleep %[1]s </dev/null >/dev/null 2>&1 & sh -c "trap '' TERM INT HUP; exec sleep %[1]s" & `, marker)
			turn := `read -r l; sleep 1000`
			if answer {
				turn = fmt.Sprintf(`while read -r l; do until [ -e %s ]; do sleep 0.05; done; echo '{"text": "hi"}'; done`, release)
			}
			odbchatAs(root, "tree", fmt.Sprintf("  command: [sh, -c, %q]\n", tree+turn))
			// A user namespace of its own whose limit of nested ones is 0.
			cmd := exec.Command("unshare", "-r", "sh", "-c", `echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"`, "sh",
				bin, "run", "--root", root, "--suite", "tree", "--scenario", "ac1-taiwan-sst", "--out", "", "--baseline", "", "--quiet")
			stderr := gbytes.NewBuffer()
			cmd.Stderr = stderr
			Expect(cmd.Start()).To(Succeed())
			DeferCleanup(func() {
				cmd.Process.Kill()
				cmd.Wait()
				for _, pid := range proctest.Sleeping(marker) { // what a failed spec left
					syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			Eventually(func() []int { return proctest.Sleeping(marker) }).WithTimeout(30*time.Second).WithPolling(50*time.Millisecond).
				Should(WithTransform(func(p []int) int { return len(p) }, BeNumerically(">=", 3)), "the agent's tree is running")
			end(cmd, release)
			Eventually(func() []int { return proctest.Sleeping(marker) }).WithTimeout(10*time.Second).WithPolling(50*time.Millisecond).
				Should(BeEmpty(), "processes of the agent's tree outlived testbed")
			Expect(string(stderr.Contents())).To(ContainSubstring("testbed: warning: outside agents run without a PID namespace ("))
			Expect(string(stderr.Contents())).To(ContainSubstring("): each runs under a keeper that ends it and every process it started when it exits or testbed ends, SIGKILL of testbed included"))
		},
		Entry("when the run ends, failed", true, func(cmd *exec.Cmd, release string) {
			Expect(os.WriteFile(release, nil, 0o644)).To(Succeed())
			Expect(cmd.Wait()).To(MatchError(ContainSubstring("exit status 1")))
		}),
		Entry("when testbed is interrupted mid-turn (SIGINT)", false, func(cmd *exec.Cmd, _ string) {
			Expect(cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
			cmd.Wait()
		}),
		Entry("when testbed is killed mid-turn (SIGKILL)", false, func(cmd *exec.Cmd, _ string) {
			Expect(cmd.Process.Signal(syscall.SIGKILL)).To(Succeed())
			cmd.Wait()
		}),
	)
})
