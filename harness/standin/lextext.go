package standin

import (
	"regexp"
	"strings"
)

// lexText is a message read for the lexicon (lexicon.go): its lowercased
// whole and its lowercased words.
type lexText struct {
	raw   string
	words []string
}

var lexWordRe = regexp.MustCompile(`[\p{L}\p{N}'’+-]+`)

// readText reads s for the lexicon.
func readText(s string) lexText {
	raw := strings.ToLower(s)
	var ws []string
	for _, w := range lexWordRe.FindAllString(raw, -1) {
		if w = strings.Trim(w, "'’-"); w != "" {
			ws = append(ws, w)
		}
	}
	return lexText{raw: raw, words: ws}
}

// has reports whether t names concept c in any language.
func (t lexText) has(c string) bool {
	return len(t.at(c)) > 0
}

// hasIn reports whether t names concept c in language lang.
func (t lexText) hasIn(c, lang string) bool {
	return len(t.atWords(lexicon[c][lang])) > 0
}

// at returns the index of each word of t where a word of concept c starts;
// a Han or kana match, which has no word index, counts as -1.
func (t lexText) at(c string) []int { return t.atWords(lexiconWords(c)) }

// atWords is at for the lexicon words entries.
func (t lexText) atWords(entries []string) []int {
	var out []int
	for _, entry := range entries {
		if isCJK(entry) {
			if strings.Contains(t.raw, entry) {
				out = append(out, -1)
			}
			continue
		}
		parts := strings.Fields(entry)
		for i := range t.words {
			if t.matchAt(i, parts) {
				out = append(out, i)
			}
		}
	}
	return out
}

func (t lexText) matchAt(i int, parts []string) bool {
	if i+len(parts) > len(t.words) {
		return false
	}
	for j, p := range parts {
		if !lexWordMatch(t.words[i+j], p) {
			return false
		}
	}
	return true
}

// lexWordMatch reports whether word w is the lexicon word p (see lexicon).
func lexWordMatch(w, p string) bool {
	if prefix, ok := strings.CutSuffix(p, "*"); ok {
		return strings.HasPrefix(w, prefix)
	}
	return w == p || w == p+"s" || w == p+"es"
}

// near reports whether t names concepts a and b within window words of
// each other (anywhere, when either is matched in Han or kana).
func (t lexText) near(a, b string, window int) bool {
	for _, i := range t.at(a) {
		for _, j := range t.at(b) {
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
