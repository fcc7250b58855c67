package standin

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents/llm"
)

// ODBchat policies. They recognise the agent's prompts by the protocol each
// demands, and decide with these heuristics:
//
//   - code: the question asks for a program (python, code, script, 程式, 轉 CSV …);
//   - mcp: an SST word (the shared lexicon's concept "sst") together with a place the policy can resolve: a
//     coordinate pair (121.7E,24.0N · (23N, 123E) · (123,25)), a bbox list of
//     four numbers, or a region alias of a geo_registry key — and no
//     definition cue (是什麼, what is a, explain …). Coordinates with a date
//     word need no SST word, as in a follow-up giving only a point and a day:
//     the catalog's tools take nothing but a place and a day;
//   - explain: everything else.
//
// Dates: YYYY-MM-DD as written; 今天/現在/today/now → now; 昨天/yesterday →
// now−1; 前天/day before yesterday → now−2; no date word → no date argument.
// A paraphrase without these words is routed to explain, as a weak model might.

var (
	codeCue  = regexp.MustCompile(`(?i)python|\bcode\b|script|程式|代碼|轉\s*csv|to csv|\bfunction\b|寫一[個段支]`)
	sstCue   = regexp.MustCompile(`(?i)海溫|水溫|海表溫|海水溫度|\bsst\b|sea[- ]surface temp|water temp|ocean temp|sea temp|距平|anomal`)
	defCue   = regexp.MustCompile(`(?i)是什麼|什麼是|意思|解釋|定義|what is (a|an)\b|what does|\bexplain|\bdefin|how (is|are) .* (computed|calculated|defined)|how do i|如何|怎麼`)
	bboxRe   = regexp.MustCompile(`\[\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*\]`)
	hemiRe   = regexp.MustCompile(`(?i)(\d+(?:\.\d+)?)\s*°?\s*([EWNS])\b`)
	plainRe  = regexp.MustCompile(`[(（]\s*(-?\d+(?:\.\d+)?)\s*[,，]\s*(-?\d+(?:\.\d+)?)\s*[)）]`)
	dateRe   = regexp.MustCompile(`\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})\b`)
	todayCue = regexp.MustCompile(`(?i)今天|今日|現在|目前|最新|\btoday\b|\bnow\b|right now|\bcurrent`)
)

// regionAliases maps words in a question to geo_registry keys; longer
// aliases are tried first so that 台灣海峽 wins over 台灣.
func regionAliases() [][2]string {
	return [][2]string{
		{"台灣海峽", "taiwan_strait"}, {"臺灣海峽", "taiwan_strait"}, {"taiwan strait", "taiwan_strait"},
		{"夏威夷", "hawaiian_islands"}, {"hawaii", "hawaiian_islands"},
		{"台灣", "taiwan_nearby"}, {"臺灣", "taiwan_nearby"}, {"taiwan", "taiwan_nearby"},
	}
}

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

func (odbchatRouter) Answer(r Request) (llm.Message, error) {
	var in routerInput
	if err := json.Unmarshal([]byte(r.LastUser()), &in); err != nil || in.Query == "" {
		return llm.Message{}, fmt.Errorf("router user message is not the JSON {query, now, …} the protocol asks for")
	}
	now, err := time.Parse(time.DateOnly, in.Now)
	if err != nil {
		return llm.Message{}, fmt.Errorf("router input has no valid now: %q", in.Now)
	}
	plan := routePlan(in, now)
	b, _ := json.Marshal(plan)
	return llm.Message{Role: llm.RoleAssistant, Content: string(b)}, nil
}

type plan struct {
	Decision         string         `json:"decision"`
	Confidence       float64        `json:"confidence"`
	Tool             map[string]any `json:"tool"`
	Rationale        string         `json:"rationale"`
	NeedsFollowup    bool           `json:"needs_followup"`
	FollowupQuestion *string        `json:"followup_question"`
}

