package external

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/net/dns/dnsmessage"
	"golang.org/x/sys/unix"

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

// IsolateMain serves IsolateCommand, inside the namespaces: it brings up
// the loopback, listens on 127.0.0.1:<port> and hands the listener to
// testbed over the socket it inherits as fd 4 (whose proxy serves it),
// answers every name lookup "no such host" after telling testbed (fd 3),
// dials for testbed inside the namespace (fd 5, serveDials: a service's
// port), then runs the program (the arguments after --: its path, then its argv)
// with its own stdin, stdout and stderr, and exits as it did. With
// --probe it only checks that it can do so, and prints ok.
func IsolateMain(args []string) int {
	fs := flag.NewFlagSet(IsolateCommand, flag.ContinueOnError)
	port := fs.String("port", "", "the proxy's port")
	check := fs.Bool("probe", false, "only check that isolation works")
	kept := fs.Bool(strings.TrimPrefix(keepFlag, "--"), false, "keep the program instead (keep)")
	if err := fs.Parse(args); err != nil {
		return 125
	}
	if *kept {
		return keepMain(fs.Args())
	}
	fail := helperFail
	if err := loopbackUp(); err != nil {
		return fail(err)
	}
	var report, hand *os.File
	if !*check {
		for fd := 3; fd <= 5; fd++ {
			syscall.CloseOnExec(fd)
		}
		report, hand = os.NewFile(3, "lookups"), os.NewFile(4, "handover")
		go serveDials(os.NewFile(5, "dials"))
	}
	if err := serveDNS(report); err != nil {
		return fail(err)
	}
	if *check {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fail(err)
		}
		ln.Close()
		fmt.Println("ok")
		return 0
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", *port))
	if err != nil {
		return fail(err)
	}
	if err := handOver(ln.(*net.TCPListener), hand); err != nil {
		return fail(fmt.Errorf("hand the proxy's port to testbed: %w", err))
	}
	rest := fs.Args()
	if len(rest) < 2 {
		return fail(errNoProgram)
	}
	cmd := &exec.Cmd{Path: rest[0], Args: rest[1:], Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}} // the agent ends with its helper
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	return exitAs(cmd.Wait())
}

// errNoProgram is a helper's error when it is given no program to run.
var errNoProgram = errors.New("no program to run")

// helperFail says why the helper could not do its part, and returns its
// exit status.
func helperFail(err error) int {
	fmt.Fprintf(os.Stderr, "testbed: isolate the agent: %v\n", err)
	return 125
}

// exitAs is the helper's exit status when the program it ran ended with
// err: the program's own, or, when a signal killed it, the helper ends by
// the same signal, so that testbed reports the signal.
func exitAs(err error) int {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			signal.Reset(ws.Signal())
			syscall.Kill(os.Getpid(), ws.Signal())
			return 128 + int(ws.Signal())
		}
		return exit.ExitCode()
	}
	if err != nil {
		return helperFail(err)
	}
	return 0
}

// loopbackUp brings up lo, the only interface of a new network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("bring up lo: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring up lo: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP | unix.IFF_RUNNING)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring up lo: %w", err)
	}
	return nil
}

// addLoopback gives lo one more IPv4 address, alone in its /32, so that a
// name server the system names elsewhere is answered inside.
func addLoopback(n int, ip net.IP) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo:" + strconv.Itoa(n))
	if err != nil {
		return err
	}
	if err := ifr.SetInet4Addr(ip.To4()); err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFADDR, ifr); err != nil {
		return fmt.Errorf("add %s to lo: %w", ip, err)
	}
	if err := ifr.SetInet4Addr(net.IPv4bcast.To4()); err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFNETMASK, ifr); err != nil {
		return fmt.Errorf("add %s/32 to lo: %w", ip, err)
	}
	return nil
}

// serveDNS answers, on every IPv4 name server of /etc/resolv.conf (UDP),
// each query "no such host", telling report the name first. A name
// server on IPv6 is left unreachable: the lookup fails at once.
func serveDNS(report *os.File) error {
	data, _ := os.ReadFile("/etc/resolv.conf")
	hostname, _ := os.Hostname()
	var mu sync.Mutex
	tell := func(name string) {
		if report == nil || ignoredLookup(name, hostname) {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if _, err := io.WriteString(report, strings.TrimSuffix(name, ".")+"\n"); err == nil {
			var ack [1]byte
			report.Read(ack[:])
		}
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "nameserver" {
			continue
		}
		ip := net.ParseIP(f[1])
		if ip == nil || ip.To4() == nil {
			continue
		}
		if !ip.IsLoopback() {
			n++
			if err := addLoopback(n, ip); err != nil {
				return err
			}
		}
		pc, err := net.ListenPacket("udp4", net.JoinHostPort(ip.String(), "53"))
		if err != nil {
			return fmt.Errorf("name server %s: %w", ip, err)
		}
		go answerNX(pc, tell)
	}
	return nil
}

// answerNX answers each query on pc "no such host" (NXDOMAIN).
func answerNX(pc net.PacketConn, tell func(string)) {
	buf := make([]byte, 1500)
	for {
		n, addr, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		var p dnsmessage.Parser
		h, err := p.Start(buf[:n])
		if err != nil {
			continue
		}
		q, err := p.Question()
		if err != nil {
			continue
		}
		tell(q.Name.String())
		b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, OpCode: h.OpCode, RecursionDesired: h.RecursionDesired, RecursionAvailable: true, RCode: dnsmessage.RCodeNameError})
		b.StartQuestions()
		b.Question(q)
		if msg, err := b.Finish(); err == nil {
			pc.WriteTo(msg, addr)
		}
	}
}
