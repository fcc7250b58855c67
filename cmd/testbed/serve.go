package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/odbchat"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/external"
	"github.com/agentreplay/testbed/harness/proxy"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
)

const serveDoc = `Usage: testbed serve odbchat [flags]

Serves ODBchat's router.answer on 127.0.0.1 as a streamable-HTTP MCP server
(endpoint /mcp), as the seed's odbchat_mcp_server does: arguments {query,
debug}; result the envelope {mode, text, source, confidence, raw: {plan,
tool_result, trace}}, with raw.trace only when debug is true. Each call's
result carries, in _meta, the notes and tool calls the agent traced
(testbed/notes, testbed/tools), which a suite's mcp: driver reads. It prints
its URL and serves until Ctrl-C.

Where the model's and GHRSST's answers come from:

  --suite S --variant V   replay the suite's cassettes: a call is answered
                          from the cassette of the scenario whose first user
                          turn it is (the next calls continue a multi-turn
                          scenario; of scenarios with the same first turn,
                          the first not yet served); --scenario ID answers
                          every call from that scenario's cassette instead.
                          A call no scenario has, or a request the cassette
                          lacks, is answered with a tool error saying the
                          cassette is stale and why (never the agent's
                          UNAVAILABLE), and makes the exit 3.
  --record                with --suite: record those cassettes against the
                          loopback stand-ins instead.
  neither                 the base URLs in the environment, when
                          OPENAI_BASE_URL is set (as a suite's command:
                          gets them, or testbed proxy prints them); live
                          otherwise: Ollama at localhost:11434 and the ODB
                          GHRSST API.

The port is --port, else $PORT, else a free one.

Examples:
  testbed serve odbchat --suite odbchat --variant single-pass
  testbed serve odbchat --suite odbchat --variant legacy --scenario ac1-taiwan-sst --port 8765
  testbed serve odbchat            # live, or inside a suite:
      agent: {name: odbchat-mcp, command: [testbed, serve, odbchat], model: …, upstreams: …,
              mcp: {url: "http://127.0.0.1:{{port}}/mcp", tool: router.answer}}`

// cmdServe is 'testbed serve'.
func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != odbchat.Name {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintln(stderr, serveDoc)
			return withCode(exitOK, errSilent)
		}
		return withCode(exitUsage, errors.New("serve what? testbed serve odbchat (see testbed serve --help)"))
	}
	var sel selection
	var record bool
	var port int
	fs := newFlags("serve odbchat", serveDoc, stderr)
	sel.register(fs, "root", "suite", "variant", "scenario")
	fs.BoolVar(&record, "record", false, "record the suite's cassettes against the stand-ins instead of replaying them")
	defPort, _ := strconv.Atoi(os.Getenv("PORT"))
	fs.IntVar(&port, "port", defPort, "port of 127.0.0.1 to listen on (default $PORT, else a free one)")
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	s := &server{root: sel.root, info: odbchat.Info(), stderr: stderr, served: map[string]bool{}, ctx: context.WithoutCancel(ctx)}
	how := ""
	switch {
	case sel.suite != "":
		if sel.variant == "" {
			return withCode(exitUsage, errors.New("give --variant with --suite: the cassettes are the variant's"))
		}
		suites, err := loadSuites(sel)
		if err != nil {
			return err
		}
		if suites[0].Agent != odbchat.Name {
			return withCode(exitUsage, fmt.Errorf("suite %s is not odbchat's (its agent is %s)", suites[0].Name, suites[0].Agent))
		}
		s.suite, s.variant, s.pinned, s.mode = suites[0], variantNamed(suites[0], sel.variant), sel.scenario, cassette.ModeReplay
		if s.variant == nil {
			return withCode(exitUsage, fmt.Errorf("suite %s has no variant %q", s.suite.Name, sel.variant))
		}
		if record {
			s.mode = cassette.ModeRecord
			sis, err := runner.StartStandIns(sel.root, registry(sel.root, suites, nil), true, true)
			if err != nil {
				return withCode(exitInternal, err)
			}
			defer sis.Close()
			s.routes = sis.Routes
		}
		how = fmt.Sprintf("%s of %s's cassettes, variant %s", s.mode, s.suite.Name, sel.variant)
	case record:
		return withCode(exitUsage, errors.New("--record needs --suite and --variant: it records the suite's cassettes"))
	case os.Getenv("OPENAI_BASE_URL") != "":
		s.fromEnv = true
		how = "the base URLs of the environment: " + os.Getenv("OPENAI_BASE_URL")
	default:
		s.mode = cassette.ModeLive
		how = "live: " + s.info.Model.BaseURL + " and " + s.info.Upstreams["ghrsst"]
	}
	if !s.fromEnv {
		p, err := proxy.Start()
		if err != nil {
			return withCode(exitInternal, err)
		}
		defer p.Close()
		s.proxy = p
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("listen on port %d: %w", port, err))
	}
	mcpServer := odbchat.NewMCPServer(s.answer)
	mcpServer.AddReceivingMiddleware(withMeta)
	srv := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpServer }, nil), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	fmt.Fprintf(stdout, "http://%s/mcp\n# odbchat's router.answer over MCP; answers from %s\n# Ctrl-C ends it\n", ln.Addr(), how)
	<-ctx.Done()
	srv.Close()
	return s.close()
}

