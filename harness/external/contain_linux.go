package external

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// contain makes the program, and every process it starts, end with
// testbed however testbed ends, SIGKILL included. The program runs under a
// small init, /bin/sh, that is process 1 of a new PID namespace inside a
// new user namespace (no privilege needed; the network is the host's, so
// the proxy on loopback stays reachable). The kernel kills that init when
// testbed dies (its parent-death signal), and kills everything in the
// namespace when the init dies, wherever those processes went (a new
// session, a double fork). The init waits for the program, passes its exit
// status on (a program killed by a signal exits 128+n) and forwards
// nothing else; the program and the init share a process group, so that
// stop's SIGTERM reaches the program as before.
//
// Where user namespaces are not allowed (a container without them, a
// sysctl that turns them off), the program runs under a keeper (keep),
// helper, which ends it and everything it started when it exits, when
// testbed stops it, and when testbed ends, SIGKILL included; only a
// process that kills its keeper first (SIGKILL to it, by its pid) can
// outlive testbed. Without a helper (a library user that gives none,
// Spec.Isolate) it runs in a process group of its own with a parent-death
// signal: it ends with testbed, but a child of it that left its process
// group outlives testbed, and one that did not outlives a SIGKILL of
// testbed. testbed says which, once, on stderr. It returns the keeper,
// nil when there is none.
func contain(cmd *exec.Cmd, helper string) *keeper {
	if cmd.Err != nil {
		return nil // Start reports it
	}
	if _, err := exec.LookPath(cmd.Path); err != nil {
		cmd.Err = err // not the init's "not found", but Start's own error
		return nil
	}
	if !namespaces() {
		if helper != "" {
			if k := keep(cmd, helper); k != nil {
				warnOnce(keptWarning)
				return k
			}
		}
		warnOnce(groupWarning)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		return nil
	}
	// The program keeps its stdin: an asynchronous command of sh gets
	// /dev/null unless given its own.
	cmd.Args = append([]string{"testbed-init", "-c", `exec 3<&0; "$@" <&3 3<&- & exec 3<&-; wait $!`, "testbed-init", cmd.Path}, cmd.Args[1:]...)
	cmd.Path = initShell
	cmd.SysProcAttr = pidNamespace()
	return nil
}

// initShell is the program's init in its namespace.
const initShell = "/bin/sh"

// pidNamespace is the SysProcAttr of an init in a new user and PID
// namespace, mapped to testbed's own user and group.
func pidNamespace() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Setpgid:     true,
		Pdeathsig:   syscall.SIGKILL,
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}},
	}
}

// namespaces reports whether this system lets testbed start a process in
// a new user and PID namespace, trying it once.
var namespaces = sync.OnceValue(func() bool {
	probe := exec.Command(initShell, "-c", ":")
	probe.SysProcAttr = pidNamespace()
	namespaceErr = probe.Run()
	return namespaceErr == nil
})

// namespaceErr is why namespaces is false.
var namespaceErr error

// What testbed says, once, when a program runs without a PID namespace:
// under a keeper, or in a process group only.
const (
	keptWarning  = "each runs under a keeper that ends it and every process it started when it exits or testbed ends, SIGKILL of testbed included; a process that kills its keeper first can outlive testbed"
	groupWarning = "each runs in a process group of its own that ends with testbed, but a child of one that leaves that group (a new session or process group) outlives testbed, and any child of one outlives a SIGKILL of testbed"
)

var warned sync.Map // warning → struct{}

// warnOnce says on stderr, once per process, that outside agents run
// without a PID namespace, why, and what holds instead.
func warnOnce(what string) {
	if _, dup := warned.LoadOrStore(what, struct{}{}); !dup {
		fmt.Fprintf(os.Stderr, "testbed: warning: outside agents run without a PID namespace (%v): %s\n", namespaceErr, what)
	}
}