func routePlan(in routerInput, now time.Time) plan {
	q := in.Query
	if codeCue.MatchString(q) {
		return plan{Decision: "code", Confidence: 0.76, Rationale: "Asks for a program."}
	}
	date := dateOf(q, now)
	_, _, point := pointOf(q)
	coordsAndDate := (point || bboxRe.MatchString(q)) && date != ""
	if !(sstCue.MatchString(q) || coordsAndDate) || defCue.MatchString(q) {
		return plan{Decision: "explain", Confidence: 0.71, Rationale: "A concept or documentation question."}
	}
	args := map[string]any{"fields": []string{"sst", "sst_anomaly"}}
	if date != "" {
		args["date"] = date
	}
	if lon, lat, ok := pointOf(q); ok {
		args["longitude"], args["latitude"] = lon, lat
		return toolPlan("ghrsst.point_value", args, 0.82, "SST at a point.")
	}
	if m := bboxRe.FindStringSubmatch(q); m != nil {
		var b []float64
		for _, s := range m[1:] {
			f, _ := strconv.ParseFloat(s, 64)
			b = append(b, f)
		}
		args["bbox"] = b
		return toolPlan("ghrsst.bbox_mean", args, 0.78, "Mean SST over a box.")
	}
	lower := strings.ToLower(q)
	for _, a := range regionAliases() {
		if _, known := in.GeoRegistry[a[1]]; known && strings.Contains(lower, a[0]) {
			args["bbox"] = a[1]
			return toolPlan("ghrsst.bbox_mean", args, 0.83, "SST over a registry region.")
		}
	}
	return plan{Decision: "explain", Confidence: 0.4, Rationale: "SST question without a place I can resolve."}
}

func toolPlan(name string, args map[string]any, conf float64, why string) plan {
	return plan{Decision: "mcp", Confidence: conf, Tool: map[string]any{"name": name, "arguments": args}, Rationale: why}
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

func dateOf(q string, now time.Time) string {
	if m := dateRe.FindStringSubmatch(q); m != nil {
		y, _ := strconv.Atoi(m[1])
		mo, _ := strconv.Atoi(m[2])
		d, _ := strconv.Atoi(m[3])
		return time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
	}
	lower := strings.ToLower(q)
	switch {
	case strings.Contains(q, "前天") || strings.Contains(lower, "day before yesterday"):
		return now.AddDate(0, 0, -2).Format(time.DateOnly)
	case strings.Contains(q, "昨天") || strings.Contains(q, "昨日") || strings.Contains(lower, "yesterday"):
		return now.AddDate(0, 0, -1).Format(time.DateOnly)
	case todayCue.MatchString(q):
		return now.Format(time.DateOnly)
	}
	return ""
}

// odbchatClassifier is the legacy two-way classifier. Like the weak
// classifier the seed describes, it sends questions that want data (an SST
// word with a place) to code, since explain cannot fetch numbers.
type odbchatClassifier struct{}

func (odbchatClassifier) Name() string { return "odbchat/classifier" }

func (odbchatClassifier) Accepts(r Request) bool {
	return strings.Contains(r.System(), "question classifier")
}

func (odbchatClassifier) Answer(r Request) (llm.Message, error) {
	q := r.LastUser()
	mode, conf := "explain", 0.7
	_, _, point := pointOf(q)
	explicit := point || bboxRe.MatchString(q)
	if codeCue.MatchString(q) || (!defCue.MatchString(q) && (explicit || sstCue.MatchString(q) && hasRegion(q))) {
		mode, conf = "code", 0.74
	}
	return llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprintf(`{"mode": %q, "confidence": %g}`, mode, conf)}, nil
}

func hasRegion(q string) bool {
	lower := strings.ToLower(q)
	for _, a := range regionAliases() {
		if strings.Contains(lower, a[0]) {
			return true
		}
	}
	return false
}

// odbchatOnePass writes tagged one-pass answers from the context passages.
type odbchatOnePass struct{}

func (odbchatOnePass) Name() string { return "odbchat/onepass" }

func (odbchatOnePass) Accepts(r Request) bool { return strings.Contains(r.System(), "<<<MODE>>>") }

