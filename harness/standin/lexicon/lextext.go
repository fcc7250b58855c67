package lexicon

import (
	"regexp"
	"strings"
)

// Text is a message read for the lexicon (lexicon.go): its lowercased
// whole and its lowercased words.
type Text struct {
	raw   string
	Words []string
}

var lexWordRe = regexp.MustCompile(`[\p{L}\p{N}'’+-]+`)

// Read reads s for the lexicon.
func Read(s string) Text {
	raw := strings.ToLower(s)
	var ws []string
	for _, w := range lexWordRe.FindAllString(raw, -1) {
		if w = strings.Trim(w, "'’-"); w != "" {
			ws = append(ws, w)
		}
	}
	return Text{raw: raw, Words: ws}
}

// Has reports whether t names concept c in any language.
func (t Text) Has(c string) bool {
	return len(t.At(c)) > 0
}

// HasIn reports whether t names concept c in language lang.
func (t Text) HasIn(c, lang string) bool {
	return len(t.atWords(concepts[c][lang])) > 0
}

// At returns the index of each word of t where a word of concept c starts;
// a Han or kana match, which has no word index, counts as -1.
func (t Text) At(c string) []int { return t.atWords(ConceptWords(c)) }

// atWords is at for the lexicon words entries.
func (t Text) atWords(entries []string) []int {
	var out []int
	for _, entry := range entries {
		if IsCJK(entry) {
			if strings.Contains(t.raw, entry) {
				out = append(out, -1)
			}
			continue
		}
		parts := strings.Fields(entry)
		for i := range t.Words {
			if t.matchAt(i, parts) {
				out = append(out, i)
			}
		}
	}
	return out
}

func (t Text) matchAt(i int, parts []string) bool {
	if i+len(parts) > len(t.Words) {
		return false
	}
	for j, p := range parts {
		if !WordMatch(t.Words[i+j], p) {
			return false
		}
	}
	return true
}

// WordMatch reports whether word w is the lexicon word p (see lexicon).
func WordMatch(w, p string) bool {
	if prefix, ok := strings.CutSuffix(p, "*"); ok {
		return strings.HasPrefix(w, prefix)
	}
	return w == p || w == p+"s" || w == p+"es"
}

// Near reports whether t names concepts a and b within window words of
// each other (anywhere, when either is matched in Han or kana).
func (t Text) Near(a, b string, window int) bool {
	for _, i := range t.At(a) {
		for _, j := range t.At(b) {
			if i < 0 || j < 0 || abs(i-j) <= window {
				return true
			}
		}
	}
	return false
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
