package standin

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents/llm"
)

// ODBchat policies. They recognise the agent's prompts by the protocol each
// demands, and decide by tables of named rules over the shared lexicon's
// concepts (code, definition, sst, temperature near sea, now, yesterday, day_before_yesterday,
// and the place words of registry keys), coordinates, bbox lists and
// dates:
//
//   - code: the question asks for a program;
//   - explain: a definition question, or one with neither an SST word nor
//     coordinates with a date word (the catalog's tools take nothing but a
//     place and a day);
//   - mcp: a point (121.7E,24.0N · (23N, 123E) · (123,25)), a bbox list of
//     four numbers, or a key of the request's geo_registry whose place
//     words the question names (registryRegion).
//
// Dates: YYYY-MM-DD as written; a now word → now; yesterday → now−1; the
// day before yesterday → now−2; no date word → no date argument. A
// paraphrase without these words is routed to explain, as a weak model
// might.

var (
	bboxRe  = regexp.MustCompile(`\[\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*\]`)
	hemiRe  = regexp.MustCompile(`(?i)(\d+(?:\.\d+)?)\s*°?\s*([EWNS])\b`)
	plainRe = regexp.MustCompile(`[(（]\s*(-?\d+(?:\.\d+)?)\s*[,，]\s*(-?\d+(?:\.\d+)?)\s*[)）]`)
	dateRe  = regexp.MustCompile(`\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})\b`)
)

type odbchatRouter struct{}

func (odbchatRouter) Name() string { return "odbchat/router" }

func (odbchatRouter) Accepts(r Request) bool {
	return strings.Contains(r.System(), "single-pass classifier+router")
}

// routerInput is the JSON user message the router sends.
type routerInput struct {
	Query       string               `json:"query"`
	Now         string               `json:"now"`
	GeoRegistry map[string][]float64 `json:"geo_registry"`
}

// odbQuestion is what the ODBchat rules read from a question.
type odbQuestion struct {
	q        string
	text     lexText
	date     string // the date asked for, or ""
	lon, lat float64
	point    bool
	bbox     []float64 // a written bbox list
	region   string    // the registry key the question names, or ""
}

func readODBQuestion(q string, now time.Time, registry map[string][]float64) *odbQuestion {
	o := &odbQuestion{q: q, text: readText(q)}
	o.date = dateOf(o.text, q, now)
	o.lon, o.lat, o.point = pointOf(q)
	if m := bboxRe.FindStringSubmatch(q); m != nil {
		for _, s := range m[1:] {
			f, _ := strconv.ParseFloat(s, 64)
			o.bbox = append(o.bbox, f)
		}
	}
	o.region = registryRegion(o.text, registry)
	return o
}

// sst reports an SST word (or a temperature word within three words of a
// sea word), or coordinates with a date word.
func (o *odbQuestion) sst() bool {
	return o.hasSST() || (o.point || o.bbox != nil) && o.date != ""
}

// hasSST reports an SST word, or a temperature word within three words of
// a sea word ("temperatura del océano").
func (o *odbQuestion) hasSST() bool {
	return o.text.has("sst") || o.text.near("temperature", "sea", 3)
}

func (p odbchatRouter) Answer(r Request) (llm.Message, error) {
	m, _, err := p.Decide(r)
	return m, err
}

// Decide answers by routerRules and names the rule.
func (odbchatRouter) Decide(r Request) (llm.Message, string, error) {
	var in routerInput
	if err := json.Unmarshal([]byte(r.LastUser()), &in); err != nil || in.Query == "" {
		return llm.Message{}, "", fmt.Errorf("router user message is not the JSON {query, now, …} the protocol asks for")
	}
	now, err := time.Parse(time.DateOnly, in.Now)
	if err != nil {
		return llm.Message{}, "", fmt.Errorf("router input has no valid now: %q", in.Now)
	}
	return decide(routerRules(), readODBQuestion(in.Query, now, in.GeoRegistry))
}

type plan struct {
	Decision         string         `json:"decision"`
	Confidence       float64        `json:"confidence"`
	Tool             map[string]any `json:"tool"`
	Rationale        string         `json:"rationale"`
	NeedsFollowup    bool           `json:"needs_followup"`
	FollowupQuestion *string        `json:"followup_question"`
}

func (p plan) message() (llm.Message, error) {
	b, _ := json.Marshal(p)
	return llm.Message{Role: llm.RoleAssistant, Content: string(b)}, nil
}

