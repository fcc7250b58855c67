package external

import (
	"context"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
)

// A service in a jail listens on the loopback of its own network
// namespace, which testbed's connections cannot reach. So the helper
// dials for testbed: testbed sends it an address over a socket pair it
// inherits (fd 5), the helper connects to it inside the namespace and
// sends the connected socket back, and testbed's HTTP client speaks over
// that socket itself, with nothing copied between.

// dialTimeout bounds one connection the helper makes inside.
const dialTimeout = time.Second

// newDialPair makes the socket pair of the helper's dials: testbed's end,
// connected, and the helper's, to pass on.
func newDialPair() (*net.UnixConn, *os.File, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	mine := os.NewFile(uintptr(fds[0]), "dials")
	defer mine.Close()
	c, err := net.FileConn(mine)
	if err != nil {
		syscall.Close(fds[1])
		return nil, nil, err
	}
	return c.(*net.UnixConn), os.NewFile(uintptr(fds[1]), "dials"), nil
}

// dial connects to addr inside the jail's namespace, through the helper:
// one dial at a time. It fails once the program (and so its helper) has
// exited.
func (j *jail) dial(ctx context.Context, addr string) (net.Conn, error) {
	j.dialing.Lock()
	defer j.dialing.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The helper answers within dialTimeout; an answer later than this
	// would be taken for the next dial's, so the pair is closed then.
	j.dials.SetDeadline(time.Now().Add(dialTimeout + 2*time.Second))
	buf, oob := make([]byte, 512), make([]byte, syscall.CmsgSpace(4))
	_, err := j.dials.Write([]byte(addr))
	n, oobn := 0, 0
	if err == nil {
		n, oobn, _, _, err = j.dials.ReadMsgUnix(buf, oob)
	}
	if err != nil {
		j.dials.Close()
		return nil, fmt.Errorf("dial %s in the agent's network namespace: %w", addr, err)
	}
	if n == 0 || buf[0] != '+' {
		if n > 0 {
			n-- // the reason after '-'
			buf = buf[1:]
		}
		return nil, fmt.Errorf("dial %s in the agent's network namespace: %s", addr, buf[:n])
	}
	f, err := sentFile(oob[:oobn], "a connection in the agent's network namespace")
	if err != nil {
		return nil, fmt.Errorf("dial %s in the agent's network namespace: the helper sent no connection (%v)", addr, err)
	}
	defer f.Close()
	return net.FileConn(f)
}

// serveDials connects, inside the namespace, to each address testbed
// sends on sock (one a packet), and answers with the connected socket
// ("+" and the descriptor) or why not ("-" and the error), until testbed
// closes its end.
func serveDials(sock *os.File) {
	defer sock.Close()
	c, err := net.FileConn(sock)
	if err != nil {
		return
	}
	defer c.Close()
	uc := c.(*net.UnixConn)
	buf := make([]byte, 512)
	for {
		n, err := uc.Read(buf)
		if err != nil {
			return
		}
		if err := answerDial(uc, string(buf[:n])); err != nil {
			return
		}
	}
}

// answerDial dials addr and sends testbed the outcome on uc.
func answerDial(uc *net.UnixConn, addr string) error {
	conn, err := net.DialTimeout("tcp", addr, dialTimeout)
	if err != nil {
		_, werr := uc.Write([]byte("-" + err.Error()))
		return werr
	}
	defer conn.Close()
	f, err := conn.(*net.TCPConn).File()
	if err != nil {
		_, werr := uc.Write([]byte("-" + err.Error()))
		return werr
	}
	defer f.Close()
	_, _, err = uc.WriteMsgUnix([]byte{'+'}, syscall.UnixRights(int(f.Fd())), nil)
	return err
}
