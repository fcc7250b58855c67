package instruct

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// Form is one instruction form: its name, what it reads, and the default a
// policy applies when a text does not state it.
type Form struct {
	Name, Doc, Default string
	// cues are words one of which a statement must hold (lowercased) for
	// read to look at it: a cheap test before the form's patterns.
	cues []string
	read func(rd *reader, st statement) bool
}

// Forms lists the forms Read recognises, in the order it applies them.
func Forms() []Form { return slices.Clone(forms) }

var (
	callVerb   = `(?:call|use|run|invoke)`
	firstRe    = regexp.MustCompile(`(?i)\b` + callVerb + `\s+(.+?)\s+first\b|^first,?\s+` + callVerb + `\s+(.+)`)
	onlyAfter  = regexp.MustCompile(`(?i)\bonly after\b(.*?),\s*(?:` + callVerb + `\s+)?(.+)`)
	afterOnly  = regexp.MustCompile(`(?i)\b` + callVerb + `\s+(.+?)\s+only after\b(.+)`)
	beforeRe   = regexp.MustCompile(`(?i)\b` + callVerb + `\s+(.+?)\s+before\s+(?:calling\s+|using\s+)?(.+)`)
	thenRe     = regexp.MustCompile(`(?i)^(.+?),?\s+then\s+(.+)$`)
	forbidRe   = regexp.MustCompile(`(?i)\b(?:never|do not|don't|must not|not)\s+(name|mention|reveal|list|include|count|describe|repeat|show|display|paste|print|dump|call|invoke|use)\b([^.;]*)`)
	condRe     = regexp.MustCompile(`(?i)\b(?:unless|except|when|if|for|before|until|without|only|to)\b`)
	unlessRe   = regexp.MustCompile(`(?i)\b(?:do not|don't|never)\s+` + callVerb + `\s+(.+?)\s+unless\s+(.+)`)
	onlyWhenRe = regexp.MustCompile(`(?i)^` + callVerb + `\s+(.+?)\s+only\s+(?:when|if|for)\s+(.+)`)
	routeRe    = regexp.MustCompile(`(?i)^(?:` + callVerb + `\s+(.+?)|"([^"]+)"|'([^']+)'|` + "`([^`]+)`" + `)\s+(?:when(?:ever)?|if|for)\s+(.+)`)
	forToRe    = regexp.MustCompile(`(?i)^(?:for|to)\s+(.+?),\s*((?:` + callVerb + `|reply|answer|respond|say)\b.+)`)
	instrRe    = regexp.MustCompile(`(?i)^(\pL+\b.*?)\s+(?:with|using)\s+(?:the\s+)?([` + "`" + `'"]?[\w.-]+[` + "`" + `'"]?)`)
	callStart  = regexp.MustCompile(`(?i)^` + callVerb + `\b`)
	hintRe     = regexp.MustCompile(`(?i)\buse the\s+['"` + "`" + `]?([\w.-]+)['"` + "`" + `]?\s+tool\s+to\s+(.+)`)
	elseRe     = regexp.MustCompile(`(?i)^(?:everything else|anything else|all else|the rest|other(?:s| questions)?|otherwise)\b`)
	formatRe   = regexp.MustCompile(`(?i)\bformat\s+(.+?)\s+(?:like|as)\s+(.+)`)
	quotedRe   = regexp.MustCompile(`"([^"]+)"([^"]*)`)
	countWord  = `(one|two|three|four|five|six|\d+)`
	rangeRe    = regexp.MustCompile(`(?i)\b(?:answer|reply|respond|write|keep)\b.*?\bin\s+` + countWord + `\s+(?:to|or|-)\s+` + countWord + `\s+(?:\w+\s+)?sentences?\b`)
	singleRe   = regexp.MustCompile(`(?i)\b(?:answer|reply|respond|write|keep)\b.*?\bin\s+(?:a single|` + countWord + `)\s+(?:\w+\s+)?sentences?\b`)
	mentionRe  = regexp.MustCompile(`(?i)\b(?:mention|say|show)\s+"([^"]+)"\s+only\s+(?:when|if)\s+(.+)`)
	userLangRe = regexp.MustCompile(`(?i)\b(?:answer|reply|respond|write)\b.*?\bin the user'?s language\b`)
	namedLang  = regexp.MustCompile(`(?i)\b(?:answer|reply|respond|write)\b.*?\bin (english|spanish|french|chinese|german|japanese|portuguese)\b`)
	jsonRe     = regexp.MustCompile(`(?i)\b(?:reply|respond|answer|return|output)\s+with\s+(?:one|a|an|only one)\s+json object\b`)
	keyRe      = regexp.MustCompile(`^"(\w+)"\s*:`)
	defaultRe  = regexp.MustCompile(`(?i)\b"?(\w+)"?\s+(?:defaults?\s+to\s+(\[[^\]]*\]|"[^"]*"|[\w.-]+)|(\[[^\]]*\]|"[^"]*")\s+by default)`)
	mayRe      = regexp.MustCompile(`(?i)\byou may (?:say|answer|reply)\s+"([^"]+)"`)
)

