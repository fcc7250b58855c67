package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/trace"
)

const showDoc = `Usage: testbed show <suite>/<variant>/<scenario>[#sample] [flags]

Replays one scenario and prints what happened, in order, on the replayed
clock: each model call (role, model, duration, input tokens by part, output
tokens, the last message it was sent and its answer, the tools it asked
for, stream timing), each tool call (name, arguments, raw payload and
context tokens), each upstream exchange (method, URL, status, duration),
each note, then the checks and the verdict; first, the suite's match
rules (match:), which its requests were matched under. --prompt prints,
under each model call, everything it was sent: the tool definitions (name and
description; their parameters with --all) and every message, the system
prompt first. Long texts are cut to --width characters (--all prints them
whole); --json prints the same as data.

Examples:
  testbed show odbchat/single-pass/ac1-taiwan-sst
  testbed show odbchat-sampled/terse-router/strait-yesterday-en#2 --all
  testbed show climate/trimmed/city-new-york-one-year --prompt
  testbed show climate/trimmed/city-new-york-one-year --json`

// cmdShow is 'testbed show'.
func cmdShow(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var sel selection
	var all, prompt bool
	width := 160
	fs := newFlags("show", showDoc, stderr)
	fs.StringVar(&sel.root, "root", ".", "project folder holding scenarios/, cassettes/ and fixtures/")
	fs.BoolVar(&sel.json, "json", false, "print the run as JSON")
	fs.BoolVar(&all, "all", false, "print long texts whole")
	fs.BoolVar(&prompt, "prompt", false, "print everything each model call was sent: its tools and every message")
	fs.IntVar(&width, "width", width, "cut texts to this many characters (without --all)")
	fs.StringVar(&sel.prices, "prices", "", "price model calls with this table in LiteLLM's schema instead of the suite's prices: file or testbed's own (docs/cost.md)")
	targets, err := parseWithFiles(fs, args)
	if err != nil {
		return err
	}
	target := strings.Join(targets, " ")
	parts := strings.Split(target, "/")
	if len(targets) != 1 || len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return withCode(exitUsage, errors.New("name one scenario run: testbed show <suite>/<variant>/<scenario>[#sample] (see: testbed list)"))
	}
	sample := 1
	if id, k, ok := strings.Cut(parts[2], "#"); ok {
		n, err := strconv.Atoi(k)
		if err != nil || n < 1 {
			return withCode(exitUsage, fmt.Errorf("#%s: want a sample number from 1", k))
		}
		parts[2], sample = id, n
	}
	sel.suite, sel.variant, sel.scenario, sel.quiet = parts[0], parts[1], parts[2], true
	suites, err := loadSuites(sel)
	if err != nil {
		return err
	}
	prices, err := sel.priceTable()
	if err != nil {
		return err
	}
	reg, stop := running(sel.root, suites)
	defer stop()
	rep, err := runner.Run(ctx, suites, runner.Options{Prices: prices, Mode: cassette.ModeReplay, Root: sel.root, Agents: reg,
		Variant: sel.variant, Scenario: sel.scenario, Timeout: 2 * time.Minute, Sent: true})
	if err != nil {
		return withCode(exitInternal, err)
	}
	var v *report.Variant
	for i := range rep.Suites[0].Variants {
		if rep.Suites[0].Variants[i].Name == sel.variant {
			v = &rep.Suites[0].Variants[i]
		}
	}
	if v == nil || len(v.Scenarios) == 0 {
		return withCode(exitUsage, fmt.Errorf("no scenario %s (see: testbed list)", target))
	}
	sc := v.Scenarios[0]
	runs := sc.Runs()
	if sample > len(runs) {
		return withCode(exitUsage, fmt.Errorf("%s has %d samples", sel.scenario, len(runs)))
	}
	run := runs[sample-1]
	if sample == 1 {
		run.Events = sc.Events
	}
	shown := showRun{Scenario: strings.Join(parts, "/"), Sample: sample, Samples: len(runs), Verdict: run.Verdict, Error: run.Error,
		Provenance: v.Provenance, Match: suites[0].Match.Describe(), Events: run.Events}
	if sample == 1 {
		shown.Checks, shown.Answer = sc.Checks, sc.Answer
	} else {
		shown.Checks, shown.Answer = run.Checks, run.Answer
	}
	for _, r := range suites[0].Redact {
		shown.Redact = append(shown.Redact, r.String())
	}
	if sel.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(shown)
	}
	cut := func(s string) string {
		s = strings.ReplaceAll(s, "\n", "⏎")
		if r := []rune(s); !all && len(r) > width {
			return string(r[:width]) + fmt.Sprintf("… (%d more characters; --all shows them)", len(r)-width)
		}
		return s
	}
	writeShow(stdout, shown, cut, prompt && !all, prompt && all)
	return nil
}

