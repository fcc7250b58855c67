//go:build !linux

package external

// listener reports whether the program listens on port; this system does
// not say who holds a socket, so it is taken to.
func (p *process) listener(port int) (ours bool, who string) { return true, "" }
