package check

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Regexps holds the regular expressions checks have compiled, by source: a
// suite checks the same few terms in hundreds of answers, and compiling a
// Unicode class costs more than matching a reply. The runner keeps one per
// run. It is safe for concurrent use; the zero value is empty and ready, and
// a nil *Regexps compiles every time.
type Regexps struct {
	compiled sync.Map // source → *regexp.Regexp
}

// compile is regexp.Compile, once per valid expression per Regexps.
func (c *Regexps) compile(expr string) (*regexp.Regexp, error) {
	if c == nil {
		return regexp.Compile(expr)
	}
	if re, ok := c.compiled.Load(expr); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(expr)
	if err == nil {
		c.compiled.Store(expr, re)
	}
	return re, err
}

// checkForbid passes when no term appears in text as a whole word, ignoring
// case. A failure quotes the answer around the first term found.
func checkForbid(res *Regexps, terms []string, text string) string {
	var found []string
	first := -1
	for _, t := range terms {
		re, _ := res.compile(`(?i)(^|[^\pL\pN_])` + regexp.QuoteMeta(t) + `($|[^\pL\pN_])`) // quoted: always compiles
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
