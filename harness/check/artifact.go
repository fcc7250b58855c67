package check

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/trace"
)

// checkMustCall passes when every named tool was executed at least once.
func checkMustCall(want, got []string) string {
	var missing []string
	for _, w := range want {
		if !slices.Contains(got, w) {
			missing = append(missing, w)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("must call %s, but executed %s", strings.Join(missing, ", "), listOrNone(got))
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "no tools"
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// Artifacts returns the artifacts noted in events, in order.
func Artifacts(events []trace.Event) []agents.Artifact {
	var out []agents.Artifact
	for _, v := range trace.Notes(events, agents.NoteArtifact) {
		switch a := v.(type) {
		case agents.Artifact:
			out = append(out, a)
		case *agents.Artifact:
			out = append(out, *a)
		default:
			// The runner keeps a note as its JSON; a JSON round trip turns
			// it into a map.
			b, ok := v.(json.RawMessage)
			if !ok {
				var err error
				if b, err = json.Marshal(v); err != nil {
					continue
				}
			}
			var art agents.Artifact
			if json.Unmarshal(b, &art) == nil && art.Kind != "" {
				out = append(out, art)
			}
		}
	}
	return out
}

// vegaSpec is the part of a Vega-Lite spec a chart expectation reads.
type vegaSpec struct {
	Mark     json.RawMessage            `json:"mark"`
	Encoding map[string]json.RawMessage `json:"encoding"`
	Data     struct {
		Values []json.RawMessage `json:"values"`
	} `json:"data"`
}

// checkChart looks at the last vega-lite artifact of the turn.
func checkChart(want *scenario.ChartExpect, events []trace.Event) string {
	var charts []agents.Artifact
	for _, a := range Artifacts(events) {
		if a.Kind == "vega-lite" {
			charts = append(charts, a)
		}
	}
	if want.None {
		if len(charts) > 0 {
			return fmt.Sprintf("want no chart, got %d", len(charts))
		}
		return ""
	}
	if len(charts) == 0 {
		return "want a chart, but the agent produced no vega-lite artifact"
	}
	var spec vegaSpec
	if err := json.Unmarshal(charts[len(charts)-1].Spec, &spec); err != nil {
		return "the chart spec is not a JSON object: " + err.Error()
	}
	var problems []string
	if want.Mark != "" {
		if got := markType(spec.Mark); got != want.Mark {
			problems = append(problems, fmt.Sprintf("mark %q, want %q", got, want.Mark))
		}
	}
	if len(want.Fields) > 0 {
		got := encodedFields(spec.Encoding)
		for _, f := range want.Fields {
			if !slices.Contains(got, f) {
				problems = append(problems, fmt.Sprintf("encoding lacks field %q (has %s)", f, listOrNone(got)))
			}
		}
	}
	if want.Values != nil && len(spec.Data.Values) != *want.Values {
		problems = append(problems, fmt.Sprintf("%d data values, want %d", len(spec.Data.Values), *want.Values))
	}
	return strings.Join(problems, "; ")
}

// markType reads "line" or {"type": "line"}.
func markType(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var m struct {
		Type string `json:"type"`
	}
	json.Unmarshal(raw, &m)
	return m.Type
}

// encodedFields lists the "field" of every encoding channel, sorted.
func encodedFields(enc map[string]json.RawMessage) []string {
	var out []string
	for _, raw := range enc {
		var ch struct {
			Field string `json:"field"`
		}
		if json.Unmarshal(raw, &ch) == nil && ch.Field != "" && !slices.Contains(out, ch.Field) {
			out = append(out, ch.Field)
		}
	}
	sort.Strings(out)
	return out
}
