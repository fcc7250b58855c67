package report

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// interactionNumber finds where a miss diagnosis names the recorded
// interaction by number, which differs between cassettes missing for the
// same cause; numbered is what each reads as without it.
var (
	interactionNumber = regexp.MustCompile(`nearest is interaction \d+; it differs|nearest is interaction \d+, |\(interaction \d+ has the same request`)
	numbered          = []struct{ prefix, text string }{
		{"nearest is interaction", "the nearest recorded request differs"},
		{"(interaction", "(a recorded interaction has the same request"},
	}
)

// missCause is what a cassette miss (cassette.MissError's text, after a
// sample's "sample N: ") says beyond which cassette and which of its
// interactions: the request and how it differs from the nearest recorded
// one, and the command that records it again. The cause is "" for any
// other error.
func missCause(err string) (cause, rerecord string) {
	body, rerecord, _ := strings.Cut(err, "\nre-record with: ")
	body = samplePrefix.ReplaceAllString(body, "")
	rest, ok := strings.CutPrefix(body, "cassette ")
	if !ok {
		return "", ""
	}
	const sep = " has no match for "
	i := strings.Index(rest, sep)
	if i < 0 {
		return "", ""
	}
	return interactionNumber.ReplaceAllStringFunc(rest[i+len(sep):], func(m string) string {
		if strings.HasSuffix(m, ", ") {
			return "the nearest recorded request is "
		}
		for _, n := range numbered {
			if strings.HasPrefix(m, n.prefix) {
				return n.text
			}
		}
		return m
	}), rerecord
}

// samplePrefix starts the error of a sampled scenario's run.
var samplePrefix = regexp.MustCompile(`^sample \d+: `)

// selection matches a flag of a testbed record command that picks one
// suite, variant or scenario.
var selection = map[string]*regexp.Regexp{
	"suite": regexp.MustCompile(` --suite \S+`), "variant": regexp.MustCompile(` --variant \S+`), "scenario": regexp.MustCompile(` --scenario \S+`),
}

// groupMisses is fs as lines, the cassette misses of two or more scenario
// runs with the same cause as one line, where the first of them was: the
// cause, the scenarios by suite and variant, and one command that records
// the calls they miss.
func groupMisses(fs []failure) []string {
	members := map[string][]failure{}
	for _, f := range fs {
		if f.cause != "" {
			members[f.cause] = append(members[f.cause], f)
		}
	}
	var out []string
	for _, f := range fs {
		group := members[f.cause]
		switch {
		case f.cause == "" || len(group) < 2:
			out = append(out, f.text)
		case group[0] == f:
			out = append(out, missGroup(f.cause, group))
		}
	}
	return out
}

// missGroup describes the runs of group, stale for cause.
func missGroup(cause string, group []failure) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d scenario runs stale for one cause: no recorded match for %s", len(group), strings.ReplaceAll(cause, "\n", "\n    "))
	var suites, pairs []string
	ids := map[string][]string{}
	for _, f := range group {
		pair := f.suite + "/" + f.variant
		if !slices.Contains(pairs, pair) {
			pairs = append(pairs, pair)
		}
		if !slices.Contains(suites, f.suite) {
			suites = append(suites, f.suite)
		}
		ids[pair] = append(ids[pair], f.id)
	}
	for _, p := range pairs {
		fmt.Fprintf(&b, "\n    %s: %s", p, strings.Join(ids[p], ", "))
	}
	// The first run's command, for all: without its scenario, and its
	// variant and suite when the runs span several.
	cmd := selection["scenario"].ReplaceAllString(group[0].rerecord, "")
	if len(pairs) > 1 {
		cmd = selection["variant"].ReplaceAllString(cmd, "")
	}
	if len(suites) > 1 {
		cmd = selection["suite"].ReplaceAllString(cmd, "")
	}
	if !strings.HasPrefix(cmd, "testbed record") {
		// Not testbed's own command (replaytest's go test): as it is.
		fmt.Fprintf(&b, "\n    re-record them all with: %s", cmd)
		return b.String()
	}
	fmt.Fprintf(&b, "\n    re-record them all (only the calls that miss) with: %s --record-missing", cmd)
	return b.String()
}
