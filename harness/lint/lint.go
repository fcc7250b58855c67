// Package lint checks agents' prompts against their tools: every tool a
// prompt names must be one the model has when that prompt is sent. A
// prompt names a tool when it contains one of the agent's known tool names
// as a whole word, or an identifier written as a call, such as
// get_usecase_details(). A known name that is a plain word, such as
// "weather", counts only written as code (`weather`) or as a call, since
// prose uses the word for itself.
//
// It does not judge whether a prompt is good, only whether it is consistent.
package lint

import (
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/files"
	"github.com/agentreplay/testbed/harness/scenario"
)

// Problem is a tool a prompt or an expectation names but the model does
// not have, or (with Message) a problem in a file lint loads.
type Problem struct {
	Suite, Variant, Agent string
	Prompt                string `json:",omitempty"`
	Line                  int    // 1-based line in the prompt, or in the suite file (Path)
	Tool                  string
	// Path, Field and Known are set for a tool an expectation names: the
	// suite file, the expectation ("scenario ac1: expect.tools") and the
	// variant's tools.
	Path  string   `json:",omitempty"`
	Field string   `json:",omitempty"`
	Known []string `json:",omitempty"`
	// Message is set, with Path and Line where it names them, for a
	// problem in a file lint loads as a run or a recording does (an
	// agent's upstream stubs, a suite's price table): what is wrong there.
	Message string `json:",omitempty"`
}

// placeRe reads "path:line: message".
var placeRe = regexp.MustCompile(`^(.+?):(\d+): (.+)$`)

// FileProblems lists the problems err reports one a line, each
// "path:line: message" read into Path, Line and Message (a line that names
// no place is a Message alone), so that --json lists them beside the tool
// mismatches.
func FileProblems(err error) []Problem {
	if err == nil {
		return nil
	}
	var out []Problem
	for _, line := range strings.Split(err.Error(), "\n") {
		p := Problem{Message: line}
		if m := placeRe.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[2])
			p = Problem{Path: m[1], Line: n, Message: m[3]}
		}
		if strings.TrimSpace(line) != "" {
			out = append(out, p)
		}
	}
	return out
}

// String formats p as one line a reader can act on.
func (p Problem) String() string {
	switch {
	case p.Message != "" && p.Path != "":
		return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Message)
	case p.Message != "":
		return p.Message
	}
	if p.Field != "" {
		return p.expectString()
	}
	where := p.Agent
	if p.Suite != "" {
		where = fmt.Sprintf("%s/%s (agent %s)", p.Suite, p.Variant, p.Agent)
	}
	return fmt.Sprintf("%s: prompt %s line %d names tool %q, which is not in the active tool set; remove it from the prompt or add the tool to the set",
		where, p.Prompt, p.Line, p.Tool)
}

// callRe finds identifiers written as calls: snake_case or dotted names
// followed by "(".
var callRe = regexp.MustCompile(`\b([a-z][a-z0-9]*(?:[._][a-z0-9]+)+)\(`)

// Prompt returns the tools p names that are not active, in order of first
// mention.
func Prompt(p agents.PromptSet) []Problem {
	var out []Problem
	seen := map[string]bool{}
	report := func(tool string, line int) {
		if seen[tool] || slices.Contains(p.Active, tool) {
			return
		}
		seen[tool] = true
		out = append(out, Problem{Prompt: p.Name, Line: line, Tool: tool})
	}
	known := append([]string(nil), p.Known...)
	sort.Slice(known, func(i, j int) bool { return len(known[i]) > len(known[j]) })
	for i, line := range strings.Split(p.Text, "\n") {
		for _, m := range callRe.FindAllStringSubmatch(line, -1) {
			report(m[1], i+1)
		}
		for _, k := range known {
			plain := !strings.ContainsAny(k, "_.")
			if plain && !strings.Contains(line, "`"+k+"`") || !plain && !wordRe(k).MatchString(line) {
				continue
			}
			report(k, i+1)
		}
	}
	return out
}

