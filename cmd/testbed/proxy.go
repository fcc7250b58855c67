package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/proxy"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/standin"
)

const proxyDoc = `Usage: testbed proxy --suite S --variant V --scenario ID [flags]

Serves one scenario's cassette on 127.0.0.1 to an agent that is not built
into testbed, in any language: it prints the base URLs to give the agent's
SDKs (as environment variables), answers the agent's model and upstream
calls from the cassette (replay, the default) or records them against the
loopback stand-ins (--record), and ends the session on Ctrl-C. A request the
cassette does not have is answered with the diagnosis and makes the exit 3;
recorded calls the agent did not make exit 1.

Examples:
  testbed proxy --suite odbchat --variant single-pass --scenario ac1-taiwan-sst
  testbed proxy --suite family --variant schema --scenario pool-history-period --record`

// cmdProxy is 'testbed proxy'.
func cmdProxy(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var sel selection
	var record bool
	fs := newFlags("proxy", proxyDoc, stderr)
	sel.register(fs)
	fs.BoolVar(&record, "record", false, "record the scenario's cassette against the stand-ins instead of replaying it")
	if err := parse(fs, args); err != nil {
		return err
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
	path := runner.CassettePath(sel.root, s.Name, sel.variant, sel.scenario)
	mode := cassette.ModeReplay
	copts := cassette.Options{Rerecord: fmt.Sprintf("testbed proxy --suite %s --variant %s --scenario %s --record", s.Name, sel.variant, sel.scenario)}
	if record {
		mode = cassette.ModeRecord
		sis, err := runner.StartStandIns(sel.root, all.Registry(), true, true, standin.Options{})
		if err != nil {
			return withCode(exitInternal, err)
		}
		defer sis.Close()
		copts.Real = runner.Router(sis.Routes, mode)
		copts.Provenance = cassette.Provenance{Provider: entry.Info.Model.Provider, Model: entry.Info.Model.Model, StandIn: true, Upstream: "fixtures"}
	}
	tr, err := cassette.Open(mode, path, copts)
	if err != nil {
		return withCode(exitStale, err)
	}
	p, err := proxy.Start()
	if err != nil {
		tr.Close()
		return withCode(exitInternal, err)
	}
	defer p.Close()
	id, base := p.Open(sessionFor(entry.Info, tr))
	fmt.Fprintf(stdout, "# %s of %s, for %s/%s/%s\n", mode, path, s.Name, sel.variant, sel.scenario)
	for _, line := range baseURLs(entry.Info, base) {
		fmt.Fprintln(stdout, line)
	}
	fmt.Fprintln(stdout, "# Ctrl-C ends the session")
	<-ctx.Done()
	err = p.End(id)
	var miss *cassette.MissError
	switch {
	case errors.As(err, &miss):
		return withCode(exitStale, fmt.Errorf("the session missed the cassette: %w", err))
	case err != nil:
		return withCode(exitInternal, err)
	}
	if r, ok := tr.(interface{ Unplayed() []string }); ok && len(r.Unplayed()) > 0 {
		return withCode(exitFailed, fmt.Errorf("the agent did not make %d recorded calls: %s", len(r.Unplayed()), strings.Join(r.Unplayed(), "; ")))
	}
	fmt.Fprintln(stderr, "session ended")
	return nil
}

// sessionFor is a proxy session on tr for an agent's endpoints.
func sessionFor(info agents.Info, tr cassette.Transport) proxy.Session {
	s := proxy.Session{Transport: tr, Upstreams: info.Upstreams}
	switch info.Model.Provider {
	case llm.ProviderGemini:
		s.Gemini = info.Model.BaseURL
	default:
		s.Model = info.Model.BaseURL
	}
	if e := info.Embeddings; e != nil && e.BaseURL != info.Model.BaseURL {
		s.Embeddings = e.BaseURL
	}
	return s
}

// baseURLs are the environment lines that point an agent's SDKs at a
// session: OPENAI_BASE_URL or GEMINI_BASE_URL, a placeholder key, and
// <NAME>_BASE_URL for each upstream.
func baseURLs(info agents.Info, base string) []string {
	var out []string
	switch info.Model.Provider {
	case llm.ProviderGemini:
		out = append(out, "GEMINI_BASE_URL="+base, "GOOGLE_GEMINI_BASE_URL="+base, "GEMINI_API_KEY="+cassette.PlaceholderKey)
	default:
		out = append(out, "OPENAI_BASE_URL="+base+"/v1", "OPENAI_API_KEY="+cassette.PlaceholderKey)
	}
	for _, name := range slices.Sorted(maps.Keys(info.Upstreams)) {
		out = append(out, strings.ToUpper(strings.ReplaceAll(name, "-", "_"))+"_BASE_URL="+base+"/upstream/"+name)
	}
	return out
}

const standinDoc = `Usage: testbed standin [flags]

Starts the stand-in model and every agent's fixture upstreams on 127.0.0.1,
prints their base URLs, and serves until Ctrl-C: point any client at them by
hand. The stand-in decides from the request alone, with the policies of the
built-in agents.

Examples:
  testbed standin`

// cmdStandin is 'testbed standin'.
func cmdStandin(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var sel selection
	fs := newFlags("standin", standinDoc, stderr)
	sel.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	sis, err := runner.StartStandIns(sel.root, all.Registry(), true, true, standin.Options{})
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
