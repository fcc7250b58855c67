package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
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

	DescribeTable("stops a long command at SIGINT or SIGTERM, with exit 130",
		func(sig syscall.Signal, args ...string) {
			cmd := exec.Command(bin, args...)
			cmd.Dir = must(filepath.Abs(repoRoot))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			Expect(cmd.Start()).To(Succeed())
			DeferCleanup(func() { cmd.Process.Kill() })
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			// The whole scan takes many seconds: a second in, it is under way.
			Consistently(exited).WithTimeout(time.Second).ShouldNot(Receive(), func() string { return stderr.String() })
			Expect(cmd.Process.Signal(sig)).To(Succeed())
			var err error
			Eventually(exited).WithTimeout(5 * time.Second).Should(Receive(&err))
			Expect(cmd.ProcessState.ExitCode()).To(Equal(exitSignal), "%v: %s", err, stderr.String())
			Expect(stderr.String()).To(ContainSubstring("testbed: interrupted"))
		},
		Entry("cassettes check, SIGINT", syscall.SIGINT, "cassettes", "check", "--dir", "cassettes"),
		Entry("cassettes check, SIGTERM", syscall.SIGTERM, "cassettes", "check", "--dir", "cassettes"),
	)
})
