// Package instruct reads what a system prompt, or a hint the conversation
// carries, instructs a model to do, in a few generic forms: the order of
// tool calls, prohibitions, routing rules, output formats given by a
// literal example, a limit in sentences, a conditional mention, the answer
// language, and a required JSON output shape. Each form is a named rule
// (Forms) recognised by its shape — verbs, connectives, numbered steps,
// quoted or backticked names, the tool names the request offers — never by
// an agent's wording.
//
// It decides nothing: a stand-in policy asks a Set what was read and, when
// a form is absent, applies the form's documented default (Form.Default),
// which is what a weak model does without the instruction.
package instruct

import (
	"regexp"
	"slices"
	"strings"
)

// Set is what one text instructs.
type Set struct {
	// Order holds the stated orderings: Before is called before After.
	Order []Pair
	// First holds the tools a text says to call first.
	First []string
	// Forbid holds the prohibitions.
	Forbid []Forbid
	// Routes holds the routing rules, in the text's order.
	Routes []Route
	// Formats holds output formats given by a literal example.
	Formats []Format
	// Sentences is the stated length of an answer; zero when none is.
	Sentences Range
	// Mentions holds conditional mentions ("mention X only when …").
	Mentions []Mention
	// Language is "user" for the language the user writes, a code for a
	// named one ("es"), or "" when none is stated.
	Language string
	// Shape holds the fields of a required JSON object, in the text's
	// order; nil when no JSON output is required.
	Shape []string
	// Values holds, per field of Shape, the quoted values the text lists
	// for it ("mcp" | "explain"), in order.
	Values map[string][]string
	// Defaults holds the stated default value of an argument or field by
	// name ("fields default to [...]").
	Defaults map[string]any
	// Allowed holds the literal sentences the text allows ("you may say
	// "…"").
	Allowed []string
	// Fired names the forms that read something, once each, in Forms order.
	Fired []string
}

// Pair is one stated ordering.
type Pair struct{ Before, After string }

// Forbid is one prohibition: Verb is "name" (name, mention, reveal, list,
// include, count, describe, repeat, say), "show" (show, display, paste,
// print, dump) or "call" (call, invoke, use, with no condition); Object is the text of what is forbidden; Tools holds the
// tools it covers, named in it or listed in the group it points to.
type Forbid struct {
	Verb   string
	Object string
	Tools  []string
}

// Route is one routing rule: Target (a tool or a quoted value) when When
// holds; Else when it is the rule for all other cases; Only when the text
// says the target is for that case only; Reply when the rule prescribes a
// reply instead of a target ("For a greeting, reply …").
type Route struct {
	Target string
	When   string
	Else   bool
	Only   bool
	Reply  string
}

// Format is an output format given by literal examples: what it formats
// ("temperatures") and the examples, each with the words after it
// ("in metric units").
type Format struct {
	What     string
	Examples []Example
}

// Example is one literal example of a format and the words that qualify it.
type Example struct {
	Text, Qualifier string
}

// Range is a number of sentences; Max 0 means no limit.
type Range struct{ Min, Max int }

// Mention is a conditional mention: What only when When holds.
type Mention struct{ What, When string }

// Read reads the instructions of text. tools are the names of the tools
// the request offers: a name of one of them, or any backticked identifier,
// counts as a tool wherever a form expects one.
func Read(text string, tools []string) Set {
	rd := &reader{tools: tools, set: Set{Values: map[string][]string{}, Defaults: map[string]any{}}}
	for _, t := range tools {
		rd.toolRes = append(rd.toolRes, regexp.MustCompile(`(?:^|[^\w.-])`+regexp.QuoteMeta(t)+`(?:$|[^\w-]|\.(?:\s|$))`))
	}
	rd.statements(text)
	for _, f := range forms {
		for _, st := range rd.sts {
			if f.cues != nil && !slices.ContainsFunc(f.cues, func(c string) bool { return strings.Contains(st.lower, c) }) {
				continue
			}
			if f.read(rd, st) && !slices.Contains(rd.set.Fired, f.Name) {
				rd.set.Fired = append(rd.set.Fired, f.Name)
			}
		}
	}
	return rd.set
}

// statement is one instruction of a text: a sentence of a line, with its
// line's step number (0 when the line is not numbered), the heading of its
// section and whether it is one.
type statement struct {
	text    string
	lower   string // text, lowercased
	step    int
	heading string
	isHead  bool
	line    int
}

type reader struct {
	tools   []string
	toolRes []*regexp.Regexp // a whole-word match of each tool
	sts     []statement
	// groups maps a heading (or a line ending in ":") to the names its
	// bullets list ("- list_tools: …").
	groups  map[string][]string
	groupAt map[string]int // the line of a group's last item
	set     Set
}

var (
	stepRe     = regexp.MustCompile(`^(\d+)[.)]\s+`)
	bulletRe   = regexp.MustCompile(`^[-*•]\s+`)
	itemNameRe = regexp.MustCompile("^[`\"']?([A-Za-z_][\\w.-]*)[`\"']?(?:\\(\\))?\\s*(?::|—|–| - |$)")
	sentenceRe = regexp.MustCompile(`[.!?](?:\s+|$)`)
)

