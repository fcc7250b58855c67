package kura

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/lexicon"
	"github.com/agentreplay/testbed/harness/standin/policy"
)

// kuraQuery is what the Kura planner rules read from a request.
type kuraQuery struct {
	q       string
	text    lexicon.Text
	ws      map[string]any
	reasons bool // the plan format shows a "reasoning" field
	steps   []kuraStep
}

// Planner answers the Kura planner: a plan of steps, by the table
// kuraPlannerRules.
type Planner struct{}

// Name is "kura/planner".
func (Planner) Name() string { return "kura/planner" }

// Accepts reports whether r follows its protocol.
func (Planner) Accepts(r policy.Request) bool {
	return strings.Contains(r.System(), "You are the Planner of Vaya")
}

// Decide answers by kuraPlannerRules and names the rule.
func (Planner) Decide(r policy.Request) (llm.Message, string, error) {
	var in struct {
		Query      string         `json:"query"`
		WorldState map[string]any `json:"world_state"`
	}
	if err := json.Unmarshal([]byte(r.LastUser()), &in); err != nil {
		return llm.Message{}, "", fmt.Errorf("planner input is not JSON: %w", err)
	}
	// A plan format that shows a "reasoning" field on its steps (as the
	// real planner's does) gets one: which action the step takes.
	k := &kuraQuery{q: in.Query, text: lexicon.Read(in.Query), ws: in.WorldState, reasons: strings.Contains(r.System(), `"reasoning"`)}
	return policy.Decide(kuraPlannerRules(), k)
}

// RuleNames lists the names of its rules, in table order.
func (Planner) RuleNames() []string { return policy.Names(kuraPlannerRules()) }

func (k *kuraQuery) add(action string, args map[string]any, forEach ...string) {
	if args == nil {
		args = map[string]any{}
	}
	step := kuraStep{ID: "S" + strconv.Itoa(len(k.steps)+1), Action: action, Args: args, ForEach: forEach}
	if k.reasons {
		step.Reasoning = "the query needs a " + action + " step"
	}
	k.steps = append(k.steps, step)
}

// locate adds the step that finds place, and returns its name in the plan.
func (k *kuraQuery) locate(place string) string {
	if place == "" {
		k.add("Geolocate", nil)
		return "current"
	}
	k.add("Geocode", map[string]any{"address": place})
	return place
}

func (k *kuraQuery) plan() (llm.Message, error) {
	return kuraReply(map[string]any{"steps": k.steps, "status": "planning", "confidence": 0.8})
}

// transit plans Geocode or Geolocate for each end, then Transit.
func (k *kuraQuery) transit(from, to string) (llm.Message, error) {
	args := map[string]any{"origin": k.locate(from), "destination": k.locate(to)}
	if t := kuraDeparture(k.q, k.text, k.ws); t != "" {
		args["departureTime"] = t
	}
	k.add("Transit", args)
	return k.plan()
}

