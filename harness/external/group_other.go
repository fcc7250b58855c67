//go:build !unix

package external

import "os/exec"

// contain does nothing here: the program's children are not reached.
func contain(*exec.Cmd, string) *keeper { return nil }

// kill ends the program (its children are not reached here).
func (p *process) kill() {
	if p.cmd.Process != nil {
		p.cmd.Process.Kill()
	}
}

// terminate does nothing here: stop kills the program a second later.
func (p *process) terminate() {}
