package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/external"
	"github.com/agentreplay/testbed/harness/proxy"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
)

const proxyDoc = `Usage: testbed proxy --suite S --variant V --scenario ID [flags] [--exec -- COMMAND ARGS...]

Serves one scenario's cassette on 127.0.0.1 to an agent that is not built
into testbed, in any language: it prints the whole environment a run's
driver gives the agent (the base URLs for its SDKs and upstreams, the
placeholder key, TESTBED_NOW, TESTBED_MODEL, TESTBED_STREAM, TESTBED_VARIANT,
the clock and turn URLs, the forward proxy, the suite's env:), answers the agent's model and upstream
calls from the cassette (replay, the default) or records them against the
loopback stand-ins (--record), or replays what matches and records only the
calls the cassette lacks (--record-missing), or forwards and writes nothing
(--live), and ends the session on Ctrl-C. With --provider the model calls go
to a real provider with the key from the environment, set by the proxy on
each call (the agent keeps its placeholder key, and no cassette holds the
key); with --live-upstreams the upstream calls go to the real APIs. A request the
cassette does not have is answered with the diagnosis and makes the exit 3;
recorded calls the agent did not make exit 1. With --exec, the command after
-- is started with that environment (and testbed's own PATH, HOME, LANG,
TMPDIR, NODE_PATH), its input and output passed through, the environment
printed on stderr instead; the session ends when it exits (or on Ctrl-C or
SIGTERM, which stop it with its process group and exit 130), and an exit
other than 0 exits 1.

Examples:
  testbed proxy --suite odbchat --variant single-pass --scenario ac1-taiwan-sst
  testbed proxy --suite family --variant schema --scenario pool-history-period --record
  testbed proxy --suite odbchat --variant single-pass --scenario ac1-taiwan-sst --record-missing
  testbed proxy --suite weather-ts --variant default --scenario current-oslo --exec -- node agent.js
  OPENAI_API_KEY=… testbed proxy --suite odbchat --variant single-pass --scenario ac1-taiwan-sst --record --provider openai --model gpt-4.1-mini`

