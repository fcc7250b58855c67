package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/provider"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/upstream"
)

const recordDoc = `Usage: testbed record [flags]

Runs the agents for real over HTTP and writes their cassettes under
cassettes/<suite>/<variant>/<scenario>.yaml, each saved atomically. By default
it runs against loopback stand-ins (the stand-in model and the fixture
upstreams), so anyone can re-record offline and get the same bytes. With
--provider and a key in the environment it records a real model instead.
With --live it runs the same way but writes no cassette (a smoke test).
With --record-missing it replays what each cassette holds and records only
the calls it has no match for, so a prompt edit re-records the calls it
changed, not the suite: a cassette that missed is rewritten with the calls
the run made, in order (recorded ones it no longer makes are dropped, and
listed); one that missed nothing is left as it was, and recorded calls the
agent did not make still fail the scenario, as in a replay. It refuses a
cassette recorded from another model than the one it would record.
A suite's samples: N keeps N samples per scenario (<scenario>.yaml, then
<scenario>.sample2.yaml …), for models that do not answer the same twice;
--repeat N records another number. A replay runs the suite's samples and
reports each scenario's pass rate, pass^k and a 95% interval per metric. The stand-in answers sample 1 deterministically
and samples the others like a model above temperature zero.
When every cassette was written but some scenarios fail their expectations
(or thresholds), it says "recorded N cassettes; M scenarios fail their
expectations" and exits 6, not 1: the recording worked, the agent did not.

Examples:
  testbed record --suite odbchat
  testbed record --suite odbchat --variant single-pass --scenario ac1-taiwan-sst
  testbed record --suite odbchat-sampled --repeat 3
  testbed record --suite odbchat --variant single-pass --record-missing
  OPENAI_API_KEY=… testbed record --suite odbchat --provider openai --model gpt-4.1-mini
  ANTHROPIC_API_KEY=… testbed record --suite cba --variant anthropic --provider anthropic --model claude-haiku-4-5
  testbed record --suite climate --dry-run
  OPENAI_API_KEY=… testbed record --provider openai --model gpt-4.1-mini --max-cost 5 --concurrency 8 --rpm 500
  GEMINI_API_KEY=… testbed record --suite kura --record-missing --judge-provider gemini --judge-model gemini-2.5-flash`