// kuraPlannerRules is the Kura planner's table, tried in order.
func kuraPlannerRules() []policy.Rule[*kuraQuery] {
	return []policy.Rule[*kuraQuery]{
		{Name: "no-letters", Doc: "a query without a letter in any script (emoji, punctuation, digits): prose, not JSON, as a confused model answers",
			Match: func(k *kuraQuery) bool { return !kuraLetter.MatchString(k.q) },
			Act: func(*kuraQuery) (llm.Message, error) {
				return llm.Message{Role: llm.RoleAssistant, Content: "I'm not sure what you need."}, nil
			}},
		{Name: "transit-from-to", Doc: "a from word, a place (or a here word), a to word and a place: locate both ends, then Transit",
			Match: func(k *kuraQuery) bool { _, _, ok := kuraFromTo(k.q); return ok },
			Act: func(k *kuraQuery) (llm.Message, error) {
				from, to, _ := kuraFromTo(k.q)
				return k.transit(from, to)
			}},
		{Name: "transit-go-to", Doc: "a go-to word and a place: from the place after a from word, else from where the user is, then Transit",
			Match: func(k *kuraQuery) bool { return kuraGoTo(k.q) != "" },
			Act: func(k *kuraQuery) (llm.Message, error) {
				from := ""
				for _, tail := range kuraAfter(k.q, "from_place") {
					if p := kuraPlaceIn(tail); p != "" && !strings.EqualFold(p, kuraGoTo(k.q)) {
						from = p
						break
					}
				}
				return k.transit(from, kuraGoTo(k.q))
			}},
		{Name: "places-near", Doc: "a find word, a thing, a near word and a place or a here word: locate it, then Places {query, near}",
			Match: func(k *kuraQuery) bool { _, _, ok := kuraNearby(k.q); return ok },
			Act: func(k *kuraQuery) (llm.Message, error) {
				thing, place, _ := kuraNearby(k.q)
				args := map[string]any{"query": thing}
				if p := k.locate(place); p != "current" {
					args["near"] = p
				}
				k.add("Places", args)
				return k.plan()
			}},
		{Name: "weather", Doc: "a weather, temperature, rain or hot/cold word: Geocode and Weather each place after an in word (forEach for a list), else Geolocate and Weather current",
			Match: func(k *kuraQuery) bool {
				return k.text.Has("weather") || k.text.Has("temperature") || k.text.Has("rain") || k.text.Has("hot_cold")
			},
			Act: func(k *kuraQuery) (llm.Message, error) {
				switch places := kuraWeatherPlaces(k.q); len(places) {
				case 0:
					k.add("Geolocate", nil)
					k.add("Weather", map[string]any{"location": "current"})
				case 1:
					k.add("Geocode", map[string]any{"address": places[0]})
					k.add("Weather", map[string]any{"location": places[0]})
				default:
					k.add("Geocode", map[string]any{"address": "{item}"}, places...)
					k.add("Weather", map[string]any{"location": "{item}"}, places...)
				}
				return k.plan()
			}},
		{Name: "where-am-i", Doc: "a where-am-I word: Geolocate, then ReverseGeocode",
			Match: func(k *kuraQuery) bool { return k.text.Has("where_am_i") },
			Act: func(k *kuraQuery) (llm.Message, error) {
				k.add("Geolocate", nil)
				k.add("ReverseGeocode", nil)
				return k.plan()
			}},
		{Name: "conversation", Doc: "anything else: one Conversation step",
			Match: func(*kuraQuery) bool { return true },
			Act: func(k *kuraQuery) (llm.Message, error) {
				k.add("Conversation", nil)
				return k.plan()
			}},
	}
}

var (
	kuraLetter   = regexp.MustCompile(`\p{L}`)
	kuraListSep  = regexp.MustCompile(`\s*,\s*|\s+(?:and|y|et)\s+|和|及|與|与`)
	kuraSentence = regexp.MustCompile(`[?!;？！。]|\.(?:\s|$)`)
	kuraStreet   = regexp.MustCompile(`^\d+[A-Za-z]?\s+\p{Lu}`)
	kuraHanStop  = "到去的怎今明昨現现天嗎吗呢附在"
	kuraArticles = []string{"a", "an", "some", "the", "me", "un", "une", "des", "du", "de", "la", "le", "unos", "unas", "una", "el", "los", "las"}
)

// kuraParticles may sit inside a capitalised place name.
var kuraParticles = []string{"de", "da", "do", "del", "dos", "das", "la", "le", "of", "the", "upon", "am", "sur"}