var (
	modeLine     = regexp.MustCompile(`(?m)^Mode: (\w+)$`)
	languageLine = regexp.MustCompile(`(?m)^Language: (\w+)$`)
	questionLine = regexp.MustCompile(`(?m)^Question: (.*)$`)
	passageHead  = regexp.MustCompile(`(?m)^\[(\d+)\] (.*)$`)
)

func (odbchatOnePass) Answer(r Request) (llm.Message, error) {
	u := r.LastUser()
	mode, lang, question := "explain", "en", ""
	if m := modeLine.FindStringSubmatch(u); m != nil {
		mode = m[1]
	}
	if m := languageLine.FindStringSubmatch(u); m != nil {
		lang = m[1]
	}
	if m := questionLine.FindStringSubmatch(u); m != nil {
		question = m[1]
	}
	// The first sentence of each of the first two passages, cited.
	var said []string
	idx := passageHead.FindAllStringSubmatchIndex(u, -1)
	for i, loc := range idx {
		if i == 2 {
			break
		}
		end := len(u)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		body := strings.TrimSpace(u[loc[1]:end])
		said = append(said, sentence(body, lang)+" ["+u[loc[2]:loc[3]]+"]")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<<<MODE>>>\n%s\n", mode)
	if mode == "code" {
		b.WriteString("<<<PLAN>>>\n1. Fetch the data over HTTP.\n2. Parse the JSON.\n3. Write the result.\n")
		fmt.Fprintf(&b, "<<<CODE>>>\n```python\n%s```\n", program(question))
	}
	b.WriteString("<<<ANSWER>>>\n")
	if lang == "zh" {
		b.WriteString("根據 ODB 知識庫：")
	}
	if len(said) == 0 {
		b.WriteString("I found nothing about this in the ODB knowledge base.")
	}
	b.WriteString(strings.Join(said, " "))
	return llm.Message{Role: llm.RoleAssistant, Content: b.String()}, nil
}

// sentence picks what to quote from a passage: for a Chinese question its
// first sentence with Han characters, if it has one, else its first sentence.
func sentence(s, lang string) string {
	if lang == "zh" {
		for _, part := range strings.SplitAfter(strings.Join(strings.Fields(s), " "), "。") {
			if hanRe.MatchString(part) {
				if i := strings.LastIndexAny(part[:hanRe.FindStringIndex(part)[0]], ".!?"); i >= 0 {
					part = part[i+1:]
				}
				return strings.TrimSpace(part)
			}
		}
	}
	return firstSentence(s)
}

var hanRe = regexp.MustCompile(`\p{Han}`)

func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for i, r := range s {
		if (r == '.' || r == '。') && i > 20 {
			return s[:i+len(string(r))]
		}
	}
	if len(s) > 200 {
		return s[:200]
	}
	return s
}

var (
	csvCue  = regexp.MustCompile(`(?i)csv`)
	plotCue = regexp.MustCompile(`(?i)plot|畫|圖|map`)
)

// program picks a code template by what the question names.
func program(q string) string {
	if csvCue.MatchString(q) {
		return "import csv, json, sys\n\nrows = json.load(sys.stdin)\nwriter = csv.DictWriter(sys.stdout, fieldnames=sorted({k for r in rows for k in r}))\nwriter.writeheader()\nwriter.writerows(rows)\n"
	}
	plot := ""
	if plotCue.MatchString(q) {
		plot = "import matplotlib.pyplot as plt\nplt.scatter(df.lon, df.lat, c=df.sst, s=4)\nplt.colorbar(label='SST (°C)')\nplt.savefig('sst.png')\n"
	}
	return "import pandas as pd\nimport requests\n\nparams = {'lon0': 118, 'lat0': 20, 'lon1': 123.5, 'lat1': 26.5, 'start': '2025-11-05', 'end': '2025-11-05', 'append': 'sst,sst_anomaly', 'sample': 30}\n" +
		"rows = requests.get('https://eco.odb.ntu.edu.tw/api/ghrsst', params=params, timeout=30).json()\ndf = pd.DataFrame(rows)\nprint(df[['sst', 'sst_anomaly']].mean())\n" + plot
}
