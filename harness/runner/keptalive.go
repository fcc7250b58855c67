package runner

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/scenario"
)

// keptRun is a scenario run that a program kept alive for its variant
// served before the current one: its name and what its conversation said.
type keptRun struct {
	name  string
	texts []string // its user turns and the program's replies
}

// minKeptText is the fewest characters a user turn or a reply must have to
// be looked for in a later run's requests: shorter ones ("ok", "yes") are
// in too many conversations to say where they came from.
const minKeptText = 8

// keptRunOf is what sample of job j said, as run.
func keptRunOf(j *job, sample int, run report.Scenario) keptRun {
	k := keptRun{name: fmt.Sprintf("%s/%s/%s", j.suite.Name, j.variant.Name, j.scenario.ID)}
	if sample > 1 {
		k.name += fmt.Sprintf("#%d", sample)
	}
	for _, t := range j.scenario.Turns {
		k.texts = append(k.texts, t.Input)
	}
	k.texts = append(k.texts, run.Answer...)
	return k
}

// chainKey names the programs that run job j when its suite keeps them
// alive (keep_alive: variant or agent), and "" otherwise. Per variant it is
// the model endpoint and the variant's config, per agent the agent's name
// (chains deals such runs to Options.Parallel programs).
func chainKey(j *job, opts Options) string {
	if j.suite.External == nil {
		return ""
	}
	switch j.suite.External.KeepAlive {
	case scenario.KeepAliveAgent:
		return "agent " + j.suite.Agent
	case scenario.KeepAliveVariant:
		ep := endpoint(opts, opts.Agents[j.suite.Agent].Info, j.variant)
		b, err := json.Marshal([]any{ep, j.variant.Config})
		if err != nil {
			return fmt.Sprintf("%s/%s", j.suite.Name, j.variant.Name)
		}
		return string(b)
	}
	return ""
}

// chain is what runs one after the other: the runs one kept-alive program
// serves (key, which the agent is told as agents.Config.KeptBy), or one
// other run (key "").
type chain struct {
	key   string
	tasks []task
}

// chains groups tasks (in report order) into what runs one after the
// other: each kept-alive program's runs together, in order, and every
// other task alone. A program kept per variant serves all of the variant's
// runs; the runs of an agent kept alive for all of them are dealt in turn
// to as many programs as run at once, so that each program serves the same
// runs in the same order every time.
func chains(tasks []task, opts Options) []chain {
	var out []chain
	at := map[string]int{}
	dealt := map[string]int{}
	for _, t := range tasks {
		key := chainKey(t.job, opts)
		if key == "" {
			out = append(out, chain{tasks: []task{t}})
			continue
		}
		if t.job.suite.External.KeepAlive == scenario.KeepAliveAgent {
			n := dealt[key]
			dealt[key]++
			key = fmt.Sprintf("%s #%d", key, n%max(opts.Parallel, 1)+1)
		}
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, chain{key: key})
		}
		out[i].tasks = append(out[i].tasks, t)
	}
	return out
}

// keptState is the note for a miss whose request carries what earlier
// runs of the same kept-alive program said, where the nearest recorded
// request does not: the program kept state from them. "" when it does not.
func keptState(miss *cassette.MissError, earlier []keptRun) string {
	var names, quoted []string
	for _, run := range earlier {
		for _, t := range run.texts {
			if len([]rune(t)) >= minKeptText && miss.Carries(t) {
				names = append(names, run.name)
				quoted = append(quoted, fmt.Sprintf("%q", clipText(t)))
				break
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	const hint = "; a kept-alive program (keep_alive: variant or agent) must start each run afresh (a run starts at turn 0 with a new session)"
	if len(names) == 1 {
		return fmt.Sprintf("the program kept state from run %s: this request carries that run's %s%s", names[0], quoted[0], hint)
	}
	return fmt.Sprintf("the program kept state from runs %s: this request carries what they said (%s)%s", strings.Join(names, ", "), strings.Join(quoted, ", "), hint)
}

// clipText shortens a quoted turn or reply to its first 60 characters.
func clipText(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}