// kuraAfter returns the text after each word of concept c in q, earliest
// first.
func kuraAfter(q, c string) []string {
	type at struct {
		i    int
		tail string
	}
	var found []at
	for _, e := range lexicon.ConceptWords(c) {
		if lexicon.IsCJK(e) {
			for i := 0; ; {
				j := strings.Index(q[i:], e)
				if j < 0 {
					break
				}
				i += j + len(e)
				found = append(found, at{i, q[i:]})
			}
			continue
		}
		var parts []string
		for _, p := range strings.Fields(e) {
			parts = append(parts, regexp.QuoteMeta(p))
		}
		re := regexp.MustCompile(`(?i)(?:^|[^\p{L}'’])` + strings.Join(parts, `\s+`) + `(?:\s+|$)`)
		for _, loc := range re.FindAllStringIndex(q, -1) {
			found = append(found, at{loc[1], q[loc[1]:]})
		}
	}
	slices.SortStableFunc(found, func(a, b at) int { return a.i - b.i })
	var out []string
	for _, f := range found {
		out = append(out, f.tail)
	}
	return out
}

// kuraPlaceIn is the place a phrase starts with: a house-number address up
// to the end of its sentence, a run of Han characters, or the leading
// capitalised phrase; "" when it starts with none.
func kuraPlaceIn(tail string) string {
	tail = strings.TrimSpace(tail)
	if kuraStreet.MatchString(tail) {
		return kuraSentenceOf(tail)
	}
	if r, _ := utf8.DecodeRuneInString(tail); unicode.Is(unicode.Han, r) {
		if i := strings.IndexAny(tail, kuraHanStop); i > 0 {
			tail = tail[:i]
		}
		end := strings.IndexFunc(tail, func(r rune) bool { return !unicode.Is(unicode.Han, r) })
		if end >= 0 {
			tail = tail[:end]
		}
		return tail
	}
	return kuraCapitalised(tail)
}

// kuraHereWord is the word meaning where the user is that tail starts
// with ("me", "ici", "這裡"), or "".
func kuraHereWord(tail string) string {
	tail = strings.TrimSpace(tail)
	lower := strings.ToLower(tail)
	for _, w := range lexicon.ConceptWords("here") {
		if !strings.HasPrefix(lower, w) {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(lower[len(w):]); lexicon.IsCJK(w) || len(lower) == len(w) || !unicode.IsLetter(r) {
			return tail[:len(w)]
		}
	}
	return ""
}

// kuraFromTo finds "from X to Y" in any language of the lexicon: X a place
// or a here word ("" then), Y a place, the to word right after X.
func kuraFromTo(q string) (from, to string, ok bool) {
	for _, tail := range kuraAfter(q, "from_place") {
		tail = strings.TrimSpace(tail)
		x := kuraPlaceIn(tail)
		var rest string
		switch w := kuraHereWord(tail); {
		case x != "":
			rest = tail[len(x):]
		case w != "":
			rest = tail[len(w):]
		default:
			continue
		}
		tos := kuraAfter(rest, "to_place")
		if len(tos) == 0 || len(lexicon.Read(rest[:len(rest)-len(tos[0])]).Words) > 1 {
			continue
		}
		if y := kuraPlaceIn(tos[0]); y != "" {
			return x, y, true
		}
	}
	return "", "", false
}

// kuraGoTo is the place after a go-to word, or "".
func kuraGoTo(q string) string {
	for _, tail := range kuraAfter(q, "go_to") {
		if p := kuraPlaceIn(tail); p != "" {
			return p
		}
	}
	return ""
}

// kuraNearby finds "<find word> <thing> <near word> <place or here>".
func kuraNearby(q string) (thing, place string, ok bool) {
	for _, tail := range kuraAfter(q, "find") {
		ends := kuraAfter(tail, "near")
		if len(ends) == 0 {
			continue
		}
		after := ends[0]
		head := strings.TrimSpace(tail[:len(tail)-len(after)])
		// The near word itself ends the head.
		for _, w := range lexicon.ConceptWords("near") {
			if h, cut := strings.CutSuffix(strings.ToLower(head), w); cut {
				head = strings.TrimSpace(head[:len(h)])
				break
			}
		}
		words := strings.Fields(head)
		for len(words) > 1 && slices.Contains(kuraArticles, strings.ToLower(words[0])) {
			words = words[1:]
		}
		if len(words) == 0 {
			continue
		}
		if p := kuraPlaceIn(after); p != "" {
			return strings.Join(words, " "), p, true
		}
		if strings.TrimSpace(after) == "" || kuraHereWord(after) != "" {
			return strings.Join(words, " "), "", true
		}
	}
	return "", "", false
}

// kuraIsPlace reports whether a word looks like a place name: capitalised
// or a house number.
func kuraIsPlace(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r) || unicode.IsDigit(r)
}

