package instruct

import (
	"regexp"
	"slices"
	"strings"
)

// shapeFrom reads the fields of the JSON object st requires: the top-level
// keys of an object written in st or the next statement, else the
// bulleted "key": lines after it.
func (rd *reader) shapeFrom(st statement) {
	i := slices.IndexFunc(rd.sts, func(s statement) bool { return s.line == st.line && s.text == st.text })
	for _, s := range rd.sts[i:min(i+2, len(rd.sts))] {
		if j := strings.Index(s.text, "{"); j >= 0 {
			rd.topKeys(s.text[j:])
			if len(rd.set.Shape) > 0 {
				return
			}
		}
	}
	for _, s := range rd.sts[i+1:] {
		if m := keyRe.FindStringSubmatch(s.text); m != nil {
			rd.field(m[1], s.text[len(m[0]):])
		}
	}
	if len(rd.set.Shape) == 0 {
		// The fields quoted in the sentence itself, outside brackets.
		rest := jsonRe.Split(st.text, 2)[1]
		for _, m := range valueRe.FindAllStringSubmatch(bracketed.ReplaceAllString(rest, ""), -1) {
			rd.field(m[1], "")
		}
	}
}

var bracketed = regexp.MustCompile(`\([^()]*\)|\{[^{}]*\}|\[[^\[\]]*\]`)

// topKeys reads the keys at depth one of an object written as text, and
// the quoted values after each.
func (rd *reader) topKeys(text string) {
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '"':
			if !quoted && depth == 1 {
				start = i
			}
			quoted = !quoted
			if !quoted && depth == 1 {
				rest := strings.TrimLeft(text[i+1:], " ")
				if strings.HasPrefix(rest, ":") {
					end := strings.IndexAny(rest, ",}")
					if end < 0 {
						end = len(rest)
					}
					rd.field(text[start+1:i], rest[:end])
				}
			}
		case '{', '[':
			if !quoted {
				depth++
			}
		case '}', ']':
			if !quoted {
				depth--
			}
		}
	}
}

var valueRe = regexp.MustCompile(`"([^"]+)"`)

// field adds a field of the shape and the quoted values after it.
func (rd *reader) field(name, rest string) {
	if slices.Contains(rd.set.Shape, name) {
		return
	}
	rd.set.Shape = append(rd.set.Shape, name)
	for _, v := range valueRe.FindAllStringSubmatch(rest, -1) {
		if strings.Contains(rest, "|") {
			rd.set.Values[name] = append(rd.set.Values[name], v[1])
		}
	}
}
