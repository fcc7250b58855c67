package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/template"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/harness/lint"
	"github.com/agentreplay/testbed/harness/scenario"
)

const initDoc = `Usage: testbed init <suite> --agent <name> [flags]

Writes scenarios/<suite>.yaml, a commented starter suite for a built-in
agent: two variants (the agent's defaults and a candidate whose config: keys
are listed), one scenario with expectations, and a threshold. It refuses to
overwrite a file that exists. Fill it in, then record its cassettes and run:

  testbed record --suite <suite>
  testbed run --suite <suite>

Every key is described in docs/suite-format.md, each agent's config: keys in
docs/agents-config.md.

With --from FILE (a .csv, .tsv or .jsonl file of cases under scenarios/),
the starter reads its scenarios from the file's rows (scenarios_from:),
its columns mapped by their names: an id column (id, case_id, …), an input
column (input, question, prompt, …), tags; the other columns are listed for
the expect template.

Examples:
  testbed init weather-smoke --agent cba
  testbed init --agent odbchat --root ../myproject sst-questions`

func cmdInit(args []string, stdout, stderr io.Writer) error {
	var root, agent, from string
	fs := newFlags("init", initDoc, stderr)
	fs.StringVar(&from, "from", "", "a .csv, .tsv or .jsonl file of cases under scenarios/ whose rows the suite's scenarios come from")
	fs.StringVar(&root, "root", ".", "project folder holding scenarios/")
	fs.StringVar(&agent, "agent", "", "the built-in agent the suite tests: "+strings.Join(all.Names(), ", "))
	// The suite's name may come before the flags or after them.
	names, err := parseWithFiles(fs, args)
	if err != nil {
		return err
	}
	if len(names) > 1 {
		return withCode(exitUsage, fmt.Errorf("unexpected argument %q; run 'testbed init --help'", names[1]))
	}
	var name string
	if len(names) == 1 {
		name = names[0]
	}
	if name == "" || agent == "" {
		return withCode(exitUsage, errors.New("usage: testbed init <suite> --agent <name> (run 'testbed init --help')"))
	}
	entry, ok := all.Registry()[agent]
	if !ok {
		msg := fmt.Sprintf("unknown agent %q (built-in: %s)", agent, strings.Join(all.Names(), ", "))
		if near := nearest(agent, all.Names()); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		}
		return withCode(exitUsage, errors.New(msg))
	}
	text, err := starter(root, name, entry)
	if err != nil {
		return withCode(exitUsage, err)
	}
	if from != "" {
		if text, err = fromData(root, text, from); err != nil {
			return err
		}
	}
	path := filepath.Join(root, "scenarios", name+".yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return withCode(exitInternal, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return withCode(exitUsage, fmt.Errorf("%s exists; init writes new suites only: pick another name or remove it", path))
	}
	if err != nil {
		return withCode(exitInternal, err)
	}
	if _, err := io.WriteString(f, text); err != nil {
		f.Close()
		return withCode(exitInternal, fmt.Errorf("write %s: %w", path, err))
	}
	if err := f.Close(); err != nil {
		return withCode(exitInternal, fmt.Errorf("write %s: %w", path, err))
	}
	fmt.Fprintf(stdout, "wrote %s; fill it in, then: testbed record --suite %s && testbed run --suite %s\n", path, name, name)
	return nil
}

// starter is the text of a starter suite called name for the agent of entry.
func starter(root, name string, entry agents.Entry) (string, error) {
	if why := initName(name); why != "" {
		return "", fmt.Errorf("suite name %q: %s", name, why)
	}
	clock := time.Date(2025, 11, 6, 10, 0, 0, 0, time.UTC)
	var tools []string
	s := &scenario.Suite{Name: name, Agent: entry.Info.Name, Clock: clock}
	if a, err := lint.Build(root, s, scenario.Variant{Name: "defaults"}, map[string]agents.Entry{entry.Info.Name: entry}); err == nil {
		if p, ok := a.(agents.Prompted); ok {
			tools = lint.Tools(p)
		}
	}
	var b strings.Builder
	err := starterText.Execute(&b, map[string]any{
		"Name": name, "Agent": entry.Info.Name, "Model": entry.Info.Model, "Clock": clock.Format(time.RFC3339),
		"Config": strings.Join(entry.Info.Config, ", "), "Tools": strings.Join(tools, ", "),
	})
	return b.String(), err
}

