package external

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// process is the running program.
type process struct {
	argv    []string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan string   // stdout, line by line, for a program speaking JSON lines; closed at EOF
	output  *capped       // stderr (and a service's stdout)
	label   string        // what output holds, for errors
	logged  atomic.Bool   // stdout had lines that were no reply, kept in output
	service bool          // a service, which stdin's end does not stop
	raw     io.ReadCloser // stdout's JSON lines as they come (jsonOnly), for a stdio MCP server; nil otherwise
	done    chan struct{} // closed when the program has exited
	quit    chan struct{} // closed when the driver stops reading
	err     error         // its exit, once done
	once    sync.Once
	jail    *jail   // nil when the program runs on the machine's network
	keeper  *keeper // nil when the program has no keeper (keep)
}

// keeper is testbed's side of a program's keeper (keep): the pipe whose
// write end, life, testbed holds for as long as the program may run, and
// the read end the keeper inherits, end, which testbed closes once the
// keeper has started.
type keeper struct{ life, end *os.File }

// started closes testbed's copy of the keeper's end.
func (k *keeper) started() {
	if k != nil {
		k.end.Close()
	}
}

// release tells the keeper to end the program and everything it started.
func (k *keeper) release() {
	if k != nil {
		k.life.Close()
	}
}

// stdoutUse is what testbed does with a program's stdout.
type stdoutUse int

const (
	stdoutLines  stdoutUse = iota // JSON lines, read line by line
	stdoutOutput                  // a service's: kept with its stderr
	stdoutRaw                     // a stdio MCP server's: read as it comes (process.raw)
)