// cmdProxy is 'testbed proxy'.
func cmdProxy(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var sel selection
	var record, missing, live, liveUpstreams, execute bool
	var prov, model, baseURL string
	fs := newFlags("proxy", proxyDoc, stderr)
	sel.register(fs, "root", "suite", "variant", "scenario")
	fs.BoolVar(&record, "record", false, "record the scenario's cassette (against the stand-ins, or --provider) instead of replaying it")
	fs.BoolVar(&missing, "record-missing", false, "replay what matches and record only the calls the cassette lacks")
	fs.BoolVar(&live, "live", false, "forward to the stand-ins (or --provider) and write nothing")
	fs.StringVar(&prov, "provider", "", "record or run against a real model: openai, gemini, anthropic, azure or ollama (key from OPENAI_API_KEY, GEMINI_API_KEY, ANTHROPIC_API_KEY or AZURE_OPENAI_API_KEY, none for ollama; the agent keeps its placeholder)")
	fs.StringVar(&model, "model", "", "the real model's name (with --provider)")
	fs.StringVar(&baseURL, "base-url", "", "the real provider's base URL (with --provider; default the provider's own)")
	fs.BoolVar(&liveUpstreams, "live-upstreams", false, "call the real upstream APIs instead of the fixture stubs")
	fs.BoolVar(&execute, "exec", false, "start the command given after -- with the environment, and end the session when it exits")
	argv, err := parseWithFiles(fs, args)
	if err != nil {
		return err
	}
	switch {
	case execute && len(argv) == 0:
		return withCode(exitUsage, errors.New("--exec needs the agent's command after --: testbed proxy … --exec -- node agent.js"))
	case !execute && len(argv) > 0:
		return withCode(exitUsage, fmt.Errorf("unexpected argument %q; to start the agent, give --exec -- %s", argv[0], strings.Join(argv, " ")))
	}
	mode := cassette.ModeReplay
	switch {
	case btoi(record)+btoi(missing)+btoi(live) > 1:
		return withCode(exitUsage, errors.New("give one of --record, --record-missing and --live"))
	case record:
		mode = cassette.ModeRecord
	case missing:
		mode = cassette.ModeRecordMissing
	case live:
		mode = cassette.ModeLive
	case prov != "" || liveUpstreams:
		return withCode(exitUsage, errors.New("--provider and --live-upstreams go with --record, --record-missing or --live: a replay calls nothing"))
	}
	if sel.suite == "" || sel.variant == "" || sel.scenario == "" {
		return withCode(exitUsage, errors.New("give --suite, --variant and --scenario: a proxy session serves one scenario's cassette"))
	}
	suites, err := loadSuites(sel)
	if err != nil {
		return err
	}
	s := suites[0]
	entry := registry(sel.root, suites, nil)[s.Agent]
	info := entry.Info
	var variant map[string]any
	for _, v := range s.Variants {
		if v.Name == sel.variant {
			variant = v.Config
			if v.Endpoint != nil {
				info.Model = *v.Endpoint
			}
		}
	}
	path := cassette.Path(sel.root, s.Name, sel.variant, sel.scenario)
	// The scenario's clock, advanced by each exchange's recorded (or
	// taken) duration, as a run's is.
	var clock sync.Mutex
	elapsed := time.Duration(0)
	now := func() time.Time {
		clock.Lock()
		defer clock.Unlock()
		return s.Clock.Add(elapsed)
	}
	copts := cassette.Options{Rerecord: fmt.Sprintf("testbed proxy --suite %s --variant %s --scenario %s --record", s.Name, sel.variant, sel.scenario), Match: s.Match, Within: sel.root,
		Observe: func(e cassette.Exchange) {
			clock.Lock()
			elapsed += e.Duration
			clock.Unlock()
		}}
	var key string
	if mode != cassette.ModeReplay {
		if prov != "" {
			ep, k, err := realEndpoint(prov, model, baseURL)
			if err != nil {
				return withCode(exitUsage, err)
			}
			if ep.BaseURL == "" {
				ep.BaseURL = llm.DefaultBaseURL(ep.Provider)
			}
			info.Model, key = runner.WithModel(info.Model, ep), k
			copts.Secrets = []string{k}
		}
		// The fixture upstreams of every agent the suites describe, the
		// outside ones' included.
		sis, err := runner.StartStandIns(sel.root, registry(sel.root, suites, nil), prov == "", !liveUpstreams)
		if err != nil {
			return withCode(exitInternal, err)
		}
		defer sis.Close()
		if prov == "" {
			if err := sis.RouteModel(info.Model.BaseURL); err != nil {
				return withCode(exitUsage, err)
			}
		}
		copts.Real = runner.Router(sis.Routes, mode)
		if prov != "" || liveUpstreams {
			copts.Real = runner.NetworkRouter(sis.Routes, mode)
		}
		copts.Provenance = cassette.Provenance{Provider: info.Model.Provider, Endpoint: info.Model.BaseURL, Model: info.Model.Model, StandIn: prov == "", Upstream: "fixtures"}
		if liveUpstreams {
			copts.Provenance.Upstream = "live"
		}
	}
	reg := registry(sel.root, suites, nil)
	if copts.Detector, err = runner.Detector([]*scenario.Suite{s}, append(runner.KeyValues(reg), copts.Secrets...), runner.KeyVariables(reg)); err != nil {
		return withCode(exitInternal, err)
	}
	tr, err := cassette.Open(mode, path, copts)
	if err != nil {
		return withCode(exitStale, err)
	}
	if p, ok := tr.Provenance(); ok && mode == cassette.ModeReplay {
		info.Model = runner.Recorded(info.Model, p) // a real model's cassette replays as that model
	}
	p, err := proxy.Start()
	if err != nil {
		tr.Close()
		return withCode(exitInternal, err)
	}
	defer p.Close()
	session := sessionFor(info, tr)
	session.Key, session.Clock, session.Turn = key, now, func(int) {}
	id, base := p.Open(session)
	spec := external.Spec{}
	if s.External != nil {
		spec = specOf(s.External)
	}
	port := 0
	if spec.HTTP != nil || spec.MCP != nil && spec.MCP.Transport != external.TransportStdio {
		if port, err = external.FreePort(); err != nil {
			return withCode(exitInternal, err)
		}
	}
	env, err := external.Environment(spec, info.Model, info.Upstreams, variant, now(), base, port)
	if err != nil {
		return withCode(exitUsage, err)
	}
	out := stdout
	if execute {
		out = stderr // the agent's own output goes to stdout
	}
	fmt.Fprintf(out, "# %s of %s, for %s/%s/%s\n", mode, path, s.Name, sel.variant, sel.scenario)
	fmt.Fprintf(out, "# the environment a run gives the agent, besides testbed's own %s:\n", strings.Join(slices.Sorted(maps.Keys(external.Inherited())), ", "))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if _, secret := spec.Env[k]; secret && execute && len(env[k]) >= 8 && !slices.Contains(s.External.NotSecret, k) {
			// The agent gets it; a log of the session does not.
			fmt.Fprintf(out, "%s=%s\n", k, shellQuote("(the suite's env: value, not shown)"))
			continue
		}
		fmt.Fprintf(out, "%s=%s\n", k, shellQuote(env[k]))
	}
	var agentErr error
	if execute {
		fmt.Fprintf(out, "# running %s; the session ends when it exits\n", strings.Join(argv, " "))
		all := external.Inherited()
		maps.Copy(all, env)
		if agentErr = external.Exec(ctx, argv, external.EnvList(all), self(), stdin, stdout, stderr); ctx.Err() != nil {
			// Ctrl-C or SIGTERM: the agent was stopped before it ended.
			_ = p.End(id)
			return withCode(exitSignal, fmt.Errorf("interrupted: the agent (%s) was stopped with its process group before it ended", strings.Join(argv, " ")))
		}
	} else {
		fmt.Fprintln(stdout, "# Ctrl-C ends the session")
		<-ctx.Done()
	}
	err = p.End(id)
	var miss *cassette.MissError
	switch {
	case errors.As(err, &miss):
		return withCode(exitStale, fmt.Errorf("the session missed the cassette: %w", err))
	case err != nil:
		return withCode(exitInternal, err)
	}
	if u := tr.Unplayed(); len(u) > 0 {
		return withCode(exitFailed, fmt.Errorf("the agent did not make %d recorded calls: %s", len(u), strings.Join(u, "; ")))
	}
	if agentErr != nil {
		return withCode(exitFailed, fmt.Errorf("the agent (%s) failed: %w", strings.Join(argv, " "), agentErr))
	}
	if n := tr.Recorded(); n > 0 {
		fmt.Fprintf(stderr, "recorded %d missing calls into %s", n, path)
		if d := tr.Dropped(); len(d) > 0 {
			fmt.Fprintf(stderr, "; dropped %d it no longer makes: %s", len(d), strings.Join(d, "; "))
		}
		fmt.Fprintln(stderr)
	}
	fmt.Fprintln(stderr, "session ended")
	return nil
}

