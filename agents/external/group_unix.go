//go:build unix

package external

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the program in a process group of its own, so that
// ending it ends the children it started too.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// kill ends the program's process group.
func (p *process) kill() {
	if p.cmd.Process != nil {
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// terminate asks the program's process group to end.
func (p *process) terminate() {
	if p.cmd.Process != nil {
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	}
}
