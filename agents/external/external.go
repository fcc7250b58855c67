// Package external runs an agent that is not built into testbed: any
// program, in any language, started as a command that speaks JSON lines on
// stdin and stdout, and that reaches its model and upstreams through a
// loopback proxy session (package proxy) by base URL.
//
// The contract, for the program:
//
//   - It is started once per scenario run, in the suite's dir, with the
//     environment the suite gives plus OPENAI_BASE_URL (or GEMINI_BASE_URL
//     and GOOGLE_GEMINI_BASE_URL, or ANTHROPIC_BASE_URL), a placeholder
//     OPENAI_API_KEY, GEMINI_API_KEY or ANTHROPIC_API_KEY, one
//     <NAME>_BASE_URL per upstream (or the variable the
//     suite names), TESTBED_PROVIDER and TESTBED_MODEL (the model the
//     variant asks for), TESTBED_MODEL_URL (the model's logical base URL,
//     as cassettes record it), TESTBED_NOW (the scenario's clock at the start, RFC
//     3339: use it for "today"), TESTBED_CLOCK_URL (GET it for the
//     scenario's clock now, which replayed calls advance by their recorded
//     durations: use it to time steps), TESTBED_VARIANT (the variant's
//     config block as JSON) and, when the variant's endpoint says
//     stream: true, TESTBED_STREAM=true (stream the model calls).
//   - The scenario's user turns arrive on stdin, one JSON line each:
//     {"turn": 0, "turns": 2, "input": "…", "attachments": [{"name",
//     "mime", "description", "data" (base64)}]} (attachments on the first
//     turn only), each once the previous one is answered; or all at once
//     when the suite says all_turns: true, for a program that reads every
//     turn first: it then POSTs to TESTBED_TURN_URL?n=<turn> as it starts
//     each, so its calls are counted to the right turn.
//   - It answers each turn, in order, with one JSON line on stdout:
//     {"text": "…", "data": {…}}, and may add "notes" ([{"key": "route",
//     "value": {"mode", "tool"}}, …]) and "tools" ([{"name", "args", "raw",
//     "context", "error"}]) to report what HTTP does not show. Anything it
//     writes to stderr is kept for the report.
//   - stdin is closed after the last turn; the program should then exit.
//     It is killed, with its process group, if it has not within a second.
//
// What testbed scores, it reads from traffic: every model call (tokens by
// part, tool calls) from the requests and responses through the session,
// and, unless the program reports its own, each tool call the model asked
// for with the upstream bytes fetched for it and the tool result the
// program sent back to the model.
package external

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/proxy"
)

// Spec is how a suite describes an agent outside testbed.
type Spec struct {
	Command []string          // argv; the first is looked up in PATH, or relative to Dir
	Dir     string            // working folder, relative to the project root
	Env     map[string]string // more environment
	// UpstreamEnv names, per upstream, the variable its base URL goes in
	// (default <NAME>_BASE_URL).
	UpstreamEnv map[string]string
	// Embeddings is the logical base URL of /v1/embeddings, when not the
	// model's.
	Embeddings string
	// AllTurns sends every turn at once, for a program that reads all of a
	// scenario's turns before it answers; it posts to TESTBED_TURN_URL as
	// it starts each. Otherwise each turn is sent once the previous one is
	// answered.
	AllTurns bool
	// TurnTimeout bounds the wall time of one turn (default DefaultTurnTimeout).
	TurnTimeout time.Duration
}

// ErrEscaped is matched (errors.Is) by the error of a scenario whose agent
// called a host directly, not through the base URLs it was given.
var ErrEscaped = proxy.ErrEscaped

// DefaultTurnTimeout is how long a turn may take when the suite does not say.
const DefaultTurnTimeout = 60 * time.Second

// New returns the constructor of the agent spec describes, run from root.
func New(spec Spec, root string) agents.Constructor {
	return func(cfg agents.Config) (agents.Agent, error) {
		if len(spec.Command) == 0 {
			return nil, errors.New("external agent: no command")
		}
		return &agent{spec: spec, root: root, cfg: cfg}, nil
	}
}

// sessions is the proxy every external agent of a process reaches its
// cassette through.
var sessions = sync.OnceValues(proxy.Start)

type agent struct {
	spec Spec
	root string
	cfg  agents.Config
}

// turnIn is one line to the program.
type turnIn struct {
	Turn        int          `json:"turn"`
	Turns       int          `json:"turns"`
	Input       string       `json:"input"`
	Attachments []attachment `json:"attachments,omitempty"`
}

type attachment struct {
	Name        string `json:"name"`
	MIME        string `json:"mime"`
	Description string `json:"description,omitempty"`
	Data        string `json:"data"` // base64
}

// turnOut is one line from the program.
type turnOut struct {
	Text  *string         `json:"text"`
	Data  json.RawMessage `json:"data"`
	Notes []Note          `json:"notes"`
	Tools []toolReport    `json:"tools"`
}

// Note is one fact an outside agent reports with a reply, as a built-in
// agent notes it through agents.Tracer.
type Note struct {
	Key   string `json:"key"`
	Value any    `json:"value"`
}

