package lexicon

import (
	"iter"
	"slices"
	"strings"
	"unicode"
)

// The words of the generic policy: how it cuts text into comparable terms.
//
// A term is a lowercased word with a simple English stem taken off
// ("forecasts" and "forecasting" are both "forecast"), then mapped through
// the shared lexicon (lexicon.go, its genericConcepts) to its concept, so that "Wetter", "météo" and "天氣" all
// count as "weather". Identifiers split at underscores, dots, dashes and
// camelCase humps ("getWeather" is "get" and "weather"). Stop words never
// count. Han and kana text has no spaces, so the lexicon's CJK words are
// found by substring instead.

// stop are words that carry no meaning for matching a tool.
var stop = SetOf(strings.Fields(`a an the and or of to in on at for by with from is are was be
	it its this that these those what which who how when why do does can could would should will
	me my you your we our i get set please tell give about into as than then there here
	der die das und oder ist ein eine le la les et ou est un une el los las y o es un una`))

// conceptOf is the concept each lexicon word's stem stands for, and
// cjkWords lists the lexicon's words written without spaces.
var conceptOf, cjkWords = lexiconIndex()

// IsStop reports whether w (lowercase) is a stop word: one that carries no
// meaning for matching a tool.
func IsStop(w string) bool { return stop[w] }

// ConceptOf returns the concept the lexicon word w (lowercase) stands for,
// by its stem.
func ConceptOf(w string) (string, bool) {
	c, ok := conceptOf[Stem(w)]
	return c, ok
}

// CJKWords are the lexicon's words written without spaces, in a fixed order.
func CJKWords() iter.Seq[string] { return slices.Values(cjkWords) }

func lexiconIndex() (map[string]string, []string) {
	concept := map[string]string{}
	var cjk []string
	for _, c := range genericConcepts {
		for _, w := range ConceptWords(c) {
			if IsCJK(w) {
				cjk = append(cjk, w)
			}
			concept[Stem(w)] = c
		}
	}
	return concept, cjk
}

// SetOf is the set of words.
func SetOf(words []string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// IsCJK reports whether s has a Han, Hiragana or Katakana letter.
func IsCJK(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) {
			return true
		}
	}
	return false
}

// Stem takes one common English suffix off a lowercased word of five
// letters or more: "ies" becomes "y", then "ing", "ed", "es" and "s" go.
func Stem(w string) string {
	if len([]rune(w)) < 5 || IsCJK(w) {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ing"):
		return w[:len(w)-3]
	case strings.HasSuffix(w, "ed") && len(w) >= 6:
		return w[:len(w)-2]
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "ches"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}

// Terms returns the distinct terms of text (see the top of this file).
func Terms(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range Words(text) {
		w = strings.ToLower(w)
		if stop[w] {
			continue
		}
		s := Stem(w)
		if c, ok := conceptOf[s]; ok {
			s = c
		}
		out[s] = true
	}
	for _, w := range cjkWords {
		if strings.Contains(text, w) {
			out[conceptOf[w]] = true
		}
	}
	return out
}

// Words splits text into words at anything that is not a letter or digit,
// and identifiers at camelCase humps.
func Words(text string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range text {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return out
}

// Overlap counts the terms a and b share.
func Overlap(a, b map[string]bool) int {
	n := 0
	for t := range a {
		if b[t] {
			n++
		}
	}
	return n
}
