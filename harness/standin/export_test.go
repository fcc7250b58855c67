package standin

import (
	"github.com/agentreplay/testbed/harness/standin/lexicon"
	"github.com/agentreplay/testbed/harness/standin/policy"
)

// ruleNames returns the names of a table's rules, in order.
func ruleNames[C any](table []policy.Rule[C]) []string {
	var out []string
	for _, r := range table {
		out = append(out, r.Name)
	}
	return out
}

// RuleNames returns the names of the rules of the policy named, in table
// order (for the CBA policy, its turn rules then its intent rules), so that
// specs can see that every rule has one.
func RuleNames(policy string) []string {
	var intents []string
	for _, r := range cbaIntents() {
		intents = append(intents, r.name)
	}
	return map[string][]string{
		"cba/assistant":             append(ruleNames(cbaRules()), intents...),
		"climate/advisor":           ruleNames(climateRules()),
		"odbchat/router":            ruleNames(routerRules()),
		"odbchat/classifier":        ruleNames(classifierRules()),
		"odbchat/onepass":           ruleNames(onePassRules()),
		"kura/planner":              ruleNames(kuraPlannerRules()),
		"kura/executor":             ruleNames(kuraExecutorRules()),
		"kura/synthesizer":          ruleNames(kuraSynthesizerRules()),
		"family/default":            ruleNames(familyRules()),
		"family/data_visualization": ruleNames(vizRules()),
		GenericName:                 ruleNames(genericRules),
	}[policy]
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
