package generic

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentreplay/testbed/harness/standin/lexicon"
	"github.com/agentreplay/testbed/harness/standin/policy"
)

// Described options. A string property that takes one of a few values
// (an enum, or alternatives that are each a const) may have each value
// described in the request, the way a router's targets reach a model
// (ADK's transfer_to_agent, a dispatcher's list of teams):
//
//   - in the alternative's own description ({"const": v, "description": …});
//   - in the property's description, after the value, up to the next value;
//   - in an entry of the system prompt or of a tool's description: a line
//     that starts with the value followed by ":", "-", "–", "—", "(", "="
//     or "|" (after a list marker, a table's "|" or markup), its rest; or
//     a line "label: v" (a label of at most three words), the lines after
//     it. An entry runs on to a blank line, a line naming another value,
//     or optionBody lines, and a "label:" (at most three words) opening
//     each of its lines is left out, so that
//
//     Agent name: billing_agent
//     Agent description: Answers questions on invoices and refunds.
//
//     describes billing_agent by "Answers questions on invoices and
//     refunds".
//
// Each option is read as the terms of its value and of what is said of it,
// less the terms every option shares. The tool scores the best of its
// options against the message besides its own words (toolScore), and the
// property takes the option whose terms the message shares most when the
// message names no value (enumValue). A property needs two described
// options for either.

// optionBody bounds the lines an entry runs on after its first.
const optionBody = 6

// option is one value a property may take, with the terms of what the
// request says of it.
type option struct {
	value any
	terms map[string]bool
}

// choices are the values schema s allows, each with the description its
// alternative gives: its enum, else the consts of its anyOf or oneOf
// alternatives (null left out) when each is one.
func choices(s map[string]any) (values []any, about []string) {
	if enum, ok := s["enum"].([]any); ok {
		return enum, make([]string, len(enum))
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		alts, ok := s[k].([]any)
		if !ok || len(alts) == 0 {
			continue
		}
		for _, a := range alts {
			m, _ := a.(map[string]any)
			if m["type"] == "null" {
				continue
			}
			c, ok := m["const"]
			if !ok {
				if one, isOne := m["enum"].([]any); isOne && len(one) == 1 {
					c, ok = one[0], true
				}
			}
			if !ok {
				return nil, nil
			}
			d, _ := m["description"].(string)
			values, about = append(values, c), append(about, d)
		}
		return values, about
	}
	return nil, nil
}

// optionsOf are the values property name of schema s may take and, when
// the request describes at least two of them, its options: its enum or
// consts (choices), or those of the alternative it resolves to; else, for
// a string, the values of the entries of prompt labelled with the
// property's own words ("Agent name: billing_agent" for agent_name), when
// it has two described ones.
func optionsOf(name string, s map[string]any, prompt promptText) (values []any, opts []option) {
	values, about := choices(s)
	if len(values) == 0 {
		// An enum among alternatives (an optional one: it or null).
		r := resolve(s)
		if _, isEnum := r["enum"].([]any); isEnum {
			values, about = choices(r)
			return values, described(values, about, r, prompt)
		}
		if schemaType(r) != "string" {
			return nil, nil
		}
		values = labelled(name, prompt.text)
		about = make([]string, len(values))
		if opts = described(values, about, s, prompt); opts == nil {
			return nil, nil
		}
		return values, opts
	}
	return values, described(values, about, s, prompt)
}

// labelled are the values of the lines of prompt "label: value" whose
// label has the terms of name and whose value is one word, in order.
func labelled(name, prompt string) []any {
	want := lexicon.Terms(name)
	if len(want) == 0 {
		return nil
	}
	var out []any
	for line := range strings.SplitSeq(prompt, "\n") {
		label, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		v = unquote(v)
		if !ok || v == "" || strings.ContainsFunc(v, unicode.IsSpace) || len(strings.Fields(label)) > 3 {
			continue
		}
		if got := lexicon.Terms(label); len(got) == len(want) && lexicon.Overlap(got, want) == len(want) && !slices.Contains(out, any(v)) {
			out = append(out, v)
		}
	}
	return out
}

// described are the options of values, each with what about (its
// alternative's description), property schema s's description and the
// entries of prompt say of it, or nil when fewer than two are described.
func described(values []any, about []string, s map[string]any, prompt promptText) []option {
	if len(values) < 2 {
		return nil
	}
	names := make([]string, len(values))
	for i, v := range values {
		names[i] = toString(v)
	}
	desc, _ := s["description"].(string)
	// Most enums are described nowhere: look for two values before reading
	// the prompt's lines.
	lowDesc, named := strings.ToLower(desc), 0
	for i, name := range names {
		if low := strings.ToLower(name); about[i] != "" || strings.Contains(prompt.lower, low) || strings.Contains(lowDesc, low) {
			named++
		}
	}
	if named < 2 {
		return nil
	}
	lines := strings.Split(prompt.text, "\n")
	var opts []option
	common := map[string]int{}
	saidOf := 0
	for i, name := range names {
		said := strings.Join([]string{about[i], after(desc, name, names), entryOf(lines, name, names)}, " ")
		if strings.TrimSpace(said) != "" {
			saidOf++
		}
		terms := lexicon.Terms(strings.NewReplacer("_", " ", "-", " ").Replace(name) + " " + said)
		for t := range terms {
			common[t]++
		}
		opts = append(opts, option{value: values[i], terms: terms})
	}
	if saidOf < 2 {
		return nil
	}
	for _, o := range opts {
		for t := range o.terms {
			if common[t] == len(opts) {
				delete(o.terms, t)
			}
		}
	}
	return opts
}

