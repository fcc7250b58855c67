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