// start starts argv in dir with env, in j when not nil (closed when the
// program has exited), else contained (contain, with helper as its
// keeper where it needs one); the program is killed when ctx ends. use
// says what becomes of its stdout.
func start(ctx context.Context, argv []string, dir string, env []string, use stdoutUse, j *jail, helper string) (*process, error) {
	name := argv[0]
	if strings.Contains(name, "/") && !filepath.IsAbs(name) {
		// A path relative to dir, made absolute: joined alone it would be
		// looked up on PATH ("./agent" in ".") or taken relative to dir
		// twice (a root given relative).
		abs, err := filepath.Abs(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		name = abs
	}
	cmd := exec.Command(name, argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	var k *keeper
	if j != nil && cmd.Err == nil {
		// Its own user, network and PID namespaces (see isolate): nothing
		// it starts outlives it, and only the proxy is reachable.
		j.wrap(cmd)
	} else {
		k = contain(cmd, helper)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	p := &process{argv: argv, cmd: cmd, stdin: stdin, lines: make(chan string, 1), output: &capped{max: 64 << 10}, label: "stderr",
		done: make(chan struct{}), quit: make(chan struct{}), jail: j, keeper: k}
	cmd.Stderr = p.output
	// Not cmd.StdoutPipe: Wait closes that as soon as the program exits,
	// which loses what it wrote last and was not read yet (a long final
	// reply, cut at a pipe buffer's size).
	var stdout, out *os.File
	if use == stdoutOutput {
		cmd.Stdout, p.label, p.service = p.output, "output", true
		close(p.lines)
	} else {
		if stdout, out, err = os.Pipe(); err != nil {
			return nil, err
		}
		cmd.Stdout = out
	}
	err = cmd.Start()
	if out != nil {
		out.Close() // the program holds its own copy
	}
	if j != nil {
		j.started()
	}
	k.started()
	if err != nil {
		k.release()
		if stdout != nil {
			stdout.Close()
		}
		return nil, fmt.Errorf("the agent did not start: %w (command %q in %s)", err, argv, dir)
	}
	switch {
	case use == stdoutRaw:
		p.raw = &jsonOnly{r: bufio.NewReaderSize(stdout, 64<<10), c: stdout, log: p.log}
		close(p.lines)
	case stdout != nil:
		go p.read(stdout)
	}
	go func() {
		p.err = cmd.Wait()
		if j != nil {
			j.close()
		}
		k.release()
		close(p.done)
	}()
	go func() {
		select {
		case <-ctx.Done():
			p.kill()
		case <-p.done:
		}
	}()
	return p, nil
}

// read passes the program's stdout on, line by line. A line that does not
// open a JSON object (a library logging to stdout, a blank line) is no
// reply: it is kept with stderr, for errors (as is a JSON log record, see
// logRecord).
func (p *process) read(stdout *os.File) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	defer close(p.lines)
	defer stdout.Close()
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(strings.TrimSpace(line), "{") {
			if strings.TrimSpace(line) != "" {
				p.log(line)
			}
			continue
		}
		select {
		case p.lines <- line:
		case <-p.quit:
			return // nobody reads on; the program is being stopped
		}
	}
}

// jsonOnly is a stdio MCP server's stdout with the lines that are not
// JSON messages (a banner a library prints, a stray console.log) taken
// out and logged: the transport reads newline-delimited JSON-RPC, and, as
// the MCP SDKs' own stdio clients do, one such line does not end the
// session.
type jsonOnly struct {
	r    *bufio.Reader
	c    io.Closer
	log  func(string)
	line []byte // the rest of the JSON line being read
}

func (j *jsonOnly) Read(p []byte) (int, error) {
	for len(j.line) == 0 {
		line, err := j.r.ReadBytes('\n')
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '{' && t[0] != '[' {
			j.log(string(t))
			line = nil
		}
		j.line = line
		if err != nil && len(j.line) == 0 {
			return 0, err
		}
		if err != nil {
			break // the last line, without its newline
		}
	}
	n := copy(p, j.line)
	j.line = j.line[n:]
	return n, nil
}

func (j *jsonOnly) Close() error { return j.c.Close() }

// log keeps a line of the program's stdout that is no reply with its
// stderr, for errors.
func (p *process) log(line string) {
	p.logged.Store(true)
	p.output.Write([]byte(line + "\n"))
}

// exited reports whether the program has exited.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// gone describes the program's early exit.
func (p *process) gone(when string, werr error) error {
	p.awaitExit(time.Second)
	status := "it closed its output"
	if p.err != nil {
		status = p.err.Error()
	} else if werr != nil {
		status = werr.Error()
	}
	return fmt.Errorf("the agent exited %s (%s)%s", when, status, p.tail())
}

// awaitExit waits up to d for the program to exit; once it has, what it
// wrote to stderr is all in its output.
func (p *process) awaitExit(d time.Duration) {
	select {
	case <-p.done:
	case <-time.After(d):
	}
}

// finish closes stdin and waits a second for the program to exit.
func (p *process) finish() error {
	p.stdin.Close()
	select {
	case <-p.done:
		var exit *exec.ExitError
		if errors.As(p.err, &exit) {
			return fmt.Errorf("the agent exited with %s after its last reply%s", exit, p.tail())
		}
		return nil
	case <-time.After(time.Second):
		p.kill()
		return nil
	}
}

// stop ends the program and its children, whatever state it is in: stdin
// is closed (a service's group is sent SIGTERM), and the process group
// killed if it has not exited a second later.
func (p *process) stop() {
	p.once.Do(func() { close(p.quit) })
	p.stdin.Close()
	if p.service {
		p.terminate()
	}
	select {
	case <-p.done:
	case <-time.After(time.Second):
		p.kill()
		<-p.done
	}
	if p.raw != nil {
		p.raw.Close() // the MCP session, if one opened, has closed it already
	}
}

// tail is the end of what the program wrote to stderr (and the lines of
// its stdout that were no reply), for errors.
func (p *process) tail() string {
	if s := strings.TrimSpace(p.output.String()); s != "" {
		label := p.label
		if p.logged.Load() {
			label = "output"
		}
		return fmt.Sprintf("; its %s ends: %s", label, clip(s))
	}
	return ""
}

// beforeOutput, when set, is called before each write of a program's
// output is kept (specs slow the copying of stderr down).
var beforeOutput func()

// afterDial, when set, is called each time waitPort has connected to a
// port, before it asks who listens there (specs close a listener in
// between).
var afterDial func(port int)

// afterTable, when set, is called each time listener has read which
// sockets listen on a port, before it looks for their holder (specs close
// a listener in between).
var afterTable func(port int)

// waitPort waits until addr accepts connections, the program exits, or
// timeout passes. A port that another process took before the program
// listened on it (it accepts connections, but not the program's, or the
// program could not bind it) is a *portTaken. A program in a jail is
// reached through its helper, in a namespace where only it listens.
func (p *process) waitPort(ctx context.Context, addr string, timeout time.Duration) error {
	_, ps, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(ps)
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if p.jail != nil {
			// In its own network namespace, where nothing else listens.
			if c, err := p.jail.dial(ctx, addr); err == nil {
				c.Close()
				return nil
			}
		} else if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			if afterDial != nil {
				afterDial(port)
			}
			switch ours, who := p.listener(port); {
			case ours:
				return nil
			case who != "":
				return &portTaken{port: port, by: who}
			}
			// Nothing listens any more: what accepted was not the program.
		}
		select {
		case <-p.done:
			if p.jail == nil {
				if _, who := p.listener(port); who != "" || inUse(port) || addrInUse(p.output.String()) {
					return &portTaken{port: port, by: cmp.Or(who, "another process")}
				}
			}
			status := "exit status 0"
			if p.err != nil {
				status = p.err.Error()
			}
			return fmt.Errorf("the agent's service exited before it listened on %s (%s; command %q)%s", addr, status, p.argv, p.tail())
		case <-deadline.C:
			return fmt.Errorf("the agent's service did not listen on %s within %s (command %q)%s", addr, timeout, p.argv, p.tail())
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// clip keeps the last 300 bytes of s, for an error, widened to the start
// of the word it would cut: the detector that runs on errors sees a key
// only whole, so a key cut in half would be left in the clear. A word too
// long to keep whole (over 512 bytes) is left out instead.
func clip(s string) string {
	const n, longest = 300, 512
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	j := i
	for j > 0 && i-j < longest && wordByte(s[j-1]) {
		j--
	}
	if j > 0 && wordByte(s[j-1]) {
		for j = i; j < len(s) && wordByte(s[j]); j++ {
		}
	}
	return "…" + s[j:]
}

// wordByte reports whether b may be part of a key or token: letters,
// digits and the punctuation of base64, JWTs and key prefixes.
func wordByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || strings.IndexByte("-_+/=.", b) >= 0
}

// capped keeps the last max bytes written to it.
type capped struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (c *capped) Write(b []byte) (int, error) {
	if beforeOutput != nil {
		beforeOutput()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(b)
	if extra := c.buf.Len() - c.max; extra > 0 {
		c.buf.Next(extra)
	}
	return len(b), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}
