package check

import (
	"fmt"
	"regexp"
	"strings"
)

// checkForbid passes when no term appears in text as a whole word, ignoring
// case. A failure quotes the answer around the first term found.
func checkForbid(terms []string, text string) string {
	var found []string
	first := -1
	for _, t := range terms {
		re := regexp.MustCompile(`(?i)(^|[^\pL\pN_])` + regexp.QuoteMeta(t) + `($|[^\pL\pN_])`)
		if loc := re.FindStringIndex(text); loc != nil {
			found = append(found, fmt.Sprintf("%q", t))
			if first < 0 || loc[0] < first {
				first = loc[0]
			}
		}
	}
	if len(found) == 0 {
		return ""
	}
	return fmt.Sprintf("answer names forbidden %s: %q", strings.Join(found, ", "), around(text, first))
}

// around returns up to 40 characters either side of byte offset i.
func around(s string, i int) string {
	r := []rune(s)
	at := len([]rune(s[:i]))
	lo, hi := max(0, at-40), min(len(r), at+40)
	out := string(r[lo:hi])
	if lo > 0 {
		out = "…" + out
	}
	if hi < len(r) {
		out += "…"
	}
	return out
}
