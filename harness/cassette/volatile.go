package cassette

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	matcher "github.com/agentreplay/testbed/harness/match"
)

// volatilePattern is a built-in pattern of match rules, compiled.
type volatilePattern struct {
	name string
	re   *regexp.Regexp
}

// volatilePatterns are the built-in patterns a miss looks for in a value
// that differs, the more specific first (a date is part of an iso8601).
var volatilePatterns = func() []volatilePattern {
	var out []volatilePattern
	for _, n := range []string{"uuid", "iso8601", "unix_ms", "unix_s", "date"} {
		out = append(out, volatilePattern{n, regexp.MustCompile(matcher.Patterns[n])})
	}
	return out
}()

// volatile is what a miss adds to a difference of recorded and live, two
// values of the request at (a JSON pointer into the body, or a query
// parameter: target says which), when they differ only in values of one
// built-in pattern (a timestamp, a UUID), as a value an agent makes anew
// on every run does: the match rule that compares them as one. "" when
// they differ otherwise.
func volatile(target, at string, recorded, live any) string {
	a, b := scalarText(recorded), scalarText(live)
	if a == "" || b == "" {
		return ""
	}
	for _, p := range volatilePatterns {
		if !p.re.MatchString(a) || !p.re.MatchString(b) {
			continue
		}
		token := "<" + p.name + ">"
		if p.re.ReplaceAllLiteralString(a, token) != p.re.ReplaceAllLiteralString(b, token) {
			continue
		}
		return fmt.Sprintf(" (they differ only in a value of pattern %s: if it changes on every run, compare it as one with match: {normalise: [{pattern: %s, %s: %s}]}; docs/recording.md)",
			p.name, p.name, target, flowScalar(at))
	}
	return ""
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