type toolReport struct {
	Name    string          `json:"name"`
	Args    json.RawMessage `json:"args"`
	Raw     string          `json:"raw"`
	Context string          `json:"context"`
	Error   string          `json:"error"`
}

// Run starts the program, hands it the turns and reads its replies.
func (a *agent) Run(ctx context.Context, in agents.Input) (agents.Answer, error) {
	p, err := sessions()
	if err != nil {
		return agents.Answer{}, err
	}
	obs := newObserver(a.cfg)
	s := proxy.Session{Transport: obs, Upstreams: a.cfg.Upstreams, Clock: a.cfg.Clock, Embeddings: a.spec.Embeddings, Key: a.realKey(),
		Turn: func(n int) { a.cfg.Tracer.Note(agents.NoteTurn, n) }}
	s.SetModel(a.cfg.Endpoint)
	id, base := p.Open(s)
	ended := false
	end := func() error {
		if ended {
			return nil
		}
		ended = true
		if err := p.End(id); errors.Is(err, proxy.ErrEscaped) {
			return err
		}
		// Misses and transport errors reached the run through the cassette.
		return nil
	}
	defer end()

	env, err := a.environment(base, p.ForwardProxy(id))
	if err != nil {
		return agents.Answer{}, err
	}
	proc, err := start(ctx, a.spec, filepath.Join(a.root, a.spec.Dir), env)
	if err != nil {
		return agents.Answer{}, err
	}
	defer proc.stop()

	timeout := a.spec.TurnTimeout
	if timeout <= 0 {
		timeout = DefaultTurnTimeout
	}
	var lines []turnIn
	for i, input := range in.Turns {
		line := turnIn{Turn: i, Turns: len(in.Turns), Input: input}
		if i == 0 {
			for _, at := range in.Attachments {
				line.Attachments = append(line.Attachments, attachment{Name: at.Name, MIME: at.MIME, Description: at.Description, Data: base64.StdEncoding.EncodeToString(at.Data)})
			}
		}
		lines = append(lines, line)
	}
	a.cfg.Tracer.Note(agents.NoteTurn, 0)
	if a.spec.AllTurns {
		go proc.write(lines)
	}
	var ans agents.Answer
	selfReported := false
	for i := range in.Turns {
		if !a.spec.AllTurns {
			a.cfg.Tracer.Note(agents.NoteTurn, i)
			go proc.write(lines[i : i+1])
		}
		out, err := proc.reply(ctx, timeout)
		if err != nil {
			return ans, causedBy(end(), fmt.Errorf("turn %d: %w", i+1, err))
		}
		// What the reply reports belongs to its turn, whenever it arrives.
		a.cfg.Tracer.Note(agents.NoteTurn, i)
		obs.flush(!selfReported && out.Tools == nil)
		for _, n := range out.Notes {
			if n.Key != agents.NoteTurn {
				a.cfg.Tracer.Note(n.Key, n.Value)
			}
		}
		for _, t := range out.Tools {
			selfReported = true
			var terr error
			if t.Error != "" {
				terr = errors.New(t.Error)
			}
			a.cfg.Tracer.Tool(t.Name, t.Args, []byte(t.Raw), t.Context, terr)
		}
		reply := agents.Reply{Text: *out.Text}
		if len(out.Data) > 0 && string(out.Data) != "null" {
			var data any
			if err := json.Unmarshal(out.Data, &data); err != nil {
				return ans, fmt.Errorf("turn %d: data: %w", i+1, err)
			}
			reply.Data = data
		}
		ans.Replies = append(ans.Replies, reply)
	}
	obs.flush(!selfReported)
	if err := proc.finish(); err != nil {
		return ans, causedBy(end(), err)
	}
	return ans, end()
}

// causedBy is err, led by cause when there is one: an agent that failed
// after its call to a host it was not given was refused failed because of it.
func causedBy(cause, err error) error {
	if cause == nil {
		return err
	}
	return fmt.Errorf("%w; then: %v", cause, err)
}

// realKey is the model's key when the run has a real one (a recording
// against a real provider): the proxy sets it on the program's model
// requests, so the program itself only ever holds the placeholder.
func (a *agent) realKey() string {
	if k := a.cfg.Secrets[a.cfg.Endpoint.KeyEnv]; k != cassette.PlaceholderKey {
		return k
	}
	return ""
}

