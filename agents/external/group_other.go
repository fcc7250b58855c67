//go:build !unix

package external

import "os/exec"

func ownGroup(*exec.Cmd) {}

// kill ends the program (its children are not reached here).
func (p *process) kill() {
	if p.cmd.Process != nil {
		p.cmd.Process.Kill()
	}
}

// terminate does nothing here: stop kills the program a second later.
func (p *process) terminate() {}