func wordRe(name string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^A-Za-z0-9_.])` + regexp.QuoteMeta(name) + `($|[^A-Za-z0-9_])`)
}

// Suites builds each suite's agent under each variant, as the runner would
// but with no network, and checks the prompts of those that are Prompted
// and the tools their suite's expectations name (Expectations).
func Suites(root string, suites []*scenario.Suite, registry map[string]agents.Entry) ([]Problem, error) {
	var out []Problem
	for _, s := range suites {
		for _, v := range s.Variants {
			a, err := Build(root, s, v, registry)
			if err != nil {
				return nil, fmt.Errorf("%s: variant %s: %w", s.Path, v.Name, err)
			}
			p, ok := a.(agents.Prompted)
			if !ok {
				continue
			}
			out = append(out, Expectations(s, v.Name, Tools(p))...)
			for _, set := range p.PromptSets() {
				for _, prob := range Prompt(set) {
					prob.Suite, prob.Variant, prob.Agent = s.Name, v.Name, s.Agent
					out = append(out, prob)
				}
			}
		}
	}
	return out, nil
}

// Configs builds every suite's agent under every variant, as a run would,
// and returns each variant whose config the agent refuses (an unknown key,
// a value out of range, a prompt file that is not there) as a
// scenario.Error at the variant's line, all of them at once in a
// scenario.Errors, which matches scenario.ErrInvalidSuite. It sends nothing.
// The builds share cache, so that what agents build from their data folder
// (knowledge bases, through agents.LoadOnce) is built once, not once per
// variant; nil shares a cache of Configs' own, closed when it returns.
func Configs(root string, suites []*scenario.Suite, registry map[string]agents.Entry, cache *agents.Cache) error {
	if cache == nil {
		cache = &agents.Cache{}
		defer cache.Close()
	}
	var errs scenario.Errors
	for _, s := range suites {
		for _, v := range s.Variants {
			if _, err := build(root, s, v, registry, cache); err != nil {
				msg := strings.TrimPrefix(err.Error(), s.Agent+": variant config: ")
				errs = append(errs, &scenario.Error{Path: s.Path, Line: v.Line, Msg: fmt.Sprintf("variants.%s.config: %s", v.Name, msg)})
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// Build constructs suite s's agent under variant v as a run would, with
// no network: its requests are refused.
func Build(root string, s *scenario.Suite, v scenario.Variant, registry map[string]agents.Entry) (agents.Agent, error) {
	return build(root, s, v, registry, nil)
}

// build is Build with the agents.Cache the agent builds its indexes in
// (nil: none).
func build(root string, s *scenario.Suite, v scenario.Variant, registry map[string]agents.Entry, cache *agents.Cache) (agents.Agent, error) {
	entry, ok := registry[s.Agent]
	if !ok {
		return nil, fmt.Errorf("unknown agent %q", s.Agent)
	}
	// Agents that require keys get placeholders: lint sends nothing.
	secrets := map[string]string{}
	for _, k := range entry.Info.Keys {
		secrets[k] = "lint-placeholder-key"
	}
	return entry.New(agents.Config{
		Secrets: secrets,
		Variant: v.Config,
		HTTP:    &http.Client{Transport: refuse{}},
		Clock:   func() time.Time { return s.Clock },
		Tracer:  agents.NopTracer{},
		Data:    files.DirFS(filepath.Join(root, "fixtures", s.Agent)),
		Prompts: files.DirFS(filepath.Join(root, "scenarios")),
		Cache:   cache,
	})
}

// refuse is a transport that makes no request: building an agent must not
// touch the network.
type refuse struct{}

func (refuse) RoundTrip(r *http.Request) (*http.Response, error) {
	return nil, fmt.Errorf("lint makes no requests (%s %s)", r.Method, r.URL)
}