// environment is the program's: a few of the process's own variables (not
// its keys), the suite's, then the session's base URLs.
func (a *agent) environment(base, forward string) ([]string, error) {
	env := map[string]string{}
	for _, k := range []string{"PATH", "HOME", "LANG", "TMPDIR", "SYSTEMROOT", "NODE_PATH"} {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	for k, v := range a.spec.Env {
		env[k] = v
	}
	maps.Copy(env, proxy.ModelEnv(a.cfg.Endpoint, base))
	for name := range a.cfg.Upstreams {
		k := a.spec.UpstreamEnv[name]
		if k == "" {
			k = strings.ToUpper(strings.ReplaceAll(name, "-", "_")) + "_BASE_URL"
		}
		env[k] = base + "/upstream/" + name
	}
	env["TESTBED_PROVIDER"], env["TESTBED_MODEL"], env["TESTBED_MODEL_URL"] = a.cfg.Endpoint.Provider, a.cfg.Endpoint.Model, a.cfg.Endpoint.BaseURL
	if a.cfg.Endpoint.Stream {
		env["TESTBED_STREAM"] = "true"
	}
	// Any host called directly, not through the base URLs above, goes to
	// the proxy, which refuses it and fails the scenario; loopback (the
	// base URLs) goes direct.
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		env[k] = forward
	}
	env["NO_PROXY"], env["no_proxy"] = "127.0.0.1,localhost,::1", "127.0.0.1,localhost,::1"
	env["TESTBED_NOW"] = a.cfg.Clock().Format(time.RFC3339)
	env["TESTBED_CLOCK_URL"] = base + "/clock"
	env["TESTBED_TURN_URL"] = base + "/turn"
	variant, err := json.Marshal(a.cfg.Variant)
	if err != nil {
		return nil, err
	}
	env["TESTBED_VARIANT"] = string(variant)
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out, nil
}

// process is the running program.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string // stdout, line by line; closed at EOF
	stderr *capped
	done   chan struct{} // closed when the program has exited
	quit   chan struct{} // closed when the driver stops reading
	err    error         // its exit, once done
}

func start(ctx context.Context, spec Spec, dir string, env []string) (*process, error) {
	argv := spec.Command
	name := argv[0]
	if strings.Contains(name, "/") && !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	cmd := exec.Command(name, argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	ownGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// Not cmd.StdoutPipe: Wait closes that as soon as the program exits,
	// which loses what it wrote last and was not read yet (a long final
	// reply, cut at a pipe buffer's size).
	stdout, out, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = out
	p := &process{cmd: cmd, stdin: stdin, lines: make(chan string, 1), stderr: &capped{max: 64 << 10}, done: make(chan struct{}), quit: make(chan struct{})}
	cmd.Stderr = p.stderr
	err = cmd.Start()
	out.Close() // the program holds its own copy
	if err != nil {
		stdout.Close()
		return nil, fmt.Errorf("the agent did not start: %w (command %q in %s)", err, argv, dir)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
		defer close(p.lines)
		defer stdout.Close()
		for sc.Scan() {
			select {
			case p.lines <- sc.Text():
			case <-p.quit:
				return // nobody reads on; the program is being stopped
			}
		}
	}()
	go func() {
		p.err = cmd.Wait()
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

// write sends the turns, one JSON line each; a program that exits early
// makes it stop (reply says why).
func (p *process) write(lines []turnIn) {
	for _, in := range lines {
		b, err := json.Marshal(in)
		if err != nil {
			return
		}
		if _, err := p.stdin.Write(append(b, '\n')); err != nil {
			return
		}
	}
}

// reply reads the next reply.
func (p *process) reply(ctx context.Context, timeout time.Duration) (turnOut, error) {
	var out turnOut
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case line, ok := <-p.lines:
		if !ok {
			return out, p.gone("before it answered", nil)
		}
		if err := json.Unmarshal([]byte(line), &out); err != nil || out.Text == nil {
			return out, fmt.Errorf("the agent wrote a line of %d bytes that is not a reply ({\"text\": …} as one JSON line): %q%s", len(line), clip(line), p.stderrTail())
		}
		return out, nil
	case <-timer.C:
		return out, fmt.Errorf("the agent did not answer within %s%s", timeout, p.stderrTail())
	case <-ctx.Done():
		return out, ctx.Err()
	}
}

// gone describes the program's early exit.
func (p *process) gone(when string, werr error) error {
	select {
	case <-p.done:
	case <-time.After(time.Second):
	}
	status := "it closed its output"
	if p.err != nil {
		status = p.err.Error()
	} else if werr != nil {
		status = werr.Error()
	}
	return fmt.Errorf("the agent exited %s (%s)%s", when, status, p.stderrTail())
}

// finish closes stdin and waits a second for the program to exit.
func (p *process) finish() error {
	p.stdin.Close()
	select {
	case <-p.done:
		var exit *exec.ExitError
		if errors.As(p.err, &exit) {
			return fmt.Errorf("the agent exited with %s after its last reply%s", exit, p.stderrTail())
		}
		return nil
	case <-time.After(time.Second):
		p.kill()
		return nil
	}
}

// stop ends the program and its children, whatever state it is in.
func (p *process) stop() {
	close(p.quit)
	p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(time.Second):
		p.kill()
		<-p.done
	}
}

func (p *process) stderrTail() string {
	if s := strings.TrimSpace(p.stderr.String()); s != "" {
		return "; its stderr ends: " + clip(s)
	}
	return ""
}

// clip keeps the end of long text.
func clip(s string) string {
	const n = 300
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// capped keeps the last max bytes written to it.
type capped struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (c *capped) Write(b []byte) (int, error) {
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