// initName says why name cannot name a suite, or "".
func initName(name string) string {
	for _, r := range name {
		if !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-') {
			return "use lowercase letters, digits and -"
		}
	}
	return ""
}

var starterText = template.Must(template.New("suite").Parse(`# {{.Name}}: a suite for the {{.Agent}} agent, written by testbed init.
# Every key is described in docs/suite-format.md; {{.Agent}}'s config: keys in
# docs/agents-config.md. Record its cassettes, then replay them:
#   testbed record --suite {{.Name}}
#   testbed run --suite {{.Name}}
suite: {{.Name}}
agent: {{.Agent}}   # calls {{.Model.Provider}} {{.Model.Model}} unless a variant sets endpoint:
clock: {{.Clock}}   # the virtual "now" of every run
baseline: defaults   # what token reduction and "<= baseline" thresholds compare with
about: >-
  What this suite shows, in a sentence or two; printed with its tables.

variants:
  defaults:
    description: the agent as it ships
  candidate:
    description: the change under test
    # {{.Agent}}'s config keys: {{.Config}}
    config: {}

thresholds:
  candidate:
    - "pass_rate == 100%"
    - "input_tokens_mean <= baseline"

scenarios:
  - id: first-question
    tags: [example]
    input: "Replace this with a question your users ask."
    expect:
      # tools the turn must run{{if .Tools}}; {{.Agent}}'s tools: {{.Tools}}{{end}}
      # (testbed lint checks each name): must_call: [<tool>]
      answer: {not_contains: ["error"]}
      llm_calls: 1
      budget: {latency: 10s}
`))

// fromData replaces the starter's scenarios by a scenarios_from block over
// the data file from, its columns mapped by their names.
func fromData(root, text, from string) (string, error) {
	dir, err := filepath.Abs(filepath.Join(root, "scenarios"))
	if err != nil {
		return "", withCode(exitInternal, err)
	}
	abs, err := filepath.Abs(from)
	if err != nil {
		return "", withCode(exitInternal, err)
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", withCode(exitUsage, fmt.Errorf("--from %s: move the file under %s (for example scenarios/cases/), where a suite reads its data files", from, filepath.Join(root, "scenarios")))
	}
	columns, rows, err := scenario.Columns(abs)
	if err != nil {
		var es scenario.Errors
		if errors.As(err, &es) {
			return "", withCode(exitUsage, err)
		}
		return "", withCode(exitInternal, fmt.Errorf("--from: %w", err))
	}
	pick := func(names ...string) string {
		for _, n := range names {
			for _, c := range columns {
				if strings.EqualFold(c, n) {
					return c
				}
			}
		}
		return ""
	}
	id, input := pick("id", "case_id", "caseid", "name", "key"), pick("input", "question", "prompt", "query", "user", "text")
	if id == "" || input == "" {
		return "", withCode(exitUsage, fmt.Errorf("--from %s: no id column (id, case_id, name) or no input column (input, question, prompt, query) among %s; rename them, or write scenarios_from: by hand (docs/suite-format.md)", from, strings.Join(columns, ", ")))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %d cases from %s; each row is a scenario (docs/suite-format.md, scenarios_from).\n", rows, filepath.ToSlash(rel))
	fmt.Fprintf(&b, "scenarios_from:\n  file: %s\n  id: %s\n  input: %s\n", filepath.ToSlash(rel), id, input)
	if t := pick("tags"); t != "" {
		fmt.Fprintf(&b, "  tags: %s\n", t)
	}
	if c := pick("criterion"); c != "" {
		fmt.Fprintf(&b, "  criterion: %s\n", c)
	}
	var rest []string
	for _, c := range columns {
		if c != id && c != input && !strings.EqualFold(c, "tags") && !strings.EqualFold(c, "criterion") {
			rest = append(rest, "{"+c+"}")
		}
	}
	b.WriteString("  expect:\n    # \"{column}\" takes each row's value")
	if len(rest) > 0 {
		b.WriteString("; the file's other columns: " + strings.Join(rest, ", "))
	}
	b.WriteString("\n    answer: {not_contains: [\"error\"]}\n")
	head, _, _ := strings.Cut(text, "\nscenarios:\n")
	return head + "\n" + b.String(), nil
}
