package external

// The helper's side of the jail, inside the namespaces: the loopback, the
// name lookups it answers, and the program it starts.

import (
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

	"golang.org/x/net/dns/dnsmessage"
	"golang.org/x/sys/unix"
)

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
