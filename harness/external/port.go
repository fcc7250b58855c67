package external

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"syscall"
)

// A service is told its port (PORT) and binds it itself, so the port
// testbed picks is free only when it is picked: another process may take it
// before the service listens (a server of another testbed run, or a
// connection's local port). testbed never hands one port to two services
// of its own at once (held), and a service that finds its port taken is
// started again on a fresh one (see agent.launch), up to portTries times.
// A service in a jail listens in a namespace of its own, where nothing
// else can take its port.

// portTries is how many ports a service is started on before testbed gives
// up.
const portTries = 3

// held are the ports handed to services of this process that are still
// running.
var held = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// FreePort is a port of 127.0.0.1 that nothing listens on now, and that
// is not the port of a service this process runs: a service's PORT.
func FreePort() (int, error) {
	port, release, err := holdPort()
	release()
	return port, err
}

// holdPort is FreePort, held for a service of this process until release.
func holdPort() (int, func(), error) {
	held.Lock()
	defer held.Unlock()
	var busy []net.Listener // held ones the kernel offered: kept open, so it offers others
	defer func() {
		for _, ln := range busy {
			ln.Close()
		}
	}()
	for range 64 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, func() {}, fmt.Errorf("find a free port: %w", err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		if held.ports[port] {
			busy = append(busy, ln)
			continue
		}
		ln.Close()
		held.ports[port] = true
		var once sync.Once
		return port, func() {
			once.Do(func() {
				held.Lock()
				delete(held.ports, port)
				held.Unlock()
			})
		}, nil
	}
	return 0, func() {}, errors.New("find a free port: the kernel offered only ports this process's services hold")
}

// portTaken is a service's port that another process took before the
// service listened on it.
type portTaken struct {
	port int
	by   string // "another process", with its pid and name when known
}

func (e *portTaken) Error() string {
	return fmt.Sprintf("port %d was taken by %s", e.port, e.by)
}

// inUse reports whether another socket holds port of 127.0.0.1, so that
// nothing else can listen on it.
func inUse(port int) bool {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return errors.Is(err, syscall.EADDRINUSE)
	}
	ln.Close()
	return false
}

// addrInUse reports whether a program's output says it could not bind its
// address, as most runtimes word it.
func addrInUse(output string) bool {
	s := strings.ToLower(output)
	return strings.Contains(s, "address already in use") || strings.Contains(s, "eaddrinuse")
}