// statements cuts text into statements and collects its groups.
func (rd *reader) statements(text string) {
	rd.groups, rd.groupAt = map[string][]string{}, map[string]int{}
	heading, step := "", 0
	for n, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		if line == raw {
			step = 0 // an indented line belongs to the step above it
		}
		if h, ok := strings.CutPrefix(line, "#"); ok {
			heading = strings.TrimSpace(strings.TrimLeft(h, "#"))
			rd.sts = append(rd.sts, statement{text: heading, lower: strings.ToLower(heading), heading: heading, isHead: true, line: n})
			continue
		}
		if m := stepRe.FindStringSubmatch(line); m != nil {
			step = atoi(m[1])
			line = line[len(m[0]):]
		}
		if b := bulletRe.FindString(line); b != "" {
			line = line[len(b):]
			if m := itemNameRe.FindStringSubmatch(line); m != nil && heading != "" {
				rd.groups[heading] = append(rd.groups[heading], m[1])
				rd.groupAt[heading] = n
			}
		}
		if strings.HasSuffix(line, ":") && step == 0 {
			heading = strings.TrimSuffix(line, ":")
			rd.sts = append(rd.sts, statement{text: heading, lower: strings.ToLower(heading), heading: heading, isHead: true, line: n})
			continue
		}
		for _, s := range splitSentences(line) {
			rd.sts = append(rd.sts, statement{text: s, lower: strings.ToLower(s), step: step, heading: heading, line: n})
		}
	}
}

// splitSentences cuts a line at sentence ends outside quotes and brackets,
// so "77.1°F" and {"a": …} stay whole.
func splitSentences(line string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '"':
			quoted = !quoted
		case c == '{' || c == '[' || c == '(':
			depth++
		case c == '}' || c == ']' || c == ')':
			depth = max(0, depth-1)
		case !quoted && depth == 0 && (c == '.' || c == '!' || c == '?'):
			if loc := sentenceRe.FindStringIndex(line[i:]); loc != nil && loc[0] == 0 {
				if s := strings.TrimSpace(line[start : i+1]); s != "" {
					out = append(out, s)
				}
				start = i + loc[1]
				i = start - 1
			}
		}
	}
	if s := strings.TrimSpace(line[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

var backticked = regexp.MustCompile("`([A-Za-z_][\\w.-]*)(?:\\(\\))?`")

// toolsIn returns the tools s names, in order: the offered tools named as
// whole words, and backticked identifiers that are not a known parameter
// of the text (a name with an underscore or a dot, or an offered one).
func (rd *reader) toolsIn(s string) []string {
	type at struct {
		name string
		i    int
	}
	var found []at
	for i, t := range rd.tools {
		if !strings.Contains(s, t) {
			continue
		}
		if loc := rd.toolRes[i].FindStringIndex(s); loc != nil {
			found = append(found, at{t, loc[0]})
		}
	}
	for _, m := range backticked.FindAllStringSubmatchIndex(s, -1) {
		name := s[m[2]:m[3]]
		if (strings.ContainsAny(name, "_.") || slices.Contains(rd.tools, name)) && !slices.ContainsFunc(found, func(a at) bool { return a.name == name }) {
			found = append(found, at{name, m[0]})
		}
	}
	slices.SortStableFunc(found, func(a, b at) int { return a.i - b.i })
	var out []string
	for _, f := range found {
		out = append(out, f.name)
	}
	return out
}

// Precedes reports whether a stated ordering puts a before b (directly or
// through other tools), and whether any stated ordering relates them.
func (s Set) Precedes(a, b string) (before, stated bool) {
	if reach(s.Order, a, b) {
		return true, true
	}
	if reach(s.Order, b, a) {
		return false, true
	}
	if slices.Contains(s.First, a) != slices.Contains(s.First, b) {
		return slices.Contains(s.First, a), true
	}
	return false, false
}

// reach reports whether the pairs lead from a to b.
func reach(pairs []Pair, a, b string) bool {
	seen, next := map[string]bool{a: true}, []string{a}
	for len(next) > 0 {
		x := next[0]
		next = next[1:]
		for _, p := range pairs {
			if p.Before == x && !seen[p.After] {
				if p.After == b {
					return true
				}
				seen[p.After] = true
				next = append(next, p.After)
			}
		}
	}
	return false
}

// Forbids reports whether a prohibition of verb class verb ("name",
// "show" or "call") covers tool, or, when tool is "", has an object saying one of
// words (compared by their first five letters).
func (s Set) Forbids(verb, tool string, words ...string) bool {
	for _, f := range s.Forbid {
		if f.Verb != verb {
			continue
		}
		if tool != "" && slices.Contains(f.Tools, tool) {
			return true
		}
		if tool == "" && saysAny(f.Object, words) {
			return true
		}
	}
	return false
}

// saysAny reports whether text has a word sharing its first five letters
// (or all of a shorter word) with one of words.
func saysAny(text string, words []string) bool {
	for _, w := range wordsOf(text) {
		for _, x := range words {
			if stem(w) == stem(strings.ToLower(x)) {
				return true
			}
		}
	}
	return false
}

func stem(w string) string {
	if r := []rune(w); len(r) > 5 {
		return string(r[:5])
	}
	return w
}

var wordRe = regexp.MustCompile(`[\p{L}\p{N}'_-]+`)

func wordsOf(s string) []string { return wordRe.FindAllString(strings.ToLower(s), -1) }

// Mentioned is the condition under which the text allows mentioning what
// (compared as lowercased text), and whether a conditional mention of it
// was read.
func (s Set) Mentioned(what string) (when string, ok bool) {
	for _, m := range s.Mentions {
		if strings.EqualFold(m.What, what) {
			return m.When, true
		}
	}
	return "", false
}

// FormatOf is the format read for something whose words say one of words
// ("temperature"), and whether one was.
func (s Set) FormatOf(words ...string) (Format, bool) {
	for _, f := range s.Formats {
		if saysAny(f.What, words) {
			return f, true
		}
	}
	return Format{}, false
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
