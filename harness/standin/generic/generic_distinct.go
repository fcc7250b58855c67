package generic

import (
	"github.com/agentreplay/testbed/harness/standin/lexicon"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// How the generic policy fills sibling properties that draw from the same
// values: two properties with the same enum, or two that want a place
// (a source and a target, an origin and a destination). One value each,
// never the same twice while the text gives more:
//
//   - the candidates are the enum values the text mentions, or the places
//     it names, in the order they appear in the text;
//   - a property's role is source when its name (else, the last role word
//     of its description) says from, source, origin, base, input, start;
//     target when it says to, target, destination, quote, output, end;
//   - a candidate right after "from" goes to a source property, one right
//     after "to" or "into" to a target property; the others go, in the
//     text's order, to the properties left: sources first, then those
//     without a role in the schema's order, then targets;
//   - an enum property left without a candidate takes its default, else
//     the first value, that no sibling took; a place property left so is
//     filled as usual.

// Role words of properties that take a pair of values.
var (
	genericSourceWords = lexicon.SetOf([]string{"from", "source", "src", "origin", "base", "input", "start", "sell"})
	genericTargetWords = lexicon.SetOf([]string{"to", "target", "dest", "destination", "quote", "output", "end", "into", "buy"})
)

// genericBefore is the word right before a position of a text.
var genericBefore = regexp.MustCompile(`(?i)(\pL+)\W*$`)

// pairRole is -1 for a source property, 1 for a target, 0 for neither.
func pairRole(name string, s map[string]any) int {
	role := func(ws []string) (int, bool) {
		for i := len(ws) - 1; i >= 0; i-- {
			w := strings.ToLower(ws[i])
			if genericSourceWords[w] {
				return -1, true
			}
			if genericTargetWords[w] {
				return 1, true
			}
		}
		return 0, false
	}
	if r, ok := role(lexicon.Words(name)); ok {
		return r
	}
	desc, _ := s["description"].(string)
	r, _ := role(lexicon.Words(desc))
	return r
}

// candidate is a value the text gives, at a byte offset.
type candidate struct {
	value any
	at    int
}

// distinct returns the values of the properties names of props that share
// an enum or a place with a sibling (see the top of this file).
func distinct(props map[string]any, names []string, t *argText) map[string]any {
	groups := map[string][]string{}
	var keys []string
	for _, n := range names {
		ps, _ := props[n].(map[string]any)
		ps = resolve(ps)
		key := ""
		if enum, ok := ps["enum"].([]any); ok && len(enum) > 1 {
			var vs []string
			for _, v := range enum {
				vs = append(vs, toString(v))
			}
			slices.Sort(vs)
			key = "enum:" + strings.Join(vs, "\x00")
		} else if schemaType(ps) == "string" && wantsPlaceName(n) && t.place == "" {
			key = "place"
		}
		if key == "" {
			continue
		}
		if _, ok := groups[key]; !ok {
			keys = append(keys, key)
		}
		groups[key] = append(groups[key], n)
	}
	out := map[string]any{}
	for _, key := range keys {
		members := groups[key]
		if len(members) < 2 {
			continue
		}
		first, _ := props[members[0]].(map[string]any)
		first = resolve(first)
		var cands []candidate
		if key == "place" {
			for _, p := range places(t.text) {
				if i := strings.Index(t.text, p); i >= 0 {
					cands = append(cands, candidate{p, i})
				}
			}
		} else {
			cands = mentioned(first["enum"].([]any), t.text)
		}
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].at < cands[j].at })
		assignPair(props, members, cands, t.text, out)
		if key != "place" {
			for _, n := range members {
				if _, ok := out[n]; !ok {
					ps, _ := props[n].(map[string]any)
					out[n] = untaken(resolve(ps), members, out)
				}
			}
		}
	}
	return out
}

// mentioned are the values of enum whose words are all in text, at the
// first place one of its words appears.
func mentioned(enum []any, text string) []candidate {
	have := stems(text)
	lower := strings.ToLower(text)
	var out []candidate
	for _, v := range enum {
		ws := stems(strings.ReplaceAll(strings.ReplaceAll(toString(v), "_", " "), "-", " "))
		if len(ws) == 0 || lexicon.Overlap(ws, have) != len(ws) {
			continue
		}
		at := len(text)
		for _, w := range lexicon.Words(toString(v)) {
			if i := strings.Index(lower, strings.ToLower(w)); i >= 0 && i < at {
				at = i
			}
		}
		out = append(out, candidate{v, at})
	}
	return out
}

// assignPair gives cands, in order, to the properties members into out
// (see the top of this file).
func assignPair(props map[string]any, members []string, cands []candidate, text string, out map[string]any) {
	roles := map[string]int{}
	for _, n := range members {
		ps, _ := props[n].(map[string]any)
		roles[n] = pairRole(n, ps)
	}
	free := func(role int) string {
		for _, n := range members {
			if _, taken := out[n]; !taken && roles[n] == role {
				return n
			}
		}
		return ""
	}
	var rest []candidate
	for _, c := range cands {
		role := 0
		if m := genericBefore.FindStringSubmatch(text[:c.at]); m != nil {
			switch strings.ToLower(m[1]) {
			case "from":
				role = -1
			case "to", "into":
				role = 1
			}
		}
		if n := free(role); role != 0 && n != "" {
			out[n] = c.value
			continue
		}
		rest = append(rest, c)
	}
	order := slices.Clone(members)
	slices.SortStableFunc(order, func(a, b string) int { return roles[a] - roles[b] })
	for _, n := range order {
		if len(rest) == 0 {
			break
		}
		if _, taken := out[n]; !taken {
			out[n], rest = rest[0].value, rest[1:]
		}
	}
}

// untaken is the default of enum schema s, else its first value, that no
// property of members took in out.
func untaken(s map[string]any, members []string, out map[string]any) any {
	enum, _ := s["enum"].([]any)
	taken := func(v any) bool {
		for _, n := range members {
			if got, ok := out[n]; ok && got == v {
				return true
			}
		}
		return false
	}
	if d, ok := s["default"]; ok && slices.Contains(enum, d) && !taken(d) {
		return d
	}
	for _, v := range enum {
		if !taken(v) {
			return v
		}
	}
	return enum[0]
}

// wantsPlaceName reports whether a property called name wants a place.
func wantsPlaceName(name string) bool {
	return lexicon.Overlap(stems(strings.ReplaceAll(name, "_", " ")), genericPlaceWords) > 0 || lexicon.Terms(name)["place"]
}