// variantNamed is suite s's variant name, or nil.
func variantNamed(s *scenario.Suite, name string) *scenario.Variant {
	for i := range s.Variants {
		if s.Variants[i].Name == name {
			return &s.Variants[i]
		}
	}
	return nil
}

// server answers router.answer calls, one at a time.
type server struct {
	ctx     context.Context // the agents are built in; not the calls'
	fromEnv bool            // the agent's base URLs are the environment's
	root    string
	info    agents.Info
	stderr  io.Writer
	proxy   *proxy.Proxy // the server's own, unless it uses the environment's
	mode    cassette.Mode
	routes  map[string]string // the stand-ins, when recording

	suite   *scenario.Suite
	variant *scenario.Variant
	pinned  string // --scenario

	mu       sync.Mutex
	cur      *served
	served   map[string]bool // scenarios answered from, by id
	stale    []string
	unplayed []string
}

// served is the agent for the scenario run calls are answered in.
type served struct {
	sc      *scenario.Scenario // nil without a suite
	next    int                // its next turn
	session string             // on the server's proxy, if any
	tr      *cassette.Session
	agent   *odbchat.Agent
	tracer  *turnTracer
}

// answer is router.answer.
func (s *server) answer(ctx context.Context, query string) (odbchat.Envelope, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, err := s.runFor(query)
	if err != nil {
		s.stale = append(s.stale, err.Error())
		return odbchat.Envelope{}, err
	}
	t := cur.tracer
	t.notes, t.tools, t.stale = map[int][]external.Note{}, map[int][]map[string]any{}, nil
	env, err := cur.agent.Answer(ctx, query)
	cur.next++
	if len(t.stale) > 0 {
		err := fmt.Errorf("stale cassette: no answer, because the agent made a call the cassette lacks: %s", strings.Join(t.stale, "; "))
		s.stale = append(s.stale, err.Error())
		return odbchat.Envelope{}, err
	}
	if err != nil {
		return env, err
	}
	if m, ok := ctx.Value(metaKey{}).(*mcp.Meta); ok {
		*m = mcp.Meta{external.MetaNotes: t.notes[0], external.MetaTools: t.tools[0]}
	}
	if cur.sc != nil && cur.next >= len(cur.sc.Turns) && s.pinned == "" {
		s.end()
	}
	return env, nil
}

// runFor is the scenario run that answers query: the current one, when
// query is its next turn, or a new one.
func (s *server) runFor(query string) (*served, error) {
	if s.cur != nil && (s.suite == nil || s.pinned != "" || s.cur.next < len(s.cur.sc.Turns) && s.cur.sc.Turns[s.cur.next].Input == query) {
		return s.cur, nil
	}
	s.end()
	switch {
	case s.fromEnv:
		return s.start(nil, os.Getenv)
	case s.suite == nil:
		return s.own(nil)
	}
	var sc *scenario.Scenario
	for i := range s.suite.Scenarios {
		c := &s.suite.Scenarios[i]
		switch {
		case s.pinned != "":
			if c.ID == s.pinned {
				sc = c
			}
		case c.Turns[0].Input == query && (sc == nil || s.served[sc.ID] && !s.served[c.ID]):
			sc = c
		}
	}
	if sc == nil {
		return nil, fmt.Errorf("stale cassette: no scenario of suite %s starts with %q; add one to %s and record it (testbed record --suite %s --variant %s --scenario ID), or answer from one with --scenario",
			s.suite.Name, query, s.suite.Path, s.suite.Name, s.variant.Name)
	}
	return s.own(sc)
}