// bestOption is the option whose terms user shares most, and how many it
// shares; the first on a tie; ok is false when none shares any.
func bestOption(opts []option, user map[string]bool) (o option, score int, ok bool) {
	for _, c := range opts {
		if n := lexicon.Overlap(user, c.terms); n > score {
			o, score, ok = c, n, true
		}
	}
	return o, score, ok
}

// optionScore is the best score against user of the options of the
// required properties of a tool's parameters schema s (0 when it has no
// described options).
func optionScore(s map[string]any, user map[string]bool, prompt promptText) int {
	props, _ := s["properties"].(map[string]any)
	req, _ := s["required"].([]any)
	best := 0
	for _, n := range req {
		name, _ := n.(string)
		ps, _ := props[name].(map[string]any)
		_, opts := optionsOf(name, ps, prompt)
		if _, score, ok := bestOption(opts, user); ok && score > best {
			best = score
		}
	}
	return best
}

// promptText is the text of a request that may describe options, as it is
// and lowercased.
type promptText struct{ text, lower string }

// requestText is what describes r's options: its system prompt, then each
// tool's description.
func requestText(r policy.Request) promptText {
	var b strings.Builder
	b.WriteString(r.System())
	for _, t := range r.Tools {
		b.WriteString("\n\n" + t.Description)
	}
	return promptText{b.String(), strings.ToLower(b.String())}
}

// after is what text says after naming value, up to the next of values it
// names, lowercased, or "".
func after(text, value string, values []string) string {
	text = strings.ToLower(text)
	at := nameAt(text, value)
	if at < 0 {
		return ""
	}
	rest := text[at+len(value):]
	end := len(rest)
	for _, o := range values {
		if o == value {
			continue
		}
		if i := nameAt(rest, o); i >= 0 && i < end {
			end = i
		}
	}
	return rest[:end]
}

// entryOf is what lines say of value in an entry (see the top of this
// file), or "".
func entryOf(lines []string, value string, values []string) string {
	for i, line := range lines {
		rest, ok := entryHead(line, value)
		if !ok {
			continue
		}
		body := []string{rest}
		for _, next := range lines[i+1 : min(len(lines), i+1+optionBody)] {
			if strings.TrimSpace(next) == "" || namesOther(next, value, values) {
				break
			}
			body = append(body, unlabel(next))
		}
		return strings.Join(body, " ")
	}
	return ""
}

// entryHead reports whether line opens an entry of value, and the rest of
// the line that describes it.
func entryHead(line, value string) (string, bool) {
	s := strings.TrimLeft(strings.TrimSpace(line), "-*•+>#| \t")
	s = strings.TrimLeft(s, "0123456789")
	s = strings.TrimSpace(strings.TrimLeft(s, ".)"))
	// "label: value", the label of at most three words.
	if label, v, ok := strings.Cut(s, ":"); ok && len(strings.Fields(label)) <= 3 && !strings.EqualFold(strings.TrimSpace(label), value) {
		if strings.EqualFold(unquote(v), value) {
			return "", true
		}
	}
	// "value: what it is", the value in markup or quotes.
	head := strings.TrimLeft(s, "`*\"'")
	if len(head) < len(value) || !strings.EqualFold(head[:len(value)], value) {
		return "", false
	}
	rest := strings.TrimLeft(head[len(value):], "`*\"'")
	if r, _ := utf8.DecodeRuneInString(rest); r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) {
		return "", false // a longer name
	}
	spaced := strings.HasPrefix(rest, " ")
	rest = strings.TrimSpace(rest)
	for _, sep := range []string{":", "-", "–", "—", "(", "=", "|"} {
		if said, ok := strings.CutPrefix(rest, sep); ok {
			if sep == "-" && !spaced && !strings.HasPrefix(said, " ") {
				return "", false // a compound: "sales-tax"
			}
			return strings.TrimSpace(said), true
		}
	}
	return "", false
}

// unlabel is line without a "label:" of at most three words opening it.
func unlabel(line string) string {
	if label, rest, ok := strings.Cut(line, ":"); ok && len(strings.Fields(label)) <= 3 {
		return rest
	}
	return line
}

// unquote is s trimmed of space, markup and quotes.
func unquote(s string) string {
	return strings.Trim(strings.TrimSpace(s), "`*\"'.")
}

// namesOther reports whether line names one of values other than value.
func namesOther(line, value string, values []string) bool {
	for _, o := range values {
		if o != value && nameAt(line, o) >= 0 {
			return true
		}
	}
	return false
}

// nameAt is where text names value as a whole name (not inside a longer
// word or identifier), ignoring case, or -1.
func nameAt(text, value string) int {
	if value == "" {
		return -1
	}
	lower, v := strings.ToLower(text), strings.ToLower(value)
	for from := 0; from < len(lower); {
		i := strings.Index(lower[from:], v)
		if i < 0 {
			return -1
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(lower[:i])
		next, _ := utf8.DecodeRuneInString(lower[i+len(v):])
		if !partOfName(before) && !partOfName(next) {
			return i
		}
		from = i + 1
	}
	return -1
}

// partOfName reports whether r continues a name or identifier.
func partOfName(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
