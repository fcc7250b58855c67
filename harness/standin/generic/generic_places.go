package generic

import (
	"github.com/agentreplay/testbed/harness/standin/lexicon"
	"regexp"
	"slices"
	"strings"
)

// Place names in the user's text, for the generic policy: capitalised
// spans of words (Paris, New York, São Paulo, Rio de Janeiro), or in Han
// text the run before the first lexicon word.

var (
	genericSpan = regexp.MustCompile(`\p{Lu}[\p{L}'’.-]*(?:[ \t]+(?:de[ \t]+|la[ \t]+|del[ \t]+)?\p{Lu}[\p{L}'’.-]*)*`)
	genericPrep = regexp.MustCompile(`(?i)(?:^|\s)(?:in|at|for|to|from|near|around|à|en|de|für|nach|bei|para|cerca)\s+$`)
	genericHan  = regexp.MustCompile(`[\p{Han}\p{Hiragana}\p{Katakana}]+`)
)

// span is a capitalised span of text (see trimSpan), where it ends, and
// whether it follows a preposition or starts a sentence.
type span struct {
	text        string
	from, to    int
	prep, first bool
}

// capitalised returns text's capitalised spans. A span that starts a
// sentence loses its first word when it has several ("Compare Paris" is
// Paris, and so, a limit, "New York is cold" is York).
func capitalised(text string) []span {
	var out []span
	for _, loc := range genericSpan.FindAllStringIndex(text, -1) {
		before := strings.TrimSpace(text[:loc[0]])
		sp := span{from: loc[0], to: loc[1], prep: genericPrep.MatchString(text[:loc[0]]),
			first: before == "" || strings.ContainsAny(before[len(before)-1:], ".!?")}
		raw := text[loc[0]:loc[1]]
		if ws := strings.Fields(raw); sp.first && len(ws) > 1 {
			raw = strings.Join(ws[1:], " ")
		}
		if sp.text = trimSpan(raw); sp.text != "" {
			out = append(out, sp)
		}
	}
	return out
}

// places returns the place names of text: capitalised spans, those after a
// preposition first, those starting a sentence last; in text with no such
// span, the Han run before the first lexicon word, without day words.
func places(text string) []string {
	var after, inner, first []string
	for _, sp := range capitalised(text) {
		switch {
		case sp.prep:
			after = append(after, sp.text)
		case sp.first:
			first = append(first, sp.text)
		default:
			inner = append(inner, sp.text)
		}
	}
	if out := slices.Concat(after, inner, first); len(out) > 0 {
		return out
	}
	for _, run := range genericHan.FindAllString(text, -1) {
		cut := len(run)
		for w := range lexicon.CJKWords() {
			if i := strings.Index(run, w); i >= 0 && i < cut {
				cut = i
			}
		}
		head := run[:cut]
		for _, rel := range genericRelative {
			head = rel.re.ReplaceAllString(head, "")
		}
		head = strings.TrimRight(head, "的之の")
		if head != "" {
			return []string{head}
		}
	}
	return nil
}

// trimSpan drops the leading and trailing words of a capitalised span that
// are stop words or relative day words, and the whole span when what is
// left is only lexicon words ("Weather", but not "New York").
func trimSpan(span string) string {
	ws := strings.Fields(span)
	plain := func(w string) bool {
		lw := strings.ToLower(strings.Trim(w, "'’.-"))
		if lw == "" || lexicon.IsStop(lw) {
			return true
		}
		for _, rel := range genericRelative {
			if rel.re.MatchString(lw) {
				return true
			}
		}
		parts := lexicon.Words(lw)
		return len(parts) > 1 && lexicon.IsStop(parts[0]) // "What's"
	}
	for len(ws) > 0 && plain(ws[0]) {
		ws = ws[1:]
	}
	for len(ws) > 0 && plain(ws[len(ws)-1]) {
		ws = ws[:len(ws)-1]
	}
	lexical := true
	for _, w := range ws {
		if _, ok := lexicon.ConceptOf(strings.ToLower(strings.Trim(w, "'’.-"))); !ok {
			lexical = false
		}
	}
	if lexical {
		return ""
	}
	return strings.TrimRight(strings.Join(ws, " "), "'’.-")
}

// listedPlaces returns the places of text when it lists two or more of
// them joined by commas or "and" (in the lexicon's languages): a request
// for several.
func listedPlaces(text string) []string {
	sps := capitalised(text)
	var out []string
	for i, sp := range sps {
		joined := i > 0 && genericJoin.MatchString(text[sps[i-1].to:sp.from])
		switch {
		case len(out) == 0 || joined:
			out = append(out, sp.text)
		case len(out) < 2:
			out = []string{sp.text}
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

var genericJoin = regexp.MustCompile(`(?i)^\s*(?:,\s*(?:and\s+)?|and|und|et|y|&|和|與|与|跟)\s*$`)
