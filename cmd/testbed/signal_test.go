package main

import (
	"bytes"
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

	"github.com/agentreplay/testbed/harness/proctest"
)

// The built binary, signalled as a shell or a CI runner would.
var _ = Describe("the testbed binary, signalled", Ordered, func() {
	var bin string
	BeforeAll(func() {
		dir, err := os.MkdirTemp("", "testbed-bin-")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(os.RemoveAll, dir)
		bin = filepath.Join(dir, "testbed")
		out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
	})

	// longScan is a command of many seconds on any machine: cassettes
	// check over twenty hard-linked copies of the committed cassettes
	// (one copy takes about three seconds of two cores), its first word
	// the program that starts it (bin, or a shell that starts bin).
	longScan := func(start ...string) *exec.Cmd {
		root := GinkgoT().TempDir()
		for i := range 20 {
			linkTree(GinkgoT(), filepath.Join(repoRoot, "cassettes"), filepath.Join(root, "cassettes", fmt.Sprintf("copy%02d", i)))
		}
		cmd := exec.Command(start[0], append(start[1:], "cassettes", "check", "--dir", "cassettes")...)
		cmd.Dir = root
		return cmd
	}

	// scanning starts a long scan (longScan's start) and returns when a
	// second of it has gone by with it still running: the channel its
	// end is sent on, and its standard error.
	scanning := func(start ...string) (*exec.Cmd, chan error, *bytes.Buffer) {
		cmd := longScan(start...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		Expect(cmd.Start()).To(Succeed())
		DeferCleanup(func() { cmd.Process.Kill() })
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		Consistently(exited).WithTimeout(time.Second).ShouldNot(Receive(), func() string { return stderr.String() })
		return cmd, exited, &stderr
	}

	DescribeTable("stops a long command at SIGINT, SIGTERM or SIGHUP, with exit 130",
		func(sig syscall.Signal) {
			cmd, exited, stderr := scanning(bin)
			Expect(cmd.Process.Signal(sig)).To(Succeed())
			var err error
			Eventually(exited).WithTimeout(5 * time.Second).Should(Receive(&err))
			Expect(cmd.ProcessState.ExitCode()).To(Equal(exitSignal), "%v: %s", err, stderr.String())
			Expect(stderr.String()).To(ContainSubstring("testbed: interrupted"))
		},
		Entry("cassettes check, SIGINT", syscall.SIGINT),
		Entry("cassettes check, SIGTERM", syscall.SIGTERM),
		Entry("cassettes check, SIGHUP: the terminal it ran in closed", syscall.SIGHUP),
	)

	It("keeps going at SIGHUP when started with it ignored, as nohup starts it, and stops at SIGINT", func() {
		cmd, exited, stderr := scanning("sh", "-c", `trap "" HUP; exec "$0" "$@"`, bin)
		Expect(cmd.Process.Signal(syscall.SIGHUP)).To(Succeed())
		Consistently(exited).WithTimeout(time.Second).ShouldNot(Receive(), func() string { return stderr.String() })
		Expect(cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
		Eventually(exited).WithTimeout(5 * time.Second).Should(Receive())
		Expect(cmd.ProcessState.ExitCode()).To(Equal(exitSignal), stderr.String())
	})

	DescribeTable("leaves no agent process, nor a child of one, nor a file in the temporary folder, when it is killed with SIGKILL mid-turn",
		func(how func(marker string) string) {
			if runtime.GOOS != "linux" {
				Skip("only Linux has the PID namespaces and the /proc this relies on")
			}
			root := project()
			// The agent forks a child and never answers: testbed waits for
			// its turn when it is killed.
			marker := fmt.Sprintf("300.%06d", rand.IntN(1e6))
			odbchatAs(root, "hang", how(marker))
			cmd := exec.Command(bin, "run", "--root", root, "--suite", "hang", "--scenario", "ac1-taiwan-sst", "--out", "", "--baseline", "", "--quiet")
			tmp := GinkgoT().TempDir()
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			Expect(cmd.Start()).To(Succeed())
			DeferCleanup(func() {
				cmd.Process.Kill()
				cmd.Wait()
				for _, pid := range proctest.Sleeping(marker) { // what a failed spec left
					syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			Eventually(func() []int { return proctest.Sleeping(marker) }).WithTimeout(30*time.Second).WithPolling(50*time.Millisecond).
				Should(WithTransform(func(p []int) int { return len(p) }, BeNumerically(">=", 2)), "the agent's child and grandchild are running (of each variant's run)")

			Expect(cmd.Process.Signal(syscall.SIGKILL)).To(Succeed())
			cmd.Wait()
			Eventually(func() []int { return proctest.Sleeping(marker) }).WithTimeout(10*time.Second).WithPolling(50*time.Millisecond).
				Should(BeEmpty(), "processes of the agent's tree outlived testbed")
			left, err := os.ReadDir(tmp)
			Expect(err).NotTo(HaveOccurred())
			Expect(left).To(BeEmpty(), "what testbed made in the temporary folder outlived it")
		},
		Entry("a command speaking JSON lines", func(marker string) string {
			return fmt.Sprintf("  command: [sh, -c, \"sleep %s & sleep %s\"]\n", marker, marker)
		}),
		Entry("a kept-alive service", func(marker string) string {
			return fmt.Sprintf("  command: [sh, -c, \"sleep %s & sleep %s\"]\n  http: {url: \"http://127.0.0.1:{{port}}/chat\"}\n  keep_alive: variant\n  start_timeout: 50s\n", marker, marker)
		}),
	)
})
