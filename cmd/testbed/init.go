package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/files"
	"github.com/agentreplay/testbed/harness/lint"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
)

const initDoc = `Usage: testbed init <suite> --agent <name> [flags]
       testbed init <suite> [--provider P] [--model M] [--base-url U] -- <command> [args…]

Writes scenarios/<suite>.yaml, a commented starter suite for a built-in
agent: two variants (the agent's defaults and a candidate whose config: keys
are listed), one scenario with expectations, and a threshold. After --, the
suite is for your own agent instead: the program that command starts, which
speaks JSON lines (docs/external-agents.md) and calls the provider's model
(openai, anthropic, gemini or ollama; openai by default) at the base URL
testbed gives it. It refuses to overwrite a file that exists. Fill it in,
then record its cassettes and run:

  testbed record --suite <suite>
  testbed run --suite <suite>

Every key is described in docs/suite-format.md, each agent's config: keys in
docs/agents-config.md.

With --from FILE (a .csv, .tsv, .jsonl, .json or .yaml file of cases under scenarios/),
the starter reads its scenarios from the file's rows (scenarios_from:),
its columns mapped by their names: an id column (id, case_id, …), an input
column (input, question, prompt, …), tags; the other columns are listed for
the expect template.

Examples:
  testbed init weather-smoke --agent cba
  testbed init --agent odbchat --root ../myproject sst-questions
  testbed init desk --provider gemini -- node agent.mjs`

func cmdInit(args []string, stdout, stderr io.Writer) error {
	var root, agent, from string
	var command []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, command = args[:i], args[i+1:]
		if len(command) == 0 {
			return withCode(exitUsage, errors.New("no command after --: testbed init <suite> -- <command> [args…] (run 'testbed init --help')"))
		}
	}
	var model llm.Endpoint
	fs := newFlags("init", initDoc, stderr)
	fs.StringVar(&model.Provider, "provider", llm.ProviderOpenAI, "with a command: the provider whose model your agent calls: openai, anthropic, gemini or ollama")
	fs.StringVar(&model.Model, "model", "", "with a command: the model your agent asks for (default: a small one of the provider's)")
	fs.StringVar(&model.BaseURL, "base-url", "", "with a command: the base URL your agent's SDK calls (default: the provider's own)")
	fs.StringVar(&from, "from", "", "a .csv, .tsv, .jsonl, .json or .yaml file of cases under scenarios/ whose rows the suite's scenarios come from")
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
	if command != nil {
		if agent != "" {
			return withCode(exitUsage, errors.New("give --agent for a built-in agent or a command after -- for your own, not both"))
		}
		if name == "" {
			return withCode(exitUsage, errors.New("usage: testbed init <suite> -- <command> [args…] (run 'testbed init --help')"))
		}
		text, err := outsideStarter(name, command, model)
		if err != nil {
			return withCode(exitUsage, err)
		}
		return writeStarter(root, name, text, from, stdout)
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
	return writeStarter(root, name, text, from, stdout)
}

