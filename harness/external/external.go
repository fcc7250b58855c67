// Package external runs an agent that is not built into testbed: any
// program, in any language, that reaches its model and upstreams through a
// loopback proxy session (package proxy) by base URL. The program is one of:
//
//   - a command that speaks JSON lines on stdin and stdout (the default);
//   - a web service (HTTP): each user turn is POSTed to it, and the
//     response (JSON, text, or a server-sent event stream) is the reply;
//   - a streamable-HTTP MCP server (MCP): each user turn is a call of one
//     tool, and the tool's result is the reply.
//
// The contract, for the program:
//
//   - It is started once per scenario run (or, with Spec.KeepAlive, once per
//     variant, serving its runs one at a time; with Spec.RunEnv too, for
//     any runs the runner gives it, learning each run's variant from the
//     "env" of the run's first line, as below), in the suite's dir, with the
//     environment the suite gives plus OPENAI_BASE_URL (or GEMINI_BASE_URL
//     and GOOGLE_GEMINI_BASE_URL), a placeholder OPENAI_API_KEY or
//     GEMINI_API_KEY, one <NAME>_BASE_URL per upstream (or the variable the
//     suite names), TESTBED_PROVIDER and TESTBED_MODEL (the model the
//     variant asks for), TESTBED_API (when the variant names the OpenAI
//     API to speak: chat or responses), TESTBED_MODEL_URL (the model's logical base URL,
//     as cassettes record it), TESTBED_NOW (the scenario's clock at the start, RFC
//     3339: use it for "today"), TESTBED_CLOCK_URL (GET it for the
//     scenario's clock now, which replayed calls advance by their recorded
//     durations: use it to time steps; each answer given whole also says it,
//     in proxy.ClockHeader), TESTBED_VARIANT (the variant's
//     config block as JSON) and, when the variant's endpoint says
//     stream: true, TESTBED_STREAM=true (stream the model calls). With
//     Spec.FakeClock, libfaketime is preloaded so that its wall clock starts
//     at the scenario's clock (Linux; not a Go program, which is refused). A service
//     also gets PORT, a free port of 127.0.0.1 to listen on ({{port}} in its
//     command and url), and is waited for until it listens there.
//   - A command gets the scenario's user turns on stdin, one JSON line each:
//     {"turn": 0, "turns": 2, "input": "…", "session": "…", "attachments":
//     [{"name", "mime", "description", "data" (base64)}]} (attachments on
//     the first turn only; with Spec.RunEnv the first turn also has "env":
//     the variables above as they would be for this run, but for the
//     suite's env: and the fake clock's, which take the place of those the
//     program started with for this run, TESTBED_API and TESTBED_STREAM
//     given empty when the run has none), each once the previous one is answered; or all
//     at once when the suite says all_turns: true, for a program that reads
//     every turn first: it then POSTs to TESTBED_TURN_URL?n=<turn> as it
//     starts each, so its calls are counted to the right turn.
//   - It answers each turn, in order, with one JSON line on stdout:
//     {"text": "…", "data": {…}}, and may add "notes" ([{"key": "route",
//     "value": {"mode", "tool"}}, …]) and "tools" ([{"name", "args", "raw",
//     "context", "error"}]) to report what HTTP does not show; a tool whose
//     raw payload is an upstream answer's body, byte for byte, may name
//     that answer by its ExchangeHeader in "raw_from" instead of giving
//     "raw" (a line a megabyte shorter for a big answer). A service
//     may put the same notes and tools in its JSON reply, an MCP server in
//     the tool result's _meta (MetaNotes, MetaTools). Anything a program
//     writes to stderr is kept for the report.
//   - stdin is closed after the last turn; the program should then exit.
//     It is killed, with its process group, if it has not within a second.
//     A service, or a kept program, is stopped the same way when its run
//     (or the whole run, Pool.Close) ends.
//
// What testbed scores, it reads from traffic: every model call (tokens by
// part, tool calls) from the requests and responses through the session,
// in any of the wire formats the stand-in speaks (OpenAI Chat Completions
// and Responses, Gemini generateContent, Anthropic Messages),
// and, unless the program reports its own, each tool call the model asked
// for with the upstream bytes fetched for it and the tool result the
// program sent back to the model.
package external

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/proxy"
)

