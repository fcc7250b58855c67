package standin

import (
	"github.com/agentreplay/testbed/harness/standin/lexicon"
)

// RuleNames returns the names of the rules of the policy named, in table
// order (for the CBA policy, its turn rules then its intent rules), so that
// specs can see that every rule has one.
func RuleNames(name string) []string {
	for _, p := range Policies() {
		if r, ok := p.(interface{ RuleNames() []string }); ok && p.Name() == name {
			return r.RuleNames()
		}
	}
	return nil
}

// LexiconLanguages returns, for each concept of the lexicon, the languages
// that have words for it.
func LexiconLanguages() map[string][]string {
	out := map[string][]string{}
	for c, langs := range lexicon.Concepts {
		for l, words := range langs {
			if len(words) > 0 {
				out[c] = append(out[c], l)
			}
		}
	}
	return out
}

// Mentions reports whether text names concept c, as the policies read it.
func Mentions(text, c string) bool { return lexicon.Read(text).Has(c) }

// Near reports whether text names concepts a and b within window words.
func Near(text, a, b string, window int) bool { return lexicon.Read(text).Near(a, b, window) }
