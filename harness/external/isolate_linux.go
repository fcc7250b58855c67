package external

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentreplay/testbed/harness/proxy"
)

// jail cuts one program off the network: it starts in a user namespace
// and a network namespace of its own (no root needed), under IsolateMain,
// which brings up the namespace's loopback, listens there on the proxy's
// port and hands that listener to testbed over a socket pair it inherits
// (fd 4; nothing in the filesystem, so nothing is left behind when testbed
// is killed), so that the proxy
// serves the program's connections itself, with nothing copied between;
// it answers every name lookup "no such host" and tells testbed the name,
// dials a service's own port for testbed (dial), and starts the program.
// Any other address is unreachable from inside.
type jail struct {
	exe   string
	port  string   // the proxy's port
	child *os.File // the helper's end of the lookups socket pair
	mine  *os.File
	names *lookups
	// The socket pair the helper hands its listener over: the helper's end
	// and testbed's.
	handChild, hand *os.File
	// The socket pair of the helper's dials into the namespace (dial):
	// testbed's end, and the helper's.
	dials     *net.UnixConn
	dialChild *os.File
	dialing   sync.Mutex

	mu     sync.Mutex
	served net.Listener // the helper's listener, served by the proxy
	closed bool
}

// newJail prepares the jail of a program whose proxy is p, with exe as the
// helper that serves IsolateCommand.
func newJail(exe string, p *proxy.Proxy) (*jail, error) {
	_, port, err := net.SplitHostPort(strings.TrimPrefix(p.URL(), "http://"))
	if err != nil {
		return nil, fmt.Errorf("isolate the agent: proxy address %q: %w", p.URL(), err)
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("isolate the agent: %w", err)
	}
	hands, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		syscall.Close(fds[0])
		syscall.Close(fds[1])
		return nil, fmt.Errorf("isolate the agent: %w", err)
	}
	dials, dialChild, err := newDialPair()
	if err != nil {
		for _, fd := range [...]int{fds[0], fds[1], hands[0], hands[1]} {
			syscall.Close(fd)
		}
		return nil, fmt.Errorf("isolate the agent: %w", err)
	}
	j := &jail{exe: exe, port: port, mine: os.NewFile(uintptr(fds[0]), "lookups"), child: os.NewFile(uintptr(fds[1]), "lookups"), names: &lookups{},
		hand: os.NewFile(uintptr(hands[0]), "handover"), handChild: os.NewFile(uintptr(hands[1]), "handover"),
		dials: dials, dialChild: dialChild}
	go j.take(p)
	go j.listen()
	return j, nil
}

// take receives the listener the helper opened on the proxy's port inside
// the namespace and serves the proxy on it until the jail closes.
func (j *jail) take(p *proxy.Proxy) {
	c, err := net.FileConn(j.hand)
	if err != nil {
		return
	}
	ln, err := receiveListener(c.(*net.UnixConn))
	c.Close()
	if err != nil {
		return // the helper could not send it: it fails the program, saying why
	}
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		ln.Close()
		return
	}
	j.served = ln
	j.mu.Unlock()
	p.Serve(ln)
}

// receiveListener reads the listener the helper sends on c (handOver).
func receiveListener(c *net.UnixConn) (net.Listener, error) {
	oob := make([]byte, syscall.CmsgSpace(4))
	_, oobn, _, _, err := c.ReadMsgUnix(make([]byte, 1), oob)
	if err != nil {
		return nil, err
	}
	f, err := sentFile(oob[:oobn], "the namespace's listener")
	if err != nil {
		return nil, fmt.Errorf("the helper sent no listener (%v)", err)
	}
	defer f.Close()
	return net.FileListener(f)
}

// sentFile is the one descriptor the helper sent in a message's control
// data, oob, as a file named name.
func sentFile(oob []byte, name string) (*os.File, error) {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err == nil && len(msgs) != 1 {
		err = fmt.Errorf("%d control messages", len(msgs))
	}
	if err != nil {
		return nil, err
	}
	fds, err := syscall.ParseUnixRights(&msgs[0])
	if err == nil && len(fds) != 1 {
		err = fmt.Errorf("%d descriptors", len(fds))
	}
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fds[0]), name), nil
}

