//go:build unix

package external

import "syscall"

// kill ends the program's process group (and, where contain started it
// in a PID namespace, everything in that namespace).
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
