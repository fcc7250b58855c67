package generic

import (
	"github.com/agentreplay/testbed/harness/standin/lexicon"
	"github.com/agentreplay/testbed/harness/standin/policy"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// How the generic policy fills a tool's arguments (or a JSON answer's
// fields) from a JSON Schema and the user's text. Only required
// properties are filled (every property of a response schema). A property
// is read as follows:
//
//   - anyOf/oneOf/allOf: the first alternative that is not {"type": "null"};
//     a list of types: the first that is not "null"; types in any case
//     (Gemini writes "STRING"); no type: "object"
//     with properties, "array" with items, else "string".
//   - enum, or alternatives that are each a const: the value the text
//     mentions (its words all in the text), else the described option
//     whose terms the text shares most (generic_options.go), else the
//     schema's default when it is one of them, else the first; const: the
//     constant.
//   - string: a date (see genericDate) when its format is date or
//     date-time or its name says date or day; a place (see places) when
//     its name says city, place, location and the like; else, when it has
//     a pattern, the first stretch of the text the pattern matches (its
//     anchors aside); else the first quoted text; else the value of that
//     name in a tool result of the conversation; else the whole text.
//   - number, integer: the numbers of the text (dates and clock times left
//     out), one per property in the order the schema requires them, kept
//     within minimum and maximum; else the value of that name in a tool
//     result; else the default, the minimum or 0.
//   - sibling properties that draw from the same enum, or that both want a
//     place, take distinct values (see generic_distinct.go).
//   - boolean: the default, else false.
//   - object: its own required properties, at most genericDepth deep.
//   - array: one item filled from items, or none when it cannot be.
//
// A required date the text and the request give nothing for is left out.
// Odd schemas (not an object, no properties, required names without a
// property) never make it fail: what cannot be read is left out.

// genericDepth bounds how deep nested objects and arrays are filled.
const genericDepth = 6

var (
	genericISODate = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`)
	genericClock   = regexp.MustCompile(`\b\d{1,2}:\d{2}(?::\d{2})?\b`)
	genericNumber  = regexp.MustCompile(`-?\d+(?:\.\d+)?`)
	genericFlags   = regexp.MustCompile(`^\(\?[imsU]+\)`)
	genericQuoted  = regexp.MustCompile(`"([^"]+)"|“([^”]+)”|«\s*([^»]+?)\s*»|「([^」]+)」`)
)

// genericRelative are relative day words in the lexicon's languages, the
// longer first, with their offset from the request's date in days.
var genericRelative = []struct {
	re   *regexp.Regexp
	days int
}{
	{regexp.MustCompile(`(?i)\bday after tomorrow\b|übermorgen|après-demain|pasado mañana|後天|后天|明後日`), 2},
	{regexp.MustCompile(`(?i)\bday before yesterday\b|vorgestern|avant-hier|anteayer|前天|一昨日`), -2},
	{regexp.MustCompile(`(?i)\btomorrow\b|\bmorgen\b|\bdemain\b|\bmañana\b|明天|明日`), 1},
	{regexp.MustCompile(`(?i)\byesterday\b|\bgestern\b|\bhier\b|\bayer\b|昨天|昨日`), -1},
	{regexp.MustCompile(`(?i)\btoday\b|\btonight\b|\bnow\b|\bheute\b|aujourd'hui|\bhoy\b|今天|今日|現在|现在`), 0},
}

// genericPlaceWords and genericDateWords name properties that want a place
// or a date.
var (
	genericPlaceWords = lexicon.SetOf([]string{"place", "city", "country", "region", "location", "address", "destination", "origin", "area", "station", "airport"})
	genericDateWords  = lexicon.SetOf([]string{"date", "day"})
)

// argText is what arguments are filled from: the user's text, the
// request's date if it gives one, and the numbers not yet used.
type argText struct {
	text     string
	prompt   promptText // the request's text, which may describe options (requestText)
	now      time.Time
	hasNow   bool
	numbers  []float64
	place    string // the place of this call (one of several in parallel)
	fallback string // a string property with nothing better
	leaves   []leaf // the values of the conversation's tool results, latest first
	// missing collects the properties filled with nothing the
	// conversation gave (see generic_chain.go).
	missing []string
}