// toolArgs are the arguments every GHRSST call gets: the fields, and the
// date when one was asked for.
func (o *odbQuestion) toolArgs() map[string]any {
	args := map[string]any{"fields": []string{"sst", "sst_anomaly"}}
	if o.date != "" {
		args["date"] = o.date
	}
	return args
}

func toolPlan(name string, args map[string]any, conf float64, why string) (llm.Message, error) {
	return plan{Decision: "mcp", Confidence: conf, Tool: map[string]any{"name": name, "arguments": args}, Rationale: why}.message()
}

// routerRules is the ODBchat router's table, tried in order.
func routerRules() []rule[*odbQuestion] {
	return []rule[*odbQuestion]{
		{name: "code", doc: "a code word: the code branch",
			match: func(o *odbQuestion) bool { return o.text.has("code") },
			act: func(*odbQuestion) (llm.Message, error) {
				return plan{Decision: "code", Confidence: 0.76, Rationale: "Asks for a program."}.message()
			}},
		{name: "definition", doc: "a definition word: the explain branch, even with an SST word",
			match: func(o *odbQuestion) bool { return o.text.has("definition") },
			act: func(*odbQuestion) (llm.Message, error) {
				return plan{Decision: "explain", Confidence: 0.71, Rationale: "A concept or documentation question."}.message()
			}},
		{name: "not-data", doc: "neither an SST word nor coordinates with a date word: the explain branch",
			match: func(o *odbQuestion) bool { return !o.sst() },
			act: func(*odbQuestion) (llm.Message, error) {
				return plan{Decision: "explain", Confidence: 0.71, Rationale: "A concept or documentation question."}.message()
			}},
		{name: "point", doc: "a coordinate pair: ghrsst.point_value at it",
			match: func(o *odbQuestion) bool { return o.point },
			act: func(o *odbQuestion) (llm.Message, error) {
				args := o.toolArgs()
				args["longitude"], args["latitude"] = o.lon, o.lat
				return toolPlan("ghrsst.point_value", args, 0.82, "SST at a point.")
			}},
		{name: "bbox", doc: "a bbox list of four numbers: ghrsst.bbox_mean over it, as written",
			match: func(o *odbQuestion) bool { return o.bbox != nil },
			act: func(o *odbQuestion) (llm.Message, error) {
				args := o.toolArgs()
				args["bbox"] = o.bbox
				return toolPlan("ghrsst.bbox_mean", args, 0.78, "Mean SST over a box.")
			}},
		{name: "registry-region", doc: "a geo_registry key whose place words the question names: ghrsst.bbox_mean over that key",
			match: func(o *odbQuestion) bool { return o.region != "" },
			act: func(o *odbQuestion) (llm.Message, error) {
				args := o.toolArgs()
				args["bbox"] = o.region
				return toolPlan("ghrsst.bbox_mean", args, 0.83, "SST over a registry region.")
			}},
		{name: "no-place", doc: "an SST question without a place it can resolve: the explain branch, with low confidence",
			match: func(*odbQuestion) bool { return true },
			act: func(*odbQuestion) (llm.Message, error) {
				return plan{Decision: "explain", Confidence: 0.4, Rationale: "SST question without a place I can resolve."}.message()
			}},
	}
}

// registryRegion is the key of registry whose place words the question
// names best, or "". A key's words ("taiwan_strait") are read through the
// lexicon's concepts (so 台灣海峽 names both); a key is a candidate when
// its first word is named; it scores one for each word named, and half
// for leaving out only words of the "nearby" concept (a bare place name
// means around it). The first key in sorted order wins a tie.
func registryRegion(t lexText, registry map[string][]float64) string {
	best, score := "", 0.0
	for _, key := range slices.Sorted(maps.Keys(registry)) {
		words := strings.FieldsFunc(strings.ToLower(key), func(r rune) bool { return r == '_' || r == '-' || r == ' ' })
		if len(words) == 0 || !namesWord(t, words[0]) {
			continue
		}
		s, onlyNearby := 0.0, true
		for _, w := range words {
			switch {
			case namesWord(t, w):
				s++
			case conceptOf(w) != "nearby":
				onlyNearby = false
			}
		}
		if onlyNearby {
			s += 0.5
		}
		if s > score {
			best, score = key, s
		}
	}
	return best
}

// namesWord reports whether t names w: a word of the lexicon concept w
// belongs to, or w itself.
func namesWord(t lexText, w string) bool {
	if c := conceptOf(w); c != "" {
		return t.has(c)
	}
	for _, x := range t.words {
		if x == w {
			return true
		}
	}
	return false
}

