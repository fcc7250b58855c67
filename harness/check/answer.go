package check

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// excerptLen is how many characters of an answer a Detail quotes.
const excerptLen = 80

// checkContains requires every string in want to be a substring of text.
func checkContains(want []string, text string) string {
	var missing []string
	for _, w := range want {
		if !strings.Contains(text, w) {
			missing = append(missing, strconv.Quote(w))
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("answer lacks %s: %s", strings.Join(missing, ", "), excerpt(text, 0))
}

// checkNotContains forbids every string in want; the Detail quotes the
// answer around the first forbidden string found.
func checkNotContains(forbidden []string, text string) string {
	var found []string
	first := -1
	for _, f := range forbidden {
		if i := strings.Index(text, f); f != "" && i >= 0 {
			found = append(found, strconv.Quote(f))
			if first < 0 || i < first {
				first = i
			}
		}
	}
	if len(found) == 0 {
		return ""
	}
	return fmt.Sprintf("answer contains %s: %s", strings.Join(found, ", "), excerpt(text, first))
}

// checkMatches requires text to match the Go regular expression expr.
func checkMatches(res *Regexps, expr, text string) string {
	re, err := res.compile(expr)
	if err != nil {
		return fmt.Sprintf("bad regexp %s: %v", strconv.Quote(expr), err)
	}
	if re.MatchString(text) {
		return ""
	}
	return fmt.Sprintf("answer does not match /%s/: %s", expr, excerpt(text, 0))
}

// checkLanguage tells "zh" (Han at least 20% of letters) from "en" (Latin at
// least 80% of letters and no Han).
func checkLanguage(lang, text string) string {
	if lang != "zh" && lang != "en" {
		return fmt.Sprintf("unknown language %q (want zh or en)", lang)
	}
	var letters, han, latin int
	for _, r := range text {
		if !unicode.IsLetter(r) {
			continue
		}
		letters++
		switch {
		case unicode.Is(unicode.Han, r):
			han++
		case unicode.Is(unicode.Latin, r):
			latin++
		}
	}
	if letters == 0 {
		return fmt.Sprintf("want %s, got no letters: %s", lang, excerpt(text, 0))
	}
	hanShare := float64(han) / float64(letters)
	latinShare := float64(latin) / float64(letters)
	ok := hanShare >= 0.2
	if lang == "en" {
		ok = latinShare >= 0.8 && han == 0
	}
	if ok {
		return ""
	}
	return fmt.Sprintf("want %s, got %s Han and %s Latin of %d letters: %s",
		lang, percent(hanShare), percent(latinShare), letters, excerpt(text, 0))
}

// excerpt quotes up to excerptLen characters of text starting a little
// before byte offset at, marking cuts with "…".
func excerpt(text string, at int) string {
	start := 0
	if at > 0 {
		// Back up 20 characters, on a rune boundary.
		runes := 0
		for start = at; start > 0 && runes < 20; runes++ {
			start--
			for start > 0 && !utf8.RuneStart(text[start]) {
				start--
			}
		}
	}
	r := []rune(text[start:])
	s := string(r)
	if len(r) > excerptLen {
		s = string(r[:excerptLen]) + "…"
	}
	if start > 0 {
		s = "…" + s
	}
	return strconv.Quote(s)
}