// writeStarter writes the starter text as scenarios/<name>.yaml under
// root, its scenarios read from the data file from when one is given.
func writeStarter(root, name, text, from string, stdout io.Writer) error {
	var err error
	if from != "" {
		if text, err = fromData(root, text, from); err != nil {
			return err
		}
	}
	// testbed writes no secret: a key on the command line stays there.
	d, err := cassette.NewDetector(runner.KeyValues(nil), runner.KeyVariables(nil), nil)
	if err != nil {
		return withCode(exitInternal, err)
	}
	if red := d.Text(text); red != text {
		return withCode(exitUsage, errors.New("the new suite would hold a secret given on the command line (in the agent's command or --base-url), and testbed writes no secret: leave the key out (an agent reads its key from the environment, OPENAI_API_KEY and the like, which a run sets to a placeholder) and run init again"))
	}
	path := filepath.Join(root, "scenarios", name+".yaml")
	// A scenarios/ that is a symlink out of the project would be written through.
	var outside *files.OutsideError
	if _, err := files.Inside(root, path); errors.As(err, &outside) {
		return withCode(exitUsage, errors.New(outside.Refusal("the new suite "+path)))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return withCode(exitInternal, err)
	}
	// Written through an os.Root, which no symlink swapped in leads out of.
	r, err := os.OpenRoot(root)
	if err != nil {
		return withCode(exitInternal, err)
	}
	defer r.Close()
	f, err := r.OpenFile(filepath.Join("scenarios", name+".yaml"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
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
	// The commands must reach this project from where init was run.
	at := ""
	if filepath.Clean(root) != "." {
		at = " --root " + root
	}
	fmt.Fprintf(stdout, "wrote %s; fill it in, then: testbed record --suite %s%s && testbed run --suite %s%s\n", path, name, at, name, at)
	return nil
}

// starter is the text of a starter suite called name for the agent of entry.
func starter(root, name string, entry agents.Entry) (string, error) {
	if why := initName(name); why != "" {
		return "", fmt.Errorf("suite name %q: %s", name, why)
	}
	clock := starterClock
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

// starterClock is a starter suite's clock: the virtual "now" of its runs.
var starterClock = time.Date(2025, 11, 6, 10, 0, 0, 0, time.UTC)

// outsideModels are the models a starter for an agent outside testbed
// names when --model names none, by provider.
var outsideModels = map[string]string{
	llm.ProviderOpenAI: "gpt-4.1-mini", llm.ProviderAnthropic: "claude-haiku-4-5",
	llm.ProviderGemini: "gemini-2.5-flash", llm.ProviderOllama: "llama3.2",
}

// outsideStarter is the text of a starter suite called name for the agent
// outside testbed that command starts, calling model.
func outsideStarter(name string, command []string, model llm.Endpoint) (string, error) {
	if why := initName(name); why != "" {
		return "", fmt.Errorf("suite name %q: %s", name, why)
	}
	def, ok := outsideModels[model.Provider]
	if !ok {
		return "", fmt.Errorf("--provider %q: want openai, anthropic, gemini or ollama (an azure endpoint needs its resource and deployment: write its model: block by hand, docs/external-agents.md)", model.Provider)
	}
	model.Model = cmp.Or(model.Model, def)
	model.BaseURL = cmp.Or(model.BaseURL, llm.DefaultBaseURL(model.Provider), llm.OpenAIBaseURL)
	quoted := make([]string, len(command))
	for i, c := range command {
		b, err := json.Marshal(c) // a JSON string is a YAML one
		if err != nil {
			return "", err
		}
		quoted[i] = string(b)
	}
	var b strings.Builder
	err := starterText.Execute(&b, map[string]any{
		"Name": name, "Command": strings.Join(quoted, ", "), "Model": model,
		"Clock": starterClock.Format(time.RFC3339),
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

// starterText is a starter suite: for a built-in agent (Agent, its Model,
// Config keys and Tools) or, with a Command, for an agent outside testbed.
var starterText = template.Must(template.New("suite").Parse(`{{if .Command -}}
# {{.Name}}: a suite for your own agent, written by testbed init.
# The agent: block is described in docs/external-agents.md, every other key in
# docs/suite-format.md. Record its cassettes against the stand-in model (no
# key, no network), then replay them:
{{- else -}}
# {{.Name}}: a suite for the {{.Agent}} agent, written by testbed init.
# Every key is described in docs/suite-format.md; {{.Agent}}'s config: keys in
# docs/agents-config.md. Record its cassettes, then replay them:
{{- end}}
#   testbed record --suite {{.Name}}
#   testbed run --suite {{.Name}}
suite: {{.Name}}
{{if .Command -}}
agent:
  name: {{.Name}}   # names fixtures/{{.Name}}/ and the cassette folder
  # The program gets one JSON line per turn on stdin ({"turn", "turns",
  # "input", "session"}) and answers each with one on stdout ({"text": …}).
  command: [{{.Command}}]
  # Or a web service, or an MCP server, started by that command:
  #   http: {url: "http://127.0.0.1:{{"{{port}}"}}/chat", body: {input: "{{"{{input}}"}}"}, reply: .text}
  #   mcp: {transport: stdio, tool: answer}   # or url: "http://127.0.0.1:{{"{{port}}"}}/mcp"
  # Its SDK reads the base URL testbed gives it ({{.Model.Provider}}: see the
  # table in docs/external-agents.md); record --provider {{.Model.Provider}} calls the real one.
  model: {provider: {{.Model.Provider}}, base_url: "{{.Model.BaseURL}}", model: "{{.Model.Model}}"}
  # The HTTP APIs it calls besides the model, by name: each is reached through
  # testbed at the base URL in its env variable, and record answers it from the
  # stubs in fixtures/{{.Name}}/routes.yaml (examples/weather-ts has one):
  # upstreams:
  #   weather: {base_url: "https://api.open-meteo.com", env: WEATHER_URL}
  # keep_alive: variant   # one program for all of a variant's runs
clock: {{.Clock}}   # the virtual "now" of every run (TESTBED_NOW)
{{- else -}}
agent: {{.Agent}}   # calls {{.Model.Provider}} {{.Model.Model}} unless a variant sets endpoint:
clock: {{.Clock}}   # the virtual "now" of every run
{{- end}}
baseline: defaults   # what token reduction and "<= baseline" thresholds compare with
about: >-
  What this suite shows, in a sentence or two; printed with its tables.

variants:
  defaults:
    description: the agent as it ships
  candidate:
    description: the change under test
{{- if .Command}}
    # reaches the program as TESTBED_VARIANT, this block as JSON
{{- else}}
    # {{.Agent}}'s config keys: {{.Config}}
{{- end}}
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
{{- if .Command}}
      # the tools its model must call, by name: must_call: [<tool>]
{{- else}}
      # tools the turn must run{{if .Tools}}; {{.Agent}}'s tools: {{.Tools}}{{end}}
      # (testbed lint checks each name): must_call: [<tool>]
{{- end}}
      answer: {not_contains: ["error"]}
{{- if not .Command}}
      llm_calls: 1
{{- end}}
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
	if err != nil {
		return "", withCode(exitInternal, err)
	}
	columns, rows, err := scenario.Columns(dir, filepath.ToSlash(rel))
	if err != nil {
		var es scenario.Errors
		var outside *files.OutsideError
		switch {
		case errors.As(err, &outside):
			return "", withCode(exitUsage, fmt.Errorf("--from %s leads outside %s (to %s); move the file under %s (for example scenarios/cases/), where a suite reads its data files, not behind a symlink out of it", from, outside.Dir, outside.To, filepath.Join(root, "scenarios")))
		case errors.As(err, &es):
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
	var rest, unnamed []string
	for _, c := range columns {
		switch {
		case c == id || c == input || strings.EqualFold(c, "tags") || strings.EqualFold(c, "criterion"):
		case scenario.IsPlaceholder(c):
			rest = append(rest, "{"+c+"}")
		default:
			unnamed = append(unnamed, strconv.Quote(c))
		}
	}
	b.WriteString("  expect:\n    # \"{column}\" takes each row's value")
	if len(rest) > 0 {
		b.WriteString("; the file's other columns: " + strings.Join(rest, ", "))
	}
	if len(unnamed) > 0 {
		b.WriteString("\n    # no placeholder can name " + strings.Join(unnamed, ", ") + ": rename it in the file (a letter or _, then letters, digits, _ . -)")
	}
	b.WriteString("\n    answer: {not_contains: [\"error\"]}\n")
	head, _, _ := strings.Cut(text, "\nscenarios:\n")
	return head + "\n" + b.String(), nil
}