// showRun is one scenario run as testbed show prints it.
type showRun struct {
	Scenario   string         `json:"scenario"`
	Sample     int            `json:"sample"`
	Samples    int            `json:"samples"`
	Verdict    string         `json:"verdict"`
	Error      string         `json:"error,omitempty"`
	Provenance string         `json:"provenance,omitempty"`
	Match      []string       `json:"match,omitempty"` // the suite's match rules, as match.Rules.Describe lists them
	Events     []trace.Event  `json:"events"`
	Checks     []report.Check `json:"checks,omitempty"`
	Answer     []string       `json:"answer,omitempty"`
	// Redact is the suite's own redact: rules, as written.
	Redact []string `json:"redact,omitempty"`
}

// MarshalJSON keeps what each model call was sent, which report files
// leave out.
func (r showRun) MarshalJSON() ([]byte, error) {
	type plain showRun
	type call struct {
		*trace.LLMCall
		Sent string `json:"sent"`
	}
	type event struct {
		trace.Event
		LLM *call `json:"llm,omitempty"`
	}
	events := make([]event, len(r.Events))
	for i, e := range r.Events {
		events[i] = event{Event: e}
		if e.LLM != nil {
			events[i].LLM = &call{LLMCall: e.LLM, Sent: e.LLM.Sent}
		}
	}
	return json.Marshal(struct {
		plain
		Events []event `json:"events"`
	}{plain(r), events})
}

