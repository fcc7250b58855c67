package cassette

import (
	"fmt"
	"strconv"
	"strings"

	matcher "github.com/agentreplay/testbed/harness/match"
)

// volatile is what a miss adds to a difference of recorded and live, two
// values of the request at (a JSON pointer into the body, or a query
// parameter: target says which), when they differ only in values of one
// built-in pattern (matcher.Volatile), as a value an agent makes anew on
// every run does: the match rule that compares them as one. "" when they
// differ otherwise.
func volatile(target, at string, recorded, live any) string {
	a, b := scalarText(recorded), scalarText(live)
	if a == "" || b == "" {
		return ""
	}
	p := matcher.Volatile(a, b)
	if p == "" {
		return ""
	}
	return fmt.Sprintf(" (they differ only in a value of pattern %s: if it changes on every run, compare it as one with match: {normalise: [{pattern: %s, %s: %s}]}; docs/recording.md)",
		p, p, target, flowScalar(at))
}

// scalarText is the text of a string or number value, "" for anything
// else.
func scalarText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case fmt.Stringer: // json.Number
		return v.String()
	}
	return ""
}

// flowScalar is s as a YAML flow scalar: as it is when plain, else quoted.
func flowScalar(s string) string {
	if s != "" && !strings.ContainsAny(s, " :,[]{}#&*!|>'\"%@`") {
		return s
	}
	return strconv.Quote(s)
}
