// Package match holds a suite's match rules: what replay leaves out of
// matching a live request against a recorded one (ignore), or compares only
// after a pattern in it is replaced by a fixed token (normalise). They are
// for what a real agent changes on every run: a request id, a UUID, the
// wall-clock time in a prompt or a query parameter.
//
// Rules apply to the parts of a request the cassette matcher compares: the
// JSON body (JSON pointers, RFC 6901, with * for any member or element), the
// URL's path and query (query keys), and the request headers the rules name
// (testbed compares no header unless a rule names it). The same rules apply
// to the recorded and the live request, so both sides are compared in the
// same normal form; nothing in a cassette is rewritten.
//
// This package knows nothing of cassettes or suites: it checks rules and
// applies them to decoded JSON, URLs, headers and text.
package match

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Where says which part of a request a rule applies to.
type Where int

// Where a rule applies.
const (
	// WhereAnywhere is every string value of the JSON body (or the whole
	// body when it is not JSON), the URL's path and query values, and the
	// headers other rules name. Only a normalise rule applies anywhere.
	WhereAnywhere Where = iota
	WhereBody           // the JSON body at Rule.Target, a JSON pointer
	WhereQuery          // the URL query parameter Rule.Target
	WhereHeader         // the request header Rule.Target
)

// String names w as a suite writes it.
func (w Where) String() string {
	switch w {
	case WhereBody:
		return "body"
	case WhereQuery:
		return "query"
	case WhereHeader:
		return "header"
	}
	return "anywhere"
}

// Patterns are the named patterns a normalise rule may use instead of a
// regular expression.
var Patterns = map[string]string{
	// uuid: any version, either case.
	"uuid": `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`,
	// iso8601: a date and a time to the minute, seconds, fraction and
	// offset optional (2026-03-02T08:00:00Z, 2026-03-02 08:00:00.123+01:00).
	"iso8601": `\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?`,
	// date: a calendar date alone (2026-03-02).
	"date": `\d{4}-\d{2}-\d{2}`,
	// unix_ms: milliseconds since 1970 from 2001-09-09 to 2286 (13 digits).
	"unix_ms": `\b1\d{12}\b`,
	// unix_s: seconds since 1970 from 2001-09-09 to 2286 (10 digits).
	"unix_s": `\b1\d{9}\b`,
}