// writeShow prints a run as a timeline; with prompt (or schemas, which
// adds the tools' parameters) each model call's whole prompt.
func writeShow(w io.Writer, r showRun, cut func(string) string, prompt, schemas bool) {
	fmt.Fprintf(w, "%s (sample %d of %d): %s", r.Scenario, r.Sample, r.Samples, strings.ToUpper(r.Verdict))
	if r.Provenance != "" {
		fmt.Fprintf(w, ", %s", r.Provenance)
	}
	fmt.Fprintln(w)
	for _, m := range r.Match {
		fmt.Fprintf(w, "  match rule: %s\n", m)
	}
	if r.Error != "" {
		fmt.Fprintf(w, "  error: %s\n", r.Error)
	}
	if len(r.Redact) > 0 {
		fmt.Fprintf(w, "  redacted besides the maintained rules: %s\n", strings.Join(r.Redact, "; "))
	}
	// In time order, a turn's events before the next turn's at the same
	// instant; a model call before the exchange that carried it.
	events := slices.Clone(r.Events)
	slices.SortStableFunc(events, func(a, b trace.Event) int {
		if c := cmp.Compare(a.At, b.At); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Turn, b.Turn); c != 0 {
			return c
		}
		return cmp.Compare(kindOrder(a.Kind), kindOrder(b.Kind))
	})
	for _, e := range events {
		at := fmt.Sprintf("%8s  turn %d  ", msText(e.At), e.Turn+1)
		pad := strings.Repeat(" ", len(at))
		switch e.Kind {
		case trace.KindLLM:
			c := e.LLM
			in := c.Input
			role := c.Role
			if role != "" {
				role += " "
			}
			fmt.Fprintf(w, "%smodel call %s(%s), %s: in %s tokens (system %d, tools %d, history %d, tool results %d, user %d, overhead %d), out %d\n",
				at, role, c.Model, msText(c.Duration), grouped(in.Total()), in.System, in.Tools, in.History, in.ToolResults, in.User, in.Overhead, c.Output)
			if c.Stream != nil {
				fmt.Fprintf(w, "%sstreamed: first token at %s, %d events, last at %s\n", pad, msText(c.Stream.FirstToken), c.Stream.Events, msText(c.Stream.Duration))
			}
			if c.Prompt != nil && (prompt || schemas) {
				writePrompt(w, pad, c.Prompt, cut, schemas)
			} else if c.Sent != "" {
				fmt.Fprintf(w, "%ssent %s\n", pad, cut(c.Sent))
			}
			if c.Text != "" {
				fmt.Fprintf(w, "%sanswer: %s\n", pad, cut(c.Text))
			}
			for _, tc := range c.ToolCalls {
				fmt.Fprintf(w, "%sasks for %s %s\n", pad, tc.Name, cut(string(tc.Arguments)))
			}
			if c.Error != "" {
				fmt.Fprintf(w, "%serror: %s\n", pad, cut(c.Error))
			}
		case trace.KindTool:
			t := e.Tool
			fmt.Fprintf(w, "%stool %s %s: raw %s tokens → context %s tokens\n", at, t.Name, cut(string(t.Args)), grouped(t.RawTokens), grouped(t.ContextTokens))
			if t.Error != "" {
				fmt.Fprintf(w, "%serror: %s\n", pad, cut(t.Error))
			}
		case trace.KindHTTP:
			x := e.HTTP
			fmt.Fprintf(w, "%s%s %s → %d in %s", at, x.Method, cut(x.URL), x.Status, msText(x.Duration))
			if x.Fault != "" {
				fmt.Fprintf(w, " (fault %s)", x.Fault)
			}
			if x.Rule != "" {
				fmt.Fprintf(w, " (stand-in rule %s)", x.Rule)
			}
			fmt.Fprintln(w)
			if x.Error != "" {
				fmt.Fprintf(w, "%serror: %s\n", pad, cut(x.Error))
			}
		case trace.KindNote:
			b, _ := json.Marshal(e.Note.Value)
			fmt.Fprintf(w, "%snote %s %s\n", at, e.Note.Key, cut(string(b)))
		case trace.KindEmbed:
			c := e.Embed
			price := "unpriced"
			if c.Cost != nil {
				price = report.USD(c.Cost.USD) + " from " + c.Cost.From + " tokens"
			}
			texts := "texts"
			if c.Texts == 1 {
				texts = "text"
			}
			fmt.Fprintf(w, "%sembeddings %s, %s: %d %s, %s tokens, %s\n", at, c.Model, msText(c.Duration), c.Texts, texts, grouped(c.Tokens()), price)
			if c.Error != "" {
				fmt.Fprintf(w, "%serror: %s\n", pad, cut(c.Error))
			}
		}
	}
	for i, a := range r.Answer {
		fmt.Fprintf(w, "reply %d: %s\n", i+1, cut(a))
	}
	for _, c := range r.Checks {
		mark := "✓"
		if !c.Pass {
			mark = "✗"
		}
		line := fmt.Sprintf("%s turn %d %s", mark, c.Turn+1, c.Name)
		if c.Judged {
			line += " (model behaviour)"
		}
		if c.Detail != "" {
			line += ": " + cut(c.Detail)
		}
		fmt.Fprintln(w, line)
	}
}

// msText is d in whole milliseconds, grouped: 12,345 ms.
func msText(d time.Duration) string {
	return grouped(int(d.Round(time.Millisecond).Milliseconds())) + " ms"
}

// grouped is n as the reports write counts: 10,960.
func grouped(n int) string { return report.Grouped(int64(n)) }

// writePrompt prints what a model call was sent: its tools (with their
// parameters when schemas), then each message with its role, the tool calls
// an assistant message made and the call a tool message answers.
func writePrompt(w io.Writer, pad string, p *trace.Prompt, cut func(string) string, schemas bool) {
	for _, t := range p.Tools {
		fmt.Fprintf(w, "%stool %s: %s\n", pad, t.Name, cut(t.Description))
		if schemas && len(t.Parameters) > 0 {
			fmt.Fprintf(w, "%s  parameters %s\n", pad, t.Parameters)
		}
	}
	for i, m := range p.Messages {
		role := m.Role
		if m.ToolCallID != "" {
			role += " (" + orDash(m.Name) + ", " + m.ToolCallID + ")"
		}
		fmt.Fprintf(w, "%s[%d] %s: %s\n", pad, i+1, role, cut(m.Content))
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(w, "%s    calls %s %s (%s)\n", pad, tc.Name, cut(string(tc.Arguments)), tc.ID)
		}
	}
}

// kindOrder orders events of the same instant: a model or embeddings
// call, then the exchanges, tools and notes it led to.
func kindOrder(k trace.Kind) int {
	if k == trace.KindLLM || k == trace.KindEmbed {
		return 0
	}
	return 1
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
