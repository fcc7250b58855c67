//go:build unix

package external

import "syscall"

// kill ends the program's process group (and, where contain started it
// in a PID namespace, everything in that namespace); a kept program's
// keeper ends it and everything it started instead.
func (p *process) kill() {
	if p.keeper != nil {
		p.keeper.release()
		return
	}
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
