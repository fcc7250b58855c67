package lexicon

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentreplay/testbed/harness/standin/instruct"
)

// Prose is how a policy writes what the user reads, by what the prompt
// instructs: the answer's language (the language form) and its length
// (the sentences form). Every policy that writes prose writes it through
// one, so a stated rule is obeyed the same way by all of them and an
// unstated one gets the form's default: English, no limit, and a
// closing offer of more help, as a verbose model writes.
type Prose struct {
	Lang string // the answer's language: en, zh, es, fr…
	Max  int    // the most sentences; 0 when no limit is stated
}

// ProseOf is the prose ins asks for, for a user who wrote user.
func ProseOf(ins instruct.Set, user string) Prose {
	return Prose{Lang: answerLanguage(ins, user), Max: ins.Sentences.Max}
}

// answerLanguage is the language the prompt's language rule names: the
// user's, detected from what the user wrote (userLanguage); a named one;
// or, when the prompt states none, English (the form's default).
func answerLanguage(ins instruct.Set, user string) string {
	switch ins.Language {
	case "user":
		return UserLanguage(user)
	case "":
		return "en"
	}
	return ins.Language
}

// UserLanguage tells the language of s by the lexicon's language tags:
// Chinese when it is written in Han characters (Japanese when it has
// kana too), else the language whose lexicon words it says most; English
// when none says more than English does.
func UserLanguage(s string) string {
	han, kana := false, false
	for _, r := range s {
		switch {
		case r >= 0x3040 && r <= 0x30ff:
			kana = true
		case IsCJK(string(r)):
			han = true
		}
	}
	switch {
	case kana:
		return "ja"
	case han:
		return "zh"
	}
	t := Read(s)
	best, score := "en", 0
	counts := map[string]int{}
	for _, byLang := range concepts {
		for lang, words := range byLang {
			for _, w := range words {
				if !IsCJK(w) && t.matchesAny(strings.Fields(w)) {
					counts[lang]++
				}
			}
		}
	}
	score = counts["en"]
	for _, lang := range languages {
		if counts[lang] > score {
			best, score = lang, counts[lang]
		}
	}
	return best
}

// matchesAny reports whether the words parts appear in sequence in t.
func (t Text) matchesAny(parts []string) bool {
	for i := range t.Words {
		if t.matchAt(i, parts) {
			return true
		}
	}
	return false
}

// Say writes format with a, in p's language: the phrasebook's wording of
// format when it has one for the language, else format as given (a weak
// model's partial translation).
func (p Prose) Say(format string, a ...any) string {
	if tr, ok := phrasebook[format][p.Lang]; ok {
		format = tr
	}
	return fmt.Sprintf(format, a...)
}

// closing is the offer of more help a verbose answer ends with.
const closing = "Let me know if there is anything else I can help you with."

// Limit keeps the first sentences of sents the prompt allows; without a
// stated limit it adds the closing offer, in p's language. cut reports
// whether sentences were dropped, verbose whether the offer was added.
func (p Prose) Limit(sents []string) (out []string, cut, verbose bool) {
	if p.Max > 0 {
		if len(sents) > p.Max {
			return sents[:p.Max], true, false
		}
		return sents, false, false
	}
	offer := p.Say(closing)
	if slices.Contains(sents, offer) {
		return sents, false, false
	}
	return append(slices.Clip(sents), offer), false, true
}

// Finish is text as p writes it: cut to the sentences the prompt allows,
// or, without a limit, with the closing offer after it.
func (p Prose) Finish(text string) string {
	out, _, _ := p.Limit(sentencesOf(text))
	return joinSentences(out)
}

// sentencesOf cuts text into sentences, each with the space or line break
// after it: a sentence ends at ".", "!", "?" or "…" before a space, a line
// break or the end, at "。", "！", "？", and at a line break (a list's line
// is a sentence).
func sentencesOf(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		end := -1
		switch {
		case r == '\n':
			end = i + n
		case r == '。' || r == '！' || r == '？':
			end = i + n
		case r == '.' || r == '!' || r == '?' || r == '…':
			if j := i + n; j == len(text) || text[j] == ' ' || text[j] == '\n' {
				end = j
			}
		}
		i += n
		if end < 0 {
			continue
		}
		for end < len(text) && text[end] == ' ' {
			end++
		}
		i = end
		if s := text[start:end]; strings.TrimSpace(s) != "" {
			out = append(out, s)
		} else if len(out) > 0 {
			out[len(out)-1] += s
		}
		start = end
	}
	if strings.TrimSpace(text[start:]) != "" {
		out = append(out, text[start:])
	}
	return out
}

// joinSentences joins sentences cut by sentencesOf (which keep their
// spacing) or written one by one (which get a space between them).
func joinSentences(sents []string) string {
	var b strings.Builder
	for i, s := range sents {
		if i > 0 && !strings.HasSuffix(sents[i-1], " ") && !strings.HasSuffix(sents[i-1], "\n") && !endsCJK(sents[i-1]) {
			b.WriteString(" ")
		}
		b.WriteString(s)
	}
	return strings.TrimRight(b.String(), " \n")
}

func endsCJK(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r == '。' || r == '！' || r == '？'
}