// own opens a session of the server's proxy on sc's cassette (or, live,
// on none) and starts a run on it.
func (s *server) own(sc *scenario.Scenario) (*served, error) {
	ep, config, clock := s.info.Model, map[string]any(nil), time.Now()
	path := ""
	copts := cassette.Options{}
	if sc != nil {
		if s.variant.Endpoint != nil {
			ep = *s.variant.Endpoint
		}
		config, clock = s.variant.Config, s.suite.Clock
		path = cassette.Path(s.root, s.suite.Name, s.variant.Name, sc.ID)
		copts.Match = s.suite.Match
		copts.Rerecord = fmt.Sprintf("testbed record --suite %s --variant %s --scenario %s", s.suite.Name, s.variant.Name, sc.ID)
		d, err := runner.Detector([]*scenario.Suite{s.suite}, runner.KeyValues(nil), runner.KeyVariables(nil))
		if err != nil {
			return nil, err
		}
		copts.Detector = d
		if s.mode == cassette.ModeRecord {
			copts.Real = runner.Router(s.routes, s.mode)
			copts.Provenance = cassette.Provenance{Provider: ep.Provider, Endpoint: ep.BaseURL, Model: ep.Model, StandIn: true, Upstream: "fixtures"}
		}
	} else {
		copts.Real = http.DefaultTransport
	}
	var mu sync.Mutex
	var elapsed time.Duration
	copts.Observe = func(e cassette.Exchange) {
		mu.Lock()
		elapsed += e.Duration
		mu.Unlock()
	}
	tr, err := cassette.Open(s.mode, path, copts)
	if err != nil {
		return nil, fmt.Errorf("stale cassette: %w", err)
	}
	session := sessionFor(s.info, tr)
	session.Model, session.Gemini, session.Ollama = "", "", ""
	switch ep.Provider {
	case llm.ProviderGemini:
		session.Gemini = ep.BaseURL
	case llm.ProviderOllama:
		session.Ollama = ep.BaseURL
	default:
		session.Model = ep.BaseURL
	}
	if sc == nil {
		clock = clock.Truncate(time.Second)
	}
	session.Clock = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return clock.Add(elapsed)
	}
	id, base := s.proxy.Open(session)
	variant, _ := json.Marshal(config)
	env := map[string]string{
		"TESTBED_PROVIDER": ep.Provider, "TESTBED_MODEL": ep.Model, "TESTBED_MODEL_URL": ep.BaseURL,
		"TESTBED_NOW": clock.Format(time.RFC3339), "TESTBED_CLOCK_URL": base + "/clock", "TESTBED_VARIANT": string(variant),
		"OPENAI_BASE_URL": base + "/v1", "GEMINI_BASE_URL": base,
	}
	run, err := s.start(sc, func(k string) string { return env[k] })
	if err != nil {
		s.proxy.End(id)
		return nil, err
	}
	run.session, run.tr = id, tr
	return run, nil
}

// start builds the agent from an outside agent's environment (getenv).
func (s *server) start(sc *scenario.Scenario, getenv func(string) string) (*served, error) {
	cfg, tracer, err := agentConfig(s.ctx, s.info, s.root, getenv, false)
	if err != nil {
		return nil, err
	}
	a, err := odbchat.NewAgent(cfg)
	if err != nil {
		return nil, err
	}
	s.cur = &served{sc: sc, agent: a, tracer: tracer}
	if sc != nil {
		s.served[sc.ID] = true
	}
	return s.cur, nil
}

// end ends the current scenario run: its session (a recording is saved,
// or dropped if the run did not finish), what its replay missed or left
// unplayed.
func (s *server) end() {
	cur := s.cur
	s.cur = nil
	if cur == nil || cur.session == "" {
		return
	}
	if cur.tr.Recording() && cur.sc != nil && cur.next < len(cur.sc.Turns) {
		cur.tr.Abort()
		fmt.Fprintf(s.stderr, "scenario %s: %d of %d turns asked; its recording is dropped\n", cur.sc.ID, cur.next, len(cur.sc.Turns))
	}
	var miss *cassette.MissError
	if err := s.proxy.End(cur.session); err != nil && !errors.As(err, &miss) {
		s.stale = append(s.stale, err.Error())
	}
	if u := cur.tr.Unplayed(); len(u) > 0 && cur.sc != nil {
		s.unplayed = append(s.unplayed, fmt.Sprintf("%s: %s", cur.sc.ID, strings.Join(u, "; ")))
	}
}

// close ends the last run and says how the server's calls went.
func (s *server) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.end()
	switch {
	case len(s.stale) > 0:
		return withCode(exitStale, fmt.Errorf("%d calls were answered as stale: %s", len(s.stale), strings.Join(s.stale, "; ")))
	case len(s.unplayed) > 0:
		return withCode(exitFailed, fmt.Errorf("the calls left recorded interactions unplayed: %s", strings.Join(s.unplayed, "; ")))
	}
	fmt.Fprintln(s.stderr, "server ended")
	return nil
}

// metaKey carries, in a tool call's context, the _meta its result gets.
type metaKey struct{}

// withMeta gives each tool result the _meta its handler sets.
func withMeta(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		var meta mcp.Meta
		res, err := next(context.WithValue(ctx, metaKey{}, &meta), method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && meta != nil {
			r.Meta = meta
		}
		return res, err
	}
}