// btoi is 1 for true.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sessionFor is a proxy session on tr for an agent's endpoints.
func sessionFor(info agents.Info, tr cassette.Transport) proxy.Session {
	s := proxy.Session{Transport: tr, Upstreams: info.Upstreams}
	s.SetModel(info.Model)
	if e := info.Embeddings; e != nil && e.BaseURL != info.Model.BaseURL {
		s.Embeddings = e.BaseURL
	}
	return s
}

// shellQuote is v as a POSIX shell word: as it is when it needs no
// quoting, else in single quotes.
func shellQuote(v string) string {
	if v != "" && strings.IndexFunc(v, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@%+", r))
	}) < 0 {
		return v
	}
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}

const standinDoc = `Usage: testbed standin [flags]

Starts the stand-in model and every agent's fixture upstreams on 127.0.0.1,
prints their base URLs, and serves until Ctrl-C: point any client at them by
hand: the upstreams of the built-in agents and of every outside agent the
suites under --root describe (fixtures/<agent>/routes.yaml). The stand-in
decides from the request alone, with the policies of the built-in agents,
and answers any other agent with its generic plumbing policy.

Examples:
  testbed standin
  testbed standin --root examples/weather-ts`

// cmdStandin is 'testbed standin'.
func cmdStandin(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var sel selection
	fs := newFlags("standin", standinDoc, stderr)
	sel.register(fs, "root", "suite")
	if err := parse(fs, args); err != nil {
		return err
	}
	suites, err := loadSuites(sel)
	if err != nil {
		return err
	}
	sis, err := runner.StartStandIns(sel.root, registry(sel.root, suites, nil), true, true)
	if err != nil {
		return withCode(exitInternal, err)
	}
	defer sis.Close()
	for _, logical := range slices.Sorted(maps.Keys(sis.Routes)) {
		fmt.Fprintf(stdout, "%-45s %s\n", logical, sis.Routes[logical])
	}
	fmt.Fprintln(stdout, "# Ctrl-C stops them")
	<-ctx.Done()
	return nil
}
