//go:build unix && !linux

package external

import (
	"os/exec"
	"syscall"
)

// contain starts the program in a process group of its own, so that
// ending it ends the children it started too. This system has neither PID
// namespaces nor a parent-death signal: a program, or a child of one, can
// outlive a testbed that is killed with SIGKILL, and a child that leaves
// the group outlives testbed however it ends. It has no keeper.
func contain(cmd *exec.Cmd, _ string) *keeper {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return nil
}