// Spec is how a suite describes an agent outside testbed.
type Spec struct {
	// Command is the argv; the first is looked up in PATH, or relative to
	// Dir. {{port}} in an argument is the service's PORT.
	Command []string
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
	// HTTP or MCP, when set, make the program a service that testbed
	// starts with a free PORT and reaches that way, rather than a command
	// speaking JSON lines.
	HTTP *HTTP
	MCP  *MCP
	// StartTimeout bounds how long a service may take to listen on its
	// port (default DefaultStartTimeout).
	StartTimeout time.Duration
	// KeepAlive keeps one program per variant for all of its scenario runs
	// (in Pool, which is then required), instead of one per run.
	KeepAlive bool
	// RunEnv, with KeepAlive, makes one program serve the runs of any
	// variant that the runner gives the same agents.Config.KeptBy
	// (keep_alive: agent): each run's first line carries, in "env", the
	// variables testbed would have started the program with for that run.
	// Only for a command speaking JSON lines.
	RunEnv bool
	Pool   *Pool
	// FakeClock preloads libfaketime into the program (Linux), so that a
	// dynamically linked program reading the system clock (C, Python,
	// Node, Ruby, the JVM; not Go) sees the scenario's clock at its start,
	// running on in real time from there.
	FakeClock bool
	// MaxRequestBody bounds each request body the program sends through
	// the proxy (0: proxy.DefaultMaxBody); a larger one is refused with 413
	// and fails the run.
	MaxRequestBody int64
	// Isolate is the program that serves IsolateCommand (IsolateMain):
	// testbed itself. When set, on Linux, the program runs in a user and
	// network namespace of its own where only the proxy is reachable;
	// empty, or where the system does not allow it, the program shares
	// the machine's network, kept to the proxy only by HTTP_PROXY. Either
	// way the run notes which (agents.NoteIsolation).
	Isolate string
	// HostNetwork keeps the program on the machine's network whatever
	// Isolate says, as the suite asks (network: host).
	HostNetwork bool
}

// ErrEscaped is matched (errors.Is) by the error of a scenario whose agent
// called a host directly, not through the base URLs it was given.
var ErrEscaped = proxy.ErrEscaped

// Default bounds of a turn and of a service's start.
const (
	DefaultTurnTimeout  = 60 * time.Second
	DefaultStartTimeout = 30 * time.Second
)

// New returns the constructor of the agent spec describes, run from root.
func New(spec Spec, root string) agents.Constructor {
	return func(cfg agents.Config) (agents.Agent, error) {
		if len(spec.Command) == 0 {
			return nil, errors.New("external agent: no command")
		}
		a := &agent{spec: spec, root: root, cfg: cfg}
		var err error
		switch {
		case spec.HTTP != nil:
			a.reply, err = compileReply(spec.HTTP.Reply)
		case spec.MCP != nil:
			a.reply, err = compileReply(spec.MCP.Reply)
		}
		if err != nil {
			return nil, fmt.Errorf("external agent: %w", err)
		}
		return a, nil
	}
}

// proxyKind is what the proxy the agents outside testbed reach their
// cassettes through is held as (agents.Hold).
const proxyKind = "external/proxy"

// proxy is the proxy a run goes through: a kept program's pool's, which
// lives as long as its programs; else the run's, held in its agents.Cache,
// started by the first scenario run that needs it and closed by the runner
// when the run ends (without a cache, the scenario run's own).
func (a *agent) proxy() (*proxy.Proxy, func(), error) {
	if a.spec.KeepAlive {
		return a.spec.Pool.proxy()
	}
	return agents.Hold(a.cfg.Cache, proxyKind, proxy.Start)
}