var langCodes = map[string]string{"english": "en", "spanish": "es", "french": "fr", "chinese": "zh", "german": "de", "japanese": "ja", "portuguese": "pt"}

var numbers = map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}

func count(w string) int {
	if n, ok := numbers[strings.ToLower(w)]; ok {
		return n
	}
	return atoi(w)
}

var forms = []Form{
	{Name: "call-first", cues: []string{"first"}, Doc: `"call X first", "first, call X": X before every other tool`,
		Default: "tools in the order the request lists them",
		read: func(rd *reader, st statement) bool {
			m := firstRe.FindStringSubmatch(st.text)
			if m == nil {
				return false
			}
			ts := rd.toolsIn(m[1] + m[2])
			rd.set.First = append(rd.set.First, ts...)
			return len(ts) > 0
		}},
	{Name: "only-after", cues: []string{"only after"}, Doc: `"only after X, call Y", "call Y only after X": Y after X; an X that names no tool means after the earlier numbered steps`,
		Default: "tools in the order the request lists them",
		read: func(rd *reader, st statement) bool {
			var before, after []string
			if m := onlyAfter.FindStringSubmatch(st.text); m != nil {
				before, after = rd.toolsIn(m[1]), rd.toolsIn(m[2])
			} else if m := afterOnly.FindStringSubmatch(st.text); m != nil {
				before, after = rd.toolsIn(m[2]), rd.toolsIn(m[1])
			} else {
				return false
			}
			if len(before) == 0 && st.step > 0 {
				before = rd.stepTools(func(n int) bool { return n < st.step })
			}
			return rd.order(before, after)
		}},
	{Name: "before", cues: []string{"before"}, Doc: `"call X before Y": X before Y`,
		Default: "tools in the order the request lists them",
		read: func(rd *reader, st statement) bool {
			m := beforeRe.FindStringSubmatch(st.text)
			return m != nil && rd.order(rd.toolsIn(m[1]), rd.toolsIn(m[2]))
		}},
	{Name: "then", cues: []string{"then"}, Doc: `"X, then Y" naming a tool on each side: X before Y`,
		Default: "tools in the order the request lists them",
		read: func(rd *reader, st statement) bool {
			m := thenRe.FindStringSubmatch(st.text)
			return m != nil && rd.order(rd.toolsIn(m[1]), rd.toolsIn(m[2]))
		}},
	{Name: "numbered-steps", Doc: "numbered steps naming tools: a step's tools before the tools of every later step",
		Default: "tools in the order the request lists them",
		read: func(rd *reader, st statement) bool {
			if st.step == 0 {
				return false
			}
			return rd.order(rd.stepTools(func(n int) bool { return n < st.step }), rd.toolsIn(st.text))
		}},
	{Name: "prohibition", cues: []string{"never", "not", "n't"}, Doc: `"never / do not name, mention, reveal, list, include, count, describe X" (verb "name"), "show, display, paste, print X" (verb "show") or, with no condition after it, "call, invoke, use X" (verb "call"); X a text, the tools it names, or the tools listed under the heading it points to ("them", "these tools", a word of the heading)`,
		Default: "nothing forbidden: internal tools named when asked, raw values shown",
		read: func(rd *reader, st statement) bool {
			ms := forbidRe.FindAllStringSubmatch(st.text, -1)
			before := len(rd.set.Forbid)
			for _, m := range ms {
				verb := "name"
				switch v := strings.ToLower(m[1]); {
				case slices.Contains([]string{"show", "display", "paste", "print", "dump"}, v):
					verb = "show"
				case slices.Contains([]string{"call", "invoke", "use"}, v):
					verb = "call"
				}
				obj := strings.TrimSpace(m[2])
				if verb == "call" && condRe.MatchString(obj) {
					continue // a condition on calling: call-only-when, a route
				}
				tools := rd.toolsIn(obj)
				if len(tools) == 0 && (obj != "" || st.isHead) {
					tools = rd.groupOf(st, obj)
				}
				rd.set.Forbid = append(rd.set.Forbid, Forbid{Verb: verb, Object: obj, Tools: tools})
			}
			return len(rd.set.Forbid) > before
		}},
	{Name: "call-only-when", cues: []string{"unless", "only"}, Doc: `"do not call X unless C", "call X only when C": a route to X for C only (a policy calls X only for a question that meets C)`,
		Default: "a tool is called whenever the lexicon says its purpose",
		read: func(rd *reader, st statement) bool {
			var tools []string
			var when string
			if m := unlessRe.FindStringSubmatch(st.text); m != nil {
				tools, when = rd.toolsIn(m[1]), m[2]
			} else if m := onlyWhenRe.FindStringSubmatch(st.text); m != nil {
				tools, when = rd.toolsIn(m[1]), m[2]
			}
			for _, t := range tools {
				rd.set.Routes = append(rd.set.Routes, Route{Target: t, When: clean(when), Only: true})
			}
			return len(tools) > 0
		}},
	{Name: "route", cues: []string{"when", "for", "to ", "if", "with", "using"}, Doc: `"use X when / for C", "\"X\" when / for C", "for C, call X", "to C, use X", "use the 'X' tool to C", "C with X" or "C using X" (C an imperative other than calling, X a tool); a C of "anything else", "all else", "the rest", "otherwise" makes the rule for the rest; "for C, reply …" prescribes a reply`,
		Default: "no route: a tool chosen by its description, a value by its order",
		read: func(rd *reader, st statement) bool {
			if onlyWhenRe.MatchString(st.text) || st.isHead {
				return false
			}
			if m := routeRe.FindStringSubmatch(st.text); m != nil {
				target := m[2] + m[3] + m[4]
				if m[1] != "" {
					if ts := rd.toolsIn(m[1]); len(ts) > 0 {
						target = ts[0]
					}
				}
				if target != "" {
					rd.route(target, m[5], "")
					return true
				}
			}
			if m := hintRe.FindStringSubmatch(st.text); m != nil {
				rd.route(m[1], m[2], "")
				return true
			}
			if m := instrRe.FindStringSubmatch(st.text); m != nil && !callStart.MatchString(m[1]) {
				if ts := rd.toolsIn(m[2]); len(ts) > 0 {
					rd.route(ts[0], m[1], "")
					return true
				}
			}
			if m := forToRe.FindStringSubmatch(st.text); m != nil {
				if ts := rd.toolsIn(m[2]); len(ts) > 0 && regexp.MustCompile(`(?i)^`+callVerb+`\b`).MatchString(m[2]) {
					rd.route(ts[0], m[1], "")
					return true
				}
				if regexp.MustCompile(`(?i)^(?:reply|answer|respond|say)\b`).MatchString(m[2]) {
					rd.route("", m[1], m[2])
					return true
				}
			}
			return false
		}},
	{Name: "format-example", cues: []string{"format"}, Doc: `"format X like "EX" (or "EX2" in …)": X written as the literal examples are, each with the words after it`,
		Default: "values as the data gives them, with the data's own unit word",
		read: func(rd *reader, st statement) bool {
			m := formatRe.FindStringSubmatch(st.text)
			if m == nil {
				return false
			}
			f := Format{What: m[1]}
			for _, q := range quotedRe.FindAllStringSubmatch(m[2], -1) {
				qual := strings.TrimSpace(strings.Trim(clean(q[2]), "()"))
				qual = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(qual, "or "), "or"))
				f.Examples = append(f.Examples, Example{Text: q[1], Qualifier: clean(qual)})
			}
			if len(f.Examples) == 0 {
				return false
			}
			rd.set.Formats = append(rd.set.Formats, f)
			return true
		}},
	{Name: "sentences", cues: []string{"sentence"}, Doc: `an answering verb, then "in N to M sentences" or "in N sentences" ("respond in two to four short sentences", "write in a single sentence"): the answer's length; a statement under a heading that names a tool, or in a routing rule, is about that case only`,
		Default: "no limit: every item the data holds, and a closing offer of more help",
		read: func(rd *reader, st statement) bool {
			if rd.scoped(st) {
				return false
			}
			if m := rangeRe.FindStringSubmatch(st.text); m != nil {
				rd.set.Sentences = Range{Min: count(m[1]), Max: count(m[2])}
				return true
			}
			if m := singleRe.FindStringSubmatch(st.text); m != nil {
				n := 1
				if m[1] != "" {
					n = count(m[1])
				}
				rd.set.Sentences = Range{Min: 1, Max: n}
				return true
			}
			return false
		}},
	{Name: "mention-only-when", cues: []string{"only"}, Doc: `"mention "X" only when C": X said only when C holds`,
		Default: "X said whenever the data has it",
		read: func(rd *reader, st statement) bool {
			m := mentionRe.FindStringSubmatch(st.text)
			if m != nil {
				rd.set.Mentions = append(rd.set.Mentions, Mention{What: m[1], When: clean(m[2])})
			}
			return m != nil
		}},
	{Name: "language", cues: []string{"language", "english", "spanish", "french", "chinese", "german", "japanese", "portuguese"}, Doc: `an answering verb, then "in the user's" and "language", or "in" and a language's English name ("respond in Spanish"): the answer's language`,
		Default: "English",
		read: func(rd *reader, st statement) bool {
			if userLangRe.MatchString(st.text) {
				rd.set.Language = "user"
				return true
			}
			if m := namedLang.FindStringSubmatch(st.text); m != nil {
				rd.set.Language = langCodes[strings.ToLower(m[1])]
				return true
			}
			return false
		}},
	{Name: "json-shape", cues: []string{"json"}, Doc: `an answering verb, "with", one or a, and "JSON object" ("return with a JSON object"): its fields, from the object written after it ({"a": …, "b": …}, top-level keys) or the bulleted "\"key\": …" lines that follow, with the quoted values listed for each ("x" | "y"); a statement under a heading that names a tool is about that tool (what its description says it takes or gives), not the answer`,
		Default: "prose, no JSON object",
		read: func(rd *reader, st statement) bool {
			if !jsonRe.MatchString(st.text) || len(rd.toolsIn(st.heading)) > 0 {
				return false
			}
			rd.set.Shape = []string{}
			rd.shapeFrom(st)
			return true
		}},
	{Name: "default-value", cues: []string{"default"}, Doc: `"X defaults to V", "X V by default": the value of argument or field X when the request gives none (V read as JSON, else as a word)`,
		Default: "the argument left out",
		read: func(rd *reader, st statement) bool {
			ms := defaultRe.FindAllStringSubmatch(st.text, -1)
			for _, m := range ms {
				v := m[2] + m[3]
				var val any
				if json.Unmarshal([]byte(v), &val) != nil {
					val = v
				}
				rd.set.Defaults[m[1]] = val
			}
			return len(ms) > 0
		}},
	{Name: "may-say", cues: []string{"may "}, Doc: `"you may say "S"": a literal sentence allowed where the text restricts what is said`,
		Default: "the policy's own words",
		read: func(rd *reader, st statement) bool {
			m := mayRe.FindStringSubmatch(st.text)
			if m != nil {
				rd.set.Allowed = append(rd.set.Allowed, m[1])
			}
			return m != nil
		}},
}