// handOver sends ln to testbed over the socket sock (the helper's side of
// take) and closes the helper's own copy: testbed's proxy serves it from
// then on.
func handOver(ln *net.TCPListener, sock *os.File) error {
	defer ln.Close()
	defer sock.Close()
	f, err := ln.File()
	if err != nil {
		return err
	}
	defer f.Close()
	c, err := net.FileConn(sock)
	if err != nil {
		return err
	}
	defer c.Close()
	_, _, err = c.(*net.UnixConn).WriteMsgUnix([]byte{0}, syscall.UnixRights(int(f.Fd())), nil)
	return err
}

// listen records the names the helper reports, acknowledging each, so
// that a name is recorded before the program learns it does not resolve.
func (j *jail) listen() {
	r := bufio.NewReader(j.mine)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		j.names.add(strings.TrimSpace(line))
		if _, err := j.mine.Write([]byte{'\n'}); err != nil {
			return
		}
	}
}

// wrap makes cmd start the helper in the namespaces, which starts what cmd
// would have; cmd's own SysProcAttr (its process group, other namespaces)
// is kept.
func (j *jail) wrap(cmd *exec.Cmd) {
	args := append([]string{j.exe, IsolateCommand, "--port", j.port, "--", cmd.Path}, cmd.Args...)
	cmd.Path, cmd.Args = j.exe, args
	cmd.ExtraFiles = append([]*os.File{j.child, j.handChild, j.dialChild}, cmd.ExtraFiles...)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	}
	cmd.SysProcAttr = namespaced(cmd.SysProcAttr)
}

// started drops testbed's copies of the helper's ends, once it has its
// own: a helper that ends without handing its listener over ends take.
func (j *jail) started() {
	j.child.Close()
	j.handChild.Close()
	j.dialChild.Close()
}

// close stops serving the namespace's listener; the program has exited.
func (j *jail) close() {
	j.mu.Lock()
	j.closed = true
	if j.served != nil {
		j.served.Close()
	}
	j.mu.Unlock()
	j.hand.Close()
	j.handChild.Close()
	j.child.Close()
	j.mine.Close()
	j.dials.Close()
	j.dialChild.Close()
}

// namespaced adds a new user namespace (the caller's user as its root), a
// new network namespace and a new PID namespace, whose process 1 is the
// helper, to attr: the helper is killed if testbed dies, and everything in
// the namespace with it (contain's guarantee, for an isolated program).
func namespaced(attr *syscall.SysProcAttr) *syscall.SysProcAttr {
	if attr == nil {
		attr = &syscall.SysProcAttr{}
	}
	if attr.Pdeathsig == 0 {
		attr.Pdeathsig = syscall.SIGKILL
	}
	attr.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET | syscall.CLONE_NEWPID
	if attr.UidMappings == nil {
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
	}
	return attr
}

// probes holds, per helper, whether this system lets it isolate a program.
var probes sync.Map // exe → func() Isolation

// Probe reports whether programs can be isolated with exe as the helper:
// it starts the helper once, in the namespaces, to bring up a loopback and
// listen there, and says why not when that fails.
func Probe(exe string) Isolation {
	f, _ := probes.LoadOrStore(exe, sync.OnceValue(func() Isolation { return runProbe(exe) }))
	return f.(func() Isolation)()
}

func runProbe(exe string) Isolation {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, IsolateCommand, "--probe")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = namespaced(nil)
	err := cmd.Run()
	if err == nil && strings.TrimSpace(out.String()) == "ok" {
		return Isolation{Hermetic: true}
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		// The kernel refused the namespaces.
		why := "this system does not let an unprivileged process create a user and network namespace (" + err.Error() + ")"
		for _, k := range []string{"/proc/sys/kernel/unprivileged_userns_clone", "/proc/sys/user/max_user_namespaces"} {
			if b, err := os.ReadFile(k); err == nil && strings.TrimSpace(string(b)) == "0" {
				why += fmt.Sprintf("; %s is 0", strings.ReplaceAll(strings.TrimPrefix(k, "/proc/sys/"), "/", "."))
			}
		}
		return Isolation{Reason: why + ": a call that ignores HTTP_PROXY is not seen"}
	}
	msg := strings.TrimSpace(out.String())
	if err != nil {
		msg = strings.TrimSpace(err.Error() + ": " + msg)
	}
	return Isolation{Reason: "the namespace helper failed (" + clip(msg) + "): a call that ignores HTTP_PROXY is not seen"}
}