func cmdRecord(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var sel selection
	var prov, model, baseURL string
	var judgeProv, judgeModel, judgeBaseURL string
	var liveUpstreams, live, missing bool
	var repeat int
	var maxCost float64
	var dryRun bool
	var concurrency, rpm, tpm int
	fs := newFlags("record", recordDoc, stderr)
	sel.register(fs)
	fs.StringVar(&prov, "provider", "", "record a real model: openai, gemini, anthropic, azure or ollama (key from OPENAI_API_KEY, GEMINI_API_KEY, ANTHROPIC_API_KEY or AZURE_OPENAI_API_KEY, none for ollama; azure's --model is the deployment)")
	fs.StringVar(&model, "model", "", "the real model's name (with --provider)")
	fs.StringVar(&baseURL, "base-url", "", "the real provider's base URL (with --provider; default the provider's own, for azure AZURE_OPENAI_ENDPOINT)")
	fs.StringVar(&judgeProv, "judge-provider", "", "grade rubric checks with a real model instead of the stand-in judge: openai, gemini, anthropic or azure (key as for --provider)")
	fs.StringVar(&judgeModel, "judge-model", "", "the real grader's model (with --judge-provider)")
	fs.StringVar(&judgeBaseURL, "judge-base-url", "", "the real grader's base URL (with --judge-provider; default the provider's own)")
	fs.BoolVar(&liveUpstreams, "live-upstreams", false, "call the real upstream APIs instead of the fixture stubs")
	fs.BoolVar(&live, "live", false, "run against the endpoints but write no cassette")
	fs.BoolVar(&missing, "record-missing", false, "replay what matches and record only the calls the cassettes lack")
	fs.IntVar(&repeat, "repeat", 0, "keep `N` samples per scenario instead of the suite's samples: (default: the suite's, 1 unless it says)")
	fs.Float64Var(&maxCost, "max-cost", 0, "stop before a model or embeddings call could take the recording's spend over this many US dollars (estimated from the request's tokens and its max_tokens; docs/cost.md); 0: no cap")
	fs.BoolVar(&dryRun, "dry-run", false, "print what recording would cost at most, estimated from the model and embeddings requests in the current cassettes, and call nothing")
	fs.IntVar(&concurrency, "concurrency", 0, "scenario runs recorded at once (default 1 against the stand-ins, which keeps their order and faults reproducible; 4 with --provider)")
	fs.IntVar(&rpm, "rpm", 0, "at most this many model requests per minute, over all scenario runs (0: no limit)")
	fs.IntVar(&tpm, "tpm", 0, "at most this many prompt tokens per minute, over all scenario runs (0: no limit)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if concurrency < 0 || rpm < 0 || tpm < 0 {
		return withCode(exitUsage, fmt.Errorf("--concurrency, --rpm and --tpm want a number of 0 or more"))
	}
	if maxCost < 0 {
		return withCode(exitUsage, fmt.Errorf("--max-cost %g: want a number of US dollars above 0", maxCost))
	}
	stdout = coloured(sel, stdout)
	if repeat < 0 || repeat > scenario.MaxSamples {
		return withCode(exitUsage, fmt.Errorf("--repeat %d: want 1 to %d samples", repeat, scenario.MaxSamples))
	}
	suites, err := loadSuites(sel)
	if err != nil {
		return err
	}
	for _, s := range suites {
		switch {
		case repeat > 0 && repeat < s.Samples:
			fmt.Fprintf(stderr, "recording %d samples per scenario of %s, which declares samples: %d; the earlier cassettes of the others are kept, and replay runs them; set samples: %d in %s to drop them\n",
				repeat, s.Name, s.Samples, repeat, s.Path)
		case repeat > s.Samples:
			fmt.Fprintf(stderr, "recording %d samples per scenario of %s, which declares samples: %d; set samples: %d in %s, or replay will call the difference unused\n",
				repeat, s.Name, s.Samples, repeat, s.Path)
		}
	}
	agents, stop := running(sel.root, suites)
	defer stop()
	prices, err := sel.priceTable()
	if err != nil {
		return err
	}
	opts := runner.Options{Prices: prices,
		Mode: cassette.ModeRecord, Root: sel.root, Agents: agents,
		Variant: sel.variant, Scenario: sel.scenario, Progress: progress(sel, stderr),
		Parallel: 1, // one recording at a time keeps the stand-ins' order and faults reproducible
		Repeat:   repeat, Timeout: sel.timeout,
		Pruned: func(suite, variant, id string, recorded int, kept, removed []int) {
			writePruned(stderr, sel.root, suites, suite, variant, id, recorded, kept, removed)
		},
	}
	switch {
	case live && missing:
		return withCode(exitUsage, errors.New("--live writes nothing and --record-missing writes what is missing: give one"))
	case live:
		opts.Mode = cassette.ModeLive
	case missing:
		opts.Mode = cassette.ModeRecordMissing
	}
	if prov != "" {
		ep, key, err := realEndpoint(prov, model, baseURL)
		// a dry run calls nothing, so it needs no key
		if err != nil && !(dryRun && ep.KeyEnv != "" && model != "") {
			return withCode(exitUsage, err)
		}
		opts.Model = &ep
		opts.Secrets = map[string]string{ep.KeyEnv: key}
	}
	if prov == llm.ProviderOllama {
		for _, s := range suites {
			if s.External == nil {
				return withCode(exitUsage, fmt.Errorf("--provider ollama: only an agent outside testbed speaks Ollama's native API, and suite %s's agent %s is built in; record it against the server's OpenAI-compatible API: --provider openai --base-url http://localhost:11434/v1 (or name the outside agents' suites with --suite)", s.Name, s.Agent))
			}
		}
	}
	if judgeProv == llm.ProviderOllama {
		return withCode(exitUsage, errors.New("--judge-provider ollama: a judge is called through testbed's own clients, and none speaks Ollama's native API (an Ollama server's /v1 is --judge-provider openai)"))
	}
	if judgeProv != "" {
		ep, key, err := realEndpoint(judgeProv, judgeModel, judgeBaseURL)
		// a dry run calls nothing, so it needs no key: it prices the judge's model
		if err != nil && !(dryRun && ep.KeyEnv != "" && judgeModel != "") {
			return withCode(exitUsage, errors.New(strings.NewReplacer("--provider", "--judge-provider", "--model", "--judge-model").Replace(err.Error())))
		}
		opts.Judge = &ep
		if opts.Secrets == nil {
			opts.Secrets = map[string]string{}
		}
		opts.Secrets[ep.KeyEnv] = key
	}
	if dryRun {
		return writeEstimate(stdout, suites, opts, maxCost)
	}
	if maxCost > 0 {
		opts.Budget = &runner.Budget{Max: maxCost}
	}
	switch {
	case concurrency > 0:
		opts.Parallel = concurrency
	case prov != "":
		opts.Parallel = 4
	}
	if rpm > 0 || tpm > 0 {
		opts.Limits = &runner.Limits{RPM: rpm, TPM: tpm}
	}
	if opts.Mode == cassette.ModeRecord || opts.Mode == cassette.ModeRecordMissing {
		// Refused at once if another recording of one of these suites runs;
		// released however this returns (and by the kernel if it crashes).
		release, err := lockSuites(sel.root, suites)
		if err != nil {
			return err
		}
		defer release()
		opts.Redact = runner.KeyValues(opts.Agents)
	}
	sis, err := runner.StartStandIns(sel.root, opts.Agents, prov == "", !liveUpstreams)
	if errors.Is(err, upstream.ErrInvalid) {
		return withCode(exitUsage, err) // a routes file's problems, path:line
	}
	if err != nil {
		return withCode(exitInternal, err)
	}
	defer sis.Close()
	if prov == "" {
		if err := sis.RouteVariants(suites); err != nil {
			return withCode(exitUsage, err)
		}
	}
	if judgeProv == "" {
		// Rubric checks are graded by the stand-in judge, even beside a
		// real agent model.
		if err := sis.RouteJudges(suites); err != nil {
			return withCode(exitUsage, err)
		}
		opts.JudgeRoutes = sis.Judges
	}
	opts.Routes = sis.Routes
	opts.AllowNetwork = prov != "" || liveUpstreams
	if liveUpstreams {
		// Real upstream APIs need the agents' own keys, from the environment.
		if opts.Secrets == nil {
			opts.Secrets = map[string]string{}
		}
		maps.Copy(opts.Secrets, runner.AgentKeys(opts.Agents, os.Getenv))
	}
	rep, err := runner.Run(ctx, suites, opts)
	if err != nil && ctx.Err() != nil && rep != nil {
		writeInterrupted(stderr, rep, suites, opts)
		return withCode(exitSignal, errSilent)
	}
	if err != nil {
		return withCode(exitInternal, err)
	}
	if err := writeReport(rep, sel, stdout); err != nil {
		return withCode(exitInternal, err)
	}
	if !sel.json && !sel.tables {
		// The verdict of what was recorded, as a run's last line states it
		// (the tables state it already).
		fmt.Fprintln(stdout, rep.Verdict())
	}
	if b := opts.Budget; b != nil && b.Stopped() {
		writeStopped(stderr, rep, b)
	}
	writeRetries(stderr, rep)
	switch opts.Mode {
	case cassette.ModeRecord:
		fmt.Fprintf(stderr, "recorded %s under %s/cassettes\n", report.Count(recorded(rep), "cassette"), sel.root)
		if runs, _ := failedRuns(rep, ""); len(runs) > 0 {
			// A replay would say "cassette not found; record it": say here
			// why recording again writes nothing until the error is gone.
			fmt.Fprintf(stderr, "not recorded, %d scenario runs that ended in an error (%s): a run that fails writes no cassette and keeps the one it had; fix what its error says (above), then record it again\n",
				len(runs), strings.Join(capped(runs), ", "))
		}
	case cassette.ModeRecordMissing:
		writePatched(stderr, rep)
	}
	return recordVerdict(rep, opts.Mode)
}

// lockSuites takes the recording lock of every suite's cassette folder, or
// none (runner.LockSuites), with the exit code of its failure.
func lockSuites(root string, suites []*scenario.Suite) (release func(), err error) {
	release, err = runner.LockSuites(root, suites)
	switch {
	case errors.Is(err, cassette.ErrLocked):
		return nil, withCode(exitLocked, err)
	case err != nil:
		return nil, withCode(exitInternal, err)
	}
	return release, nil
}

// realEndpoint is provider.Real in the words of the flags: --provider,
// --model, --base-url.
func realEndpoint(prov, model, baseURL string) (llm.Endpoint, string, error) {
	ep, key, err := provider.Real(prov, model, baseURL, os.Getenv)
	if err != nil {
		err = errors.New("--" + strings.NewReplacer("needs a model", "needs --model", "a base URL ", "--base-url ").Replace(err.Error()))
	}
	return ep, key, err
}