// order records that every tool of before precedes every tool of after.
func (rd *reader) order(before, after []string) bool {
	added := false
	for _, b := range before {
		for _, a := range after {
			if a != b && !slices.Contains(rd.set.Order, Pair{b, a}) {
				rd.set.Order = append(rd.set.Order, Pair{b, a})
				added = true
			}
		}
	}
	return added
}

// stepTools is every tool named in a numbered step whose number keep takes.
func (rd *reader) stepTools(keep func(int) bool) []string {
	var out []string
	for _, st := range rd.sts {
		if st.step > 0 && keep(st.step) {
			for _, t := range rd.toolsIn(st.text) {
				if !slices.Contains(out, t) {
					out = append(out, t)
				}
			}
		}
	}
	return out
}

// groupOf is the names listed under the heading a prohibition's object
// points to: for a heading, its own list, else a list under a heading
// sharing a word with it; for a pronoun ("them", "these"), the list of
// the statement's heading, else the last list before it; otherwise a list
// under a heading sharing a word of four letters or more with the object.
func (rd *reader) groupOf(st statement, obj string) []string {
	ws := wordsOf(obj)
	pronoun := slices.ContainsFunc(ws, func(w string) bool { return w == "them" || w == "these" || w == "they" || w == "it" })
	if (st.isHead || pronoun) && len(rd.groups[st.heading]) > 0 {
		return rd.groups[st.heading]
	}
	if st.isHead {
		ws = wordsOf(forbidRe.ReplaceAllString(st.text, ""))
	} else if pronoun {
		last := ""
		for h, at := range rd.groupAt {
			if at < st.line && (last == "" || at > rd.groupAt[last]) {
				last = h
			}
		}
		return rd.groups[last]
	}
	for _, h := range slices.Sorted(maps.Keys(rd.groups)) {
		for _, w := range ws {
			if len(w) >= 4 && !groupStop[w] && saysAny(h, []string{w}) {
				return rd.groups[h]
			}
		}
	}
	return nil
}

// groupStop are words too common in headings to point to one.
var groupStop = map[string]bool{"users": true, "user": true, "tools": true, "tool": true, "never": true, "with": true, "your": true}

// scoped reports whether st speaks of one case: under a heading that names
// a tool, or inside a routing rule.
func (rd *reader) scoped(st statement) bool {
	return len(rd.toolsIn(st.heading)) > 0 || forToRe.MatchString(st.text) || routeRe.MatchString(st.text)
}

// route records a routing rule.
func (rd *reader) route(target, when, reply string) {
	when = clean(when)
	rd.set.Routes = append(rd.set.Routes, Route{Target: target, When: when, Else: elseRe.MatchString(when), Reply: clean(reply)})
}

// clean trims the end of a sentence from a clause.
func clean(s string) string { return strings.TrimRight(strings.TrimSpace(s), ".;:") }
