//go:build !linux

package external

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"

	"github.com/agentreplay/testbed/harness/proxy"
)

// jail is Linux-only: elsewhere no program is isolated (probe says why).
type jail struct{ names *lookups }

func newJail(string, *proxy.Proxy) (*jail, error) {
	return nil, fmt.Errorf("network namespaces are Linux-only")
}

func (*jail) dial(context.Context, string) (net.Conn, error) {
	return nil, fmt.Errorf("network namespaces are Linux-only")
}

func (*jail) wrap(*exec.Cmd) {}
func (*jail) started()       {}
func (*jail) close()         {}

// Probe says that programs are not isolated here.
func Probe(string) Isolation {
	return Isolation{Reason: "network namespaces are Linux-only, and this is " + runtime.GOOS + ": a call that ignores HTTP_PROXY is not seen"}
}

// IsolateMain serves IsolateCommand, which needs Linux.
func IsolateMain([]string) int {
	fmt.Fprintln(os.Stderr, "testbed: isolate the agent: network namespaces are Linux-only")
	return 125
}