// conceptOf is the lexicon concept whose English words include w, or "".
func conceptOf(w string) string {
	for _, c := range slices.Sorted(maps.Keys(lexicon)) {
		for _, e := range lexicon[c]["en"] {
			if !strings.Contains(e, " ") && lexWordMatch(w, e) {
				return c
			}
		}
	}
	return ""
}

// pointOf finds a coordinate pair written with hemispheres, or a plain
// "(lon, lat)".
func pointOf(q string) (lon, lat float64, ok bool) {
	var haveLon, haveLat bool
	for _, m := range hemiRe.FindAllStringSubmatch(q, -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		switch strings.ToUpper(m[2]) {
		case "E":
			lon, haveLon = v, true
		case "W":
			lon, haveLon = -v, true
		case "N":
			lat, haveLat = v, true
		case "S":
			lat, haveLat = -v, true
		}
	}
	if haveLon && haveLat {
		return lon, lat, true
	}
	if m := plainRe.FindStringSubmatch(q); m != nil {
		lon, _ = strconv.ParseFloat(m[1], 64)
		lat, _ = strconv.ParseFloat(m[2], 64)
		return lon, lat, true
	}
	return 0, 0, false
}

// dateOf is the date a question asks for: one written, else by its date
// words relative to now, else "".
func dateOf(t lexText, q string, now time.Time) string {
	if m := dateRe.FindStringSubmatch(q); m != nil {
		y, _ := strconv.Atoi(m[1])
		mo, _ := strconv.Atoi(m[2])
		d, _ := strconv.Atoi(m[3])
		return time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
	}
	switch {
	case t.has("day_before_yesterday"):
		return now.AddDate(0, 0, -2).Format(time.DateOnly)
	case t.has("yesterday"):
		return now.AddDate(0, 0, -1).Format(time.DateOnly)
	case t.has("now"):
		return now.Format(time.DateOnly)
	}
	return ""
}

// odbchatClassifier is the legacy two-way classifier. Like the weak
// classifier the seed describes, it sends questions that want data (an SST
// word with a place) to code, since explain cannot fetch numbers. Its
// request carries no registry, so a place is coordinates, a bbox list, or
// a word of the lexicon's place concepts.
type odbchatClassifier struct{}

func (odbchatClassifier) Name() string { return "odbchat/classifier" }

func (odbchatClassifier) Accepts(r Request) bool {
	return strings.Contains(r.System(), "question classifier")
}

func (p odbchatClassifier) Answer(r Request) (llm.Message, error) {
	m, _, err := p.Decide(r)
	return m, err
}

// Decide answers by classifierRules and names the rule.
func (odbchatClassifier) Decide(r Request) (llm.Message, string, error) {
	return decide(classifierRules(), readODBQuestion(r.LastUser(), time.Time{}, nil))
}

// odbPlaceConcepts are the lexicon's place concepts the classifier knows.
var odbPlaceConcepts = []string{"taiwan", "hawaii", "strait", "islands", "nearby"}

// classifierRules is the legacy classifier's table, tried in order.
func classifierRules() []rule[*odbQuestion] {
	mode := func(m string, conf float64) func(*odbQuestion) (llm.Message, error) {
		return func(*odbQuestion) (llm.Message, error) {
			return llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprintf(`{"mode": %q, "confidence": %g}`, m, conf)}, nil
		}
	}
	return []rule[*odbQuestion]{
		{name: "code", doc: "a code word: code", match: func(o *odbQuestion) bool { return o.text.has("code") }, act: mode("code", 0.74)},
		{name: "definition", doc: "a definition word: explain", match: func(o *odbQuestion) bool { return o.text.has("definition") }, act: mode("explain", 0.7)},
		{name: "coordinates", doc: "a point or a bbox list: code, the only branch that fetches numbers",
			match: func(o *odbQuestion) bool { return o.point || o.bbox != nil }, act: mode("code", 0.74)},
		{name: "sst-and-place", doc: "an SST word and a place word: code, the seed's failure mode",
			match: func(o *odbQuestion) bool {
				if !o.hasSST() {
					return false
				}
				for _, c := range odbPlaceConcepts {
					if o.text.has(c) {
						return true
					}
				}
				return false
			}, act: mode("code", 0.74)},
		{name: "otherwise-explain", doc: "anything else: explain", match: func(*odbQuestion) bool { return true }, act: mode("explain", 0.7)},
	}
}