// kuraCapitalised returns the leading capitalised phrase of s.
func kuraCapitalised(s string) string {
	words := strings.Fields(s)
	n := 0
	for i := 0; i < len(words); i++ {
		w := words[i]
		if kuraIsPlace(w) && !unicode.IsDigit([]rune(w)[0]) {
			n = i + 1
			continue
		}
		if slices.Contains(kuraParticles, w) && i+1 < len(words) && kuraIsPlace(words[i+1]) {
			continue
		}
		break
	}
	return strings.TrimRight(strings.Join(words[:n], " "), "?!.,;")
}

// kuraSentenceOf returns s up to the end of its first sentence.
func kuraSentenceOf(s string) string {
	if loc := kuraSentence.FindStringIndex(s); loc != nil {
		s = s[:loc[0]]
	}
	return strings.TrimSpace(s)
}

// kuraWeatherPlaces returns the places named after an in word: a list
// split on commas and "and" in any language of the lexicon.
func kuraWeatherPlaces(q string) []string {
	for _, tail := range kuraAfter(q, "in_place") {
		tail = kuraSentenceOf(tail)
		if kuraStreet.MatchString(tail) {
			return []string{tail}
		}
		var out []string
		for _, item := range kuraListSep.Split(tail, -1) {
			p := kuraPlaceIn(item)
			if p == "" {
				break
			}
			out = append(out, p)
			if p != strings.TrimSpace(item) {
				break // the phrase ended inside the item: the list is over
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// kuraClocks are clock times in English ("at 8am", "at 18:00"), Spanish
// ("a las 8"), French ("à 8h30") and Chinese ("8點").
var kuraClocks = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\bat\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?(?:\W|$)`),
	regexp.MustCompile(`(?i)\ba las\s+(\d{1,2})(?::(\d{2}))?()`),
	regexp.MustCompile(`(?i)(?:^|\s)à\s+(\d{1,2})\s*h\s*(\d{2})?()`),
	regexp.MustCompile(`(\d{1,2})\s*[點点](?:(\d{1,2})分)?()`),
}

// kuraDeparture resolves a clock time in q against now in the user's time
// zone; "" when q names none.
func kuraDeparture(q string, t lexicon.Text, ws map[string]any) string {
	var m []string
	for _, re := range kuraClocks {
		if m = re.FindStringSubmatch(q); m != nil {
			break
		}
	}
	if m == nil {
		return ""
	}
	hour, _ := strconv.Atoi(m[1])
	minute, _ := strconv.Atoi(m[2])
	tonight, tomorrow := t.Has("tonight"), t.Has("tomorrow")
	switch ampm := strings.ToLower(strings.ReplaceAll(m[3], ".", "")); {
	case ampm == "pm" && hour < 12, ampm == "" && tonight && hour < 12:
		hour += 12
	case ampm == "am" && hour == 12:
		hour = 0
	}
	if hour > 23 || minute > 59 {
		return ""
	}
	now, err := time.Parse(time.RFC3339, kuraString(ws, "meta", "now"))
	if err != nil {
		return ""
	}
	if loc, err := time.LoadLocation(kuraString(ws, "user", "timezone")); err == nil {
		now = now.In(loc)
	}
	at := time.Date(now.Year(), now.Month(), now.Day(), hour, minute, 0, 0, now.Location())
	switch {
	case tomorrow:
		at = at.AddDate(0, 0, 1)
	case !tonight && !t.Has("today") && at.Before(now):
		at = at.AddDate(0, 0, 1)
	}
	return at.Format(time.RFC3339)
}