func newArgText(text string, r policy.Request) *argText {
	t := &argText{text: text, prompt: requestText(r), fallback: strings.TrimSpace(text), leaves: resultLeaves(r.Messages)}
	bare := genericClock.ReplaceAllString(genericISODate.ReplaceAllString(text, " "), " ")
	for _, n := range genericNumber.FindAllString(bare, -1) {
		if f, err := strconv.ParseFloat(n, 64); err == nil {
			t.numbers = append(t.numbers, f)
		}
	}
	if m := genericISODate.FindString(r.System()); m != "" {
		if d, err := time.Parse(time.DateOnly, m); err == nil {
			t.now, t.hasNow = d, true
		}
	}
	return t
}

// fillObject fills the required properties of object schema s (every
// property with all).
func fillObject(s map[string]any, t *argText, all bool, depth int) map[string]any {
	out := map[string]any{}
	props, _ := s["properties"].(map[string]any)
	var names []string
	if req, ok := s["required"].([]any); ok {
		for _, n := range req {
			if n, ok := n.(string); ok && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	if all {
		for _, n := range slices.Sorted(maps.Keys(props)) {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	pairs := distinct(props, names, t)
	for _, n := range names {
		if v, ok := pairs[n]; ok {
			out[n] = v
			continue
		}
		ps, _ := props[n].(map[string]any)
		if v, ok := fillValue(n, ps, t, all, depth); ok {
			out[n] = v
		}
	}
	return out
}

// fillValue fills the property name of schema s.
func fillValue(name string, s map[string]any, t *argText, all bool, depth int) (any, bool) {
	// An enum, consts, or an enum among alternatives (optionsOf).
	if values, opts := optionsOf(name, s, t.prompt); len(values) > 0 {
		def, ok := s["default"]
		if !ok {
			def = resolve(s)["default"]
		}
		return enumValue(values, def, t.text, opts), true
	}
	s = resolve(s)
	if c, ok := s["const"]; ok {
		return c, true
	}
	switch schemaType(s) {
	case "string":
		return stringValue(name, s, t)
	case "integer":
		f := numberValue(name, s, t)
		return int64(math.Round(f)), true
	case "number":
		return numberValue(name, s, t), true
	case "boolean":
		b, _ := s["default"].(bool)
		return b, true
	case "null":
		return nil, true
	case "object":
		if depth >= genericDepth {
			return map[string]any{}, true
		}
		return fillObject(s, t, all, depth+1), true
	case "array":
		items, _ := s["items"].(map[string]any)
		if depth >= genericDepth {
			return []any{}, true
		}
		if v, ok := fillValue(name, items, t, all, depth+1); ok {
			return []any{v}, true
		}
		return []any{}, true
	}
	return nil, false
}

// resolve takes the first usable alternative of anyOf, oneOf or allOf.
func resolve(s map[string]any) map[string]any {
	for range genericDepth {
		var alts []any
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			if a, ok := s[k].([]any); ok && len(a) > 0 {
				alts = a
				break
			}
		}
		if alts == nil {
			return s
		}
		next := map[string]any{}
		for _, a := range alts {
			if m, ok := a.(map[string]any); ok && m["type"] != "null" {
				next = m
				break
			}
		}
		s = next
	}
	return s
}

// schemaType is the type s declares or implies, lowercased (Gemini's
// schemas write "STRING").
func schemaType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return strings.ToLower(t)
	case []any:
		for _, x := range t {
			if x, ok := x.(string); ok && !strings.EqualFold(x, "null") {
				return strings.ToLower(x)
			}
		}
	}
	switch {
	case s["properties"] != nil:
		return "object"
	case s["items"] != nil:
		return "array"
	}
	return "string"
}

// enumValue is the enum value text mentions, else the option of opts
// whose terms text shares most, else def when it is one of them, else the
// first.
func enumValue(enum []any, def any, text string, opts []option) any {
	have := stems(text)
	for _, v := range enum {
		ws := stems(strings.ReplaceAll(strings.ReplaceAll(toString(v), "_", " "), "-", " "))
		if len(ws) > 0 && lexicon.Overlap(ws, have) == len(ws) {
			return v
		}
	}
	if o, _, ok := bestOption(opts, lexicon.Terms(text)); ok {
		return o.value
	}
	for _, v := range enum {
		if v == def {
			return v
		}
	}
	return enum[0]
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return ""
}

func stringValue(name string, s map[string]any, t *argText) (any, bool) {
	format, _ := s["format"].(string)
	nameTerms := stems(strings.ReplaceAll(name, "_", " "))
	switch {
	case format == "date" || format == "date-time" || lexicon.Overlap(nameTerms, genericDateWords) > 0:
		d, ok := genericDate(t)
		if !ok {
			return nil, false
		}
		if format == "date-time" {
			return d + "T00:00:00Z", true
		}
		return d, true
	case wantsPlaceName(name):
		if t.place != "" {
			return t.place, true
		}
		if p := places(t.text); len(p) > 0 {
			return p[0], true
		}
	}
	if p, ok := s["pattern"].(string); ok {
		if v := patternMatch(p, t.text); v != "" {
			return v, true
		}
	}
	if m := genericQuoted.FindStringSubmatch(t.text); m != nil {
		for _, g := range m[1:] {
			if g != "" {
				return g, true
			}
		}
	}
	if v, ok := t.fromResults(name); ok {
		return v, true
	}
	if wantsID(name, s) {
		t.missing = append(t.missing, name)
	}
	return t.fallback, true
}

// patternMatch is the first stretch of text that pattern (a schema's
// pattern, read by Go's regexp) matches with its anchors (a leading ^, a
// trailing $) taken off, or "" when none does or Go cannot read it.
func patternMatch(pattern, text string) string {
	flags := ""
	if m := genericFlags.FindString(pattern); m != "" {
		flags, pattern = m, pattern[len(m):]
	}
	pattern = strings.TrimPrefix(pattern, "^")
	if strings.HasSuffix(pattern, "$") && !strings.HasSuffix(pattern, `\$`) {
		pattern = pattern[:len(pattern)-1]
	}
	re, err := regexp.Compile(flags + "(?:" + pattern + ")")
	if err != nil {
		return ""
	}
	return re.FindString(text)
}

// numberValue takes the next number of the text for the property name of
// schema s, else a tool result's value of that name.
func numberValue(name string, s map[string]any, t *argText) float64 {
	lo, hasLo := s["minimum"].(float64)
	hi, hasHi := s["maximum"].(float64)
	var f float64
	v, fromResult := t.fromResults(name)
	r, err := strconv.ParseFloat(v, 64)
	fromResult = fromResult && err == nil
	switch d, ok := s["default"].(float64); {
	case len(t.numbers) > 0:
		f, t.numbers = t.numbers[0], t.numbers[1:]
	case fromResult:
		f = r
	case ok:
		f = d
	case hasLo:
		f = lo
	default:
		t.missing = append(t.missing, name)
	}
	if hasLo && f < lo {
		f = lo
	}
	if hasHi && f > hi {
		f = hi
	}
	return f
}

// genericDate is the ISO date of the text, else the date a relative word
// names against the request's date, else the request's date; false when
// neither the text nor the request gives a date.
func genericDate(t *argText) (string, bool) {
	if m := genericISODate.FindString(t.text); m != "" {
		return m, true
	}
	if !t.hasNow {
		return "", false
	}
	for _, rel := range genericRelative {
		if rel.re.MatchString(t.text) {
			return t.now.AddDate(0, 0, rel.days).Format(time.DateOnly), true
		}
	}
	return t.now.Format(time.DateOnly), true
}

// stems returns the distinct stemmed words of text, without the lexicon.
func stems(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range lexicon.Words(text) {
		out[lexicon.Stem(strings.ToLower(w))] = true
	}
	return out
}