// PatternNames lists Patterns' names, sorted.
func PatternNames() []string {
	var out []string
	for n := range Patterns {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Rule is one match rule.
type Rule struct {
	// Ignore leaves the target out of matching; otherwise the rule
	// normalises: it replaces every match of its pattern by Token.
	Ignore bool
	Where  Where
	// Target is the JSON pointer (WhereBody), query key (WhereQuery) or
	// header name (WhereHeader); empty for WhereAnywhere.
	Target string
	// Pattern is a name of Patterns, or Regex when empty.
	Pattern string
	Regex   string
	// Token replaces what the pattern matches; by default <Pattern>, or
	// <normalised> for a regular expression.
	Token string
	Line  int // where the suite declares it; 0 when not from a file

	re  *regexp.Regexp
	ptr []string // Target split into unescaped segments (WhereBody)
}

// Compile checks r and readies it for use. Its error says what is wrong in
// words a suite's author can act on.
func (r *Rule) Compile() error {
	switch r.Where {
	case WhereBody:
		ptr, err := ParsePointer(r.Target)
		if err != nil {
			return err
		}
		r.ptr = ptr
	case WhereQuery:
		if r.Target == "" {
			return fmt.Errorf("empty query key")
		}
	case WhereHeader:
		if !validHeader(r.Target) {
			return fmt.Errorf("%q is not a header name", r.Target)
		}
		r.Target = http.CanonicalHeaderKey(r.Target)
	case WhereAnywhere:
		if r.Ignore {
			return fmt.Errorf("an ignore rule needs a body pointer, a query key or a header")
		}
	}
	if r.Ignore {
		if r.Pattern != "" || r.Regex != "" || r.Token != "" {
			return fmt.Errorf("an ignore rule takes no pattern, regex or as; use normalise to replace part of a value")
		}
		return nil
	}
	src := r.Regex
	switch {
	case r.Pattern != "" && r.Regex != "":
		return fmt.Errorf("give pattern or regex, not both")
	case r.Pattern != "":
		p, ok := Patterns[r.Pattern]
		if !ok {
			return fmt.Errorf("unknown pattern %q (known: %s; or give regex:)", r.Pattern, strings.Join(PatternNames(), ", "))
		}
		src = p
	case r.Regex == "":
		return fmt.Errorf("a normalise rule needs a pattern (pattern: one of %s) or a regex (regex: …)", strings.Join(PatternNames(), ", "))
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return fmt.Errorf("invalid regex %q: %v", src, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	if re.MatchString("") {
		return fmt.Errorf("regex %q matches the empty string, so it would put a token between every character; make it match at least one", src)
	}
	r.re = re
	if r.Token == "" {
		r.Token = "<normalised>"
		if r.Pattern != "" {
			r.Token = "<" + r.Pattern + ">"
		}
	}
	return nil
}

// validHeader reports whether s is an HTTP header field name (an RFC 9110
// token).
func validHeader(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c > 0x7e || c <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, c) {
			return false
		}
	}
	return true
}

// ParsePointer splits a JSON pointer (RFC 6901) into its unescaped
// segments; a segment "*" stands for any member or element.
func ParsePointer(p string) ([]string, error) {
	if p == "" {
		return nil, fmt.Errorf("empty JSON pointer; point at a field, like /metadata/request_id")
	}
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("JSON pointer %q does not start with /; write it like /metadata/request_id", p)
	}
	segs := strings.Split(p[1:], "/")
	for i, s := range segs {
		for j := 0; j < len(s); j++ {
			if s[j] == '~' && (j+1 == len(s) || s[j+1] != '0' && s[j+1] != '1') {
				return nil, fmt.Errorf("JSON pointer %q has a ~ not followed by 0 or 1; write ~0 for ~ and ~1 for /", p)
			}
		}
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return segs, nil
}

// String describes r as the miss diagnosis and testbed show print it:
// "ignore body /metadata/request_id", "normalise uuid anywhere → <uuid>".
func (r Rule) String() string {
	at := r.Where.String()
	if r.Where != WhereAnywhere {
		at += " " + r.Target
	}
	if r.Ignore {
		return "ignore " + at
	}
	what := r.Pattern
	if what == "" {
		what = "regex " + strconv.Quote(r.Regex)
	}
	if r.Where != WhereAnywhere {
		at = "in " + at
	}
	return fmt.Sprintf("normalise %s %s → %s", what, at, r.Token)
}

// Rules are a suite's match rules. A nil *Rules has none.
type Rules struct {
	// Headers are request headers compared as sent (headers: in a suite).
	Headers []string
	// List holds the ignore and normalise rules, in the suite's order.
	List []Rule
	// AnyOrderToolResults compares the results of one turn's tool calls
	// in any order (tool_results: any_order in a suite): an agent that
	// runs a turn's tools at once sends their results as they finish. The
	// cassette matcher sorts them (wire.SortToolResults) on both sides.
	AnyOrderToolResults bool
	// AnyFormEmptyContent compares the empty content of a chat message
	// that only calls tools in any form, null, "", [] or none
	// (empty_content: any_form in a suite): SDK versions write it
	// differently. The cassette matcher drops it
	// (wire.DropEmptyCallContent) on both sides.
	AnyFormEmptyContent bool
}

// Empty reports whether r changes nothing.
func (r *Rules) Empty() bool {
	return r == nil || len(r.Headers) == 0 && len(r.List) == 0 && !r.AnyOrderToolResults && !r.AnyFormEmptyContent
}

// ToolResultsAnyOrder reports whether r compares tool results in any
// order; false for a nil *Rules.
func (r *Rules) ToolResultsAnyOrder() bool { return r != nil && r.AnyOrderToolResults }

// EmptyContentAnyForm reports whether r compares a tool-calling message's
// empty content in any form; false for a nil *Rules.
func (r *Rules) EmptyContentAnyForm() bool { return r != nil && r.AnyFormEmptyContent }

// Compile compiles every rule and canonicalises the header names; its
// errors are each rule's, by index.
func (r *Rules) Compile() map[int]error {
	errs := map[int]error{}
	for i := range r.List {
		if err := r.List[i].Compile(); err != nil {
			errs[i] = err
		}
	}
	for i, h := range r.Headers {
		r.Headers[i] = http.CanonicalHeaderKey(h)
	}
	return errs
}

// Describe lists what r does, one line per rule: the headers compared, then
// each rule.
func (r *Rules) Describe() []string {
	if r.Empty() {
		return nil
	}
	var out []string
	if len(r.Headers) > 0 {
		out = append(out, "compare headers "+strings.Join(r.Headers, ", "))
	}
	for _, rule := range r.List {
		out = append(out, rule.String())
	}
	if r.AnyOrderToolResults {
		out = append(out, "tool results of one turn in any order")
	}
	if r.AnyFormEmptyContent {
		out = append(out, "empty content of a message that only calls tools in any form")
	}
	return out
}

// HeaderNames lists every header the rules compare (as sent, for presence,
// or normalised), sorted: a recording keeps them.
func (r *Rules) HeaderNames() []string {
	if r == nil {
		return nil
	}
	out := slices.Clone(r.Headers)
	for _, rule := range r.List {
		if rule.Where == WhereHeader && !slices.Contains(out, rule.Target) {
			out = append(out, rule.Target)
		}
	}
	slices.Sort(out)
	return out
}

// volatileNames are the built-in patterns Volatile tries, the more
// specific first (a date is part of an iso8601), and volatileOrder the
// same compiled.
var volatileNames = []string{"uuid", "iso8601", "unix_ms", "unix_s", "date"}

var volatileOrder = func() []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, n := range volatileNames {
		out = append(out, regexp.MustCompile(Patterns[n]))
	}
	return out
}()

// Volatile names the built-in pattern under which a and b are one value:
// both hold a match of it, and they are equal once every match is
// normalised to its token, as a value an agent makes anew on every run (a
// timestamp, a UUID) differs from itself. "" when no pattern does.
func Volatile(a, b string) string {
	for i, re := range volatileOrder {
		if !re.MatchString(a) || !re.MatchString(b) {
			continue
		}
		token := "<" + volatileNames[i] + ">"
		if re.ReplaceAllLiteralString(a, token) == re.ReplaceAllLiteralString(b, token) {
			return volatileNames[i]
		}
	}
	return ""
}