type agent struct {
	spec   Spec
	root   string
	cfg    agents.Config
	reply  *replyPath
	timing agents.Timing // of the last Run
}

// Timing implements agents.Timed: where the wall time of the last Run went.
func (a *agent) Timing() agents.Timing { return a.timing }

// Run starts the program (or takes the variant's kept one), hands it the
// turns and reads its replies.
func (a *agent) Run(ctx context.Context, in agents.Input) (ans agents.Answer, err error) {
	if a.spec.KeepAlive && a.spec.Pool == nil {
		return ans, errors.New("external agent: keep_alive needs a Pool")
	}
	if a.spec.RunEnv && (!a.spec.KeepAlive || !a.lines()) {
		return ans, errors.New("external agent: a run's environment travels in its first line only to a kept-alive command speaking JSON lines")
	}
	if err := a.sendsAttachments(in); err != nil {
		return ans, err
	}
	p, release, err := a.proxy()
	if err != nil {
		return ans, err
	}
	defer release()
	obs := newObserver(a.cfg)
	// Where the wall time goes: starting the program (until its first
	// call or reply), the proxy's session answering its calls, the rest.
	began := time.Now()
	var launched time.Time // zero when a kept program was reused
	var replied time.Time
	defer func() {
		first, busy := obs.wall()
		a.timing = agents.Timing{Total: time.Since(began), Calls: busy}
		if !launched.IsZero() {
			alive := replied
			if !first.IsZero() && (alive.IsZero() || first.Before(alive)) {
				alive = first
			}
			if !alive.IsZero() {
				a.timing.Start = alive.Sub(launched)
			}
		}
	}()
	s := proxy.Session{Transport: obs, Upstreams: a.cfg.Upstreams, Clock: a.cfg.Clock, Embeddings: a.spec.Embeddings, Key: a.realKey(),
		Turn: obs.turn, MaxBody: a.spec.MaxRequestBody}
	s.SetModel(a.cfg.Endpoint)
	id, base := p.Open(s)
	ended := false
	lookedUp := func() error { return nil }
	end := func() error {
		if ended {
			return nil
		}
		ended = true
		err := p.End(id)
		if !errors.Is(err, proxy.ErrEscaped) && !errors.Is(err, proxy.ErrTooLarge) {
			// Misses and transport errors reached the run through the cassette.
			err = nil
		}
		return errors.Join(lookedUp(), err)
	}
	defer end()

	var prog *program
	if a.spec.KeepAlive {
		var release func(failed bool)
		if prog, release, err = a.spec.Pool.acquire(ctx, p, id, a.key(), func(base string) (*program, error) {
			// The program outlives this run: only the pool ends it.
			launched = time.Now()
			return a.launch(ctx, context.WithoutCancel(ctx), p, base)
		}); err != nil {
			return ans, err
		}
		defer func() { release(err != nil) }()
	} else {
		launched = time.Now()
		if prog, err = a.launch(ctx, ctx, p, base); err != nil {
			return ans, err
		}
		defer prog.proc.stop()
	}
	a.cfg.Tracer.Note(agents.NoteTurn, 0)
	a.cfg.Tracer.Note(agents.NoteIsolation, prog.iso.String())
	if j := prog.proc.jail; j != nil {
		// A name the program looked up is this run's escape: during the
		// run, and before it, as the program started (before it listened
		// or read the run's first line) or while a kept one waited for it.
		lookedUp = func() error { return j.names.claim(a.cfg.Endpoint) }
		// It fails as soon as it looks one up: no turn waits for it then.
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		stop := make(chan struct{})
		defer cancel(nil)
		defer close(stop)
		go j.names.watch(stop, func() { cancel(errLookedUp) })
	}
	conv, err := a.converse(ctx, prog, in)
	if err != nil && context.Cause(ctx) == errLookedUp {
		return ans, causedBy(end(), errLookedUp)
	}
	if err != nil {
		return ans, err
	}

	selfReported := false
	for i := range in.Turns {
		if !a.spec.AllTurns {
			a.cfg.Tracer.Note(agents.NoteTurn, i)
		}
		out, err := conv.ask(ctx, i)
		if replied.IsZero() {
			replied = time.Now()
		}
		if err != nil && context.Cause(ctx) == errLookedUp {
			err = errLookedUp
		}
		if err != nil {
			conv.end()
			cause := end()
			if cause == nil && prog.iso.Hermetic && errors.Is(err, errNoAnswer) {
				err = fmt.Errorf("%w; it runs in a network namespace where only testbed's proxy is reachable, so a call it made to any other address failed at once (look for \"network is unreachable\" in what it wrote)", err)
			}
			return ans, causedBy(cause, fmt.Errorf("turn %d: %w", i+1, err))
		}
		// A stream the program read last is traffic of this turn: it is read
		// as such before the next turn starts (it ends in the proxy a little
		// after the program has it all).
		obs.settled(ctx)
		// What the reply reports belongs to its turn, whenever it arrives.
		a.cfg.Tracer.Note(agents.NoteTurn, i)
		calls := obs.flush(!selfReported && out.Tools == nil)
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
			// What the report leaves out is what the traffic says of the
			// model's call of that tool.
			var raw []byte
			var context string
			call := calls.take(t.Name)
			switch {
			case t.RawFrom != "":
				var ok bool
				if raw, ok = obs.answer(t.RawFrom); !ok {
					conv.end()
					return ans, causedBy(end(), fmt.Errorf("turn %d: tool %s: raw_from %q names no upstream answer of this run: give the %s of an answer it read whole, or its bytes in raw", i+1, t.Name, t.RawFrom, ExchangeHeader))
				}
			case t.Raw != nil:
				raw = []byte(*t.Raw)
			case call != nil && call.answered:
				raw = call.payload()
			}
			switch {
			case t.Context != nil:
				context = *t.Context
			case call != nil:
				context = call.result
			}
			id := ""
			if call != nil {
				id = call.call.ID
			}
			agents.ReportTool(a.cfg.Tracer, id, t.Name, t.Args, raw, context, terr)
		}
		reply := agents.Reply{Text: *out.Text}
		if len(out.Data) > 0 && string(out.Data) != "null" {
			var data any
			if err := json.Unmarshal(out.Data, &data); err != nil {
				conv.end()
				return ans, fmt.Errorf("turn %d: data: %w", i+1, err)
			}
			reply.Data = data
		}
		ans.Replies = append(ans.Replies, reply)
	}
	obs.flush(!selfReported)
	if err := conv.end(); err != nil {
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

// UpstreamVar is the variable that carries the base URL of the upstream
// name: the one named in overrides (a suite's upstreams: {name: {env}}),
// else <NAME>_BASE_URL.
func UpstreamVar(name string, overrides map[string]string) string {
	if k := overrides[name]; k != "" {
		return k
	}
	return strings.ToUpper(strings.ReplaceAll(name, "-", "_")) + "_BASE_URL"
}

// key names the program a kept run is served by: the run's configuration
// as the program sees it when it starts, and the runs it serves in order
// (agents.Config.KeptBy). A program that learns each run's variant from
// the run's first line (Spec.RunEnv) serves every variant.
func (a *agent) key() string {
	conf := []any{a.spec.Command, a.spec.Dir, a.spec.HTTP, a.spec.MCP, a.cfg.Upstreams, a.cfg.KeptBy}
	if !a.spec.RunEnv {
		conf = append(conf, a.cfg.Endpoint, a.cfg.Variant)
	}
	b, _ := json.Marshal(conf)
	return string(b)
}
