package runner

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
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

// chainKey names the program that runs job j when its suite keeps one
// alive per variant (keep_alive: variant), and "" otherwise. Runs with the
// same key are run one after the other, in the order of the report, so
// that the program sees them in the same order every time. It is the
// model endpoint and the variant's config: two runs the pool
// (external.Pool) gives the same program always share them.
func chainKey(j *job, opts Options) string {
	if j.suite.External == nil || !j.suite.External.KeepAlive {
		return ""
	}
	ep := endpoint(opts, opts.Agents[j.suite.Agent].Info, j.variant)
	b, err := json.Marshal([]any{ep, j.variant.Config})
	if err != nil {
		return fmt.Sprintf("%s/%s", j.suite.Name, j.variant.Name)
	}
	return string(b)
}

// chains groups tasks (in report order) into what runs one after the
// other: each kept-alive program's runs together, in order, and every
// other task alone.
func chains(tasks []task, opts Options) [][]task {
	var out [][]task
	at := map[string]int{}
	for _, t := range tasks {
		key := chainKey(t.job, opts)
		if key == "" {
			out = append(out, []task{t})
			continue
		}
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], t)
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
	const hint = "; a program kept alive for its variant (keep_alive: variant) must start each run afresh (a run starts at turn 0 with a new session)"
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
