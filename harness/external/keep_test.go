//go:build linux

package external_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/external"
	"github.com/agentreplay/testbed/harness/proctest"
)

var _ = Describe("a program started where the system gives no user namespace", func() {
	BeforeEach(func() { DeferCleanup(external.WithoutNamespaces()) })

	DescribeTable("is kept: what it started in a new session or with its fds closed ends with it",
		func(stops bool) {
			marker := fmt.Sprintf("301.%06d", rand.IntN(1e6))
			release := filepath.Join(GinkgoT().TempDir(), "exit")
			DeferCleanup(func() {
				for _, pid := range proctest.Sleeping(marker) { // what a failed spec left
					syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			// It ignores SIGTERM, and exits once release is there.
			program := fmt.Sprintf(`trap '' TERM; setsid sleep %[1]s </dev/null >/dev/null 2>&1 & ( sh -c 'exec 0<&- 1>&- 2>&-; exec sleep %[1]s' & ); until [ -e %[2]s ]; do sleep 0.05; done`, marker, release)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				done <- external.Exec(ctx, []string{"sh", "-c", program}, []string{"PATH=" + os.Getenv("PATH")}, testBinary(), nil, io.Discard, io.Discard)
			}()
			Eventually(func() []int { return proctest.Sleeping(marker) }).WithTimeout(time.Minute).WithPolling(20*time.Millisecond).
				Should(HaveLen(2), "the program's children are running")
			if stops {
				cancel()
				Eventually(done).WithTimeout(time.Minute).Should(Receive(MatchError(context.Canceled)))
			} else {
				Expect(os.WriteFile(release, nil, 0o644)).To(Succeed())
				Eventually(done).WithTimeout(time.Minute).Should(Receive(BeNil()))
			}
			Eventually(func() []int { return proctest.Sleeping(marker) }).WithTimeout(10*time.Second).WithPolling(20*time.Millisecond).
				Should(BeEmpty(), "what the program started outlived it")
		},
		Entry("when it exits", false),
		Entry("when it is stopped", true),
	)
})
