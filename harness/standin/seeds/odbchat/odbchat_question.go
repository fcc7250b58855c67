package odbchat

import (
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/instruct"
	"github.com/agentreplay/testbed/harness/standin/lexicon"
)

var (
	bboxRe  = regexp.MustCompile(`\[\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*\]`)
	hemiRe  = regexp.MustCompile(`(?i)(\d+(?:\.\d+)?)\s*°?\s*([EWNS])\b`)
	plainRe = regexp.MustCompile(`[(（]\s*(-?\d+(?:\.\d+)?)\s*[,，]\s*(-?\d+(?:\.\d+)?)\s*[)）]`)
	dateRe  = regexp.MustCompile(`\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})\b`)
)

// odbQuestion is what the ODBchat rules read from a question.
type odbQuestion struct {
	q        string
	text     lexicon.Text
	date     string // the date asked for, or ""
	lon, lat float64
	point    bool
	bbox     []float64 // a written bbox list
	region   string    // the registry key the question names, or ""
	// What the request says: the routing rules and output shape of the
	// system prompt, and the tool catalog.
	ins   instruct.Set
	tools []llm.Tool
}

func readODBQuestion(q string, now time.Time, registry map[string][]float64) *odbQuestion {
	o := &odbQuestion{q: q, text: lexicon.Read(q)}
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
	return o.text.Has("sst") || o.text.Near("temperature", "sea", 3)
}

// routeOf is the prompt's routing rule whose condition names concept c
// (read through the lexicon), or nil.
func (o *odbQuestion) routeOf(c string) *instruct.Route {
	for i, rt := range o.ins.Routes {
		if lexicon.Read(rt.When).Has(c) {
			return &o.ins.Routes[i]
		}
	}
	return nil
}

// otherwise is the decision for a question no other rule takes: the
// prompt's rule for the rest, else the first value the shape lists for
// a field (a weak model's first option), else "".
func (o *odbQuestion) otherwise() string {
	for _, rt := range o.ins.Routes {
		if rt.Else {
			return rt.Target
		}
	}
	for _, f := range o.ins.Shape {
		if v := o.ins.Values[f]; len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

// registryRegion is the key of registry whose place words the question
// names best, or "". A key's words ("taiwan_strait") are read through the
// lexicon's concepts (so 台灣海峽 names both); a key is a candidate when
// its first word is named; it scores one for each word named, and half
// for leaving out only words of the "nearby" concept (a bare place name
// means around it). The first key in sorted order wins a tie.
func registryRegion(t lexicon.Text, registry map[string][]float64) string {
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
func namesWord(t lexicon.Text, w string) bool {
	if c := conceptOf(w); c != "" {
		return t.Has(c)
	}
	for _, x := range t.Words {
		if x == w {
			return true
		}
	}
	return false
}

// conceptOf is the lexicon concept whose English words include w, or "".
func conceptOf(w string) string {
	for _, c := range lexicon.ConceptNames() {
		for _, e := range lexicon.WordsIn(c, "en") {
			if !strings.Contains(e, " ") && lexicon.WordMatch(w, e) {
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
func dateOf(t lexicon.Text, q string, now time.Time) string {
	if m := dateRe.FindStringSubmatch(q); m != nil {
		y, _ := strconv.Atoi(m[1])
		mo, _ := strconv.Atoi(m[2])
		d, _ := strconv.Atoi(m[3])
		return time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
	}
	switch {
	case t.Has("day_before_yesterday"):
		return now.AddDate(0, 0, -2).Format(time.DateOnly)
	case t.Has("yesterday"):
		return now.AddDate(0, 0, -1).Format(time.DateOnly)
	case t.Has("now"):
		return now.Format(time.DateOnly)
	}
	return ""
}
