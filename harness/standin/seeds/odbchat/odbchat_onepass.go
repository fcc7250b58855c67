package odbchat

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/lexicon"
	"github.com/agentreplay/testbed/harness/standin/policy"
)

// OnePass writes tagged one-pass answers from the context passages.
type OnePass struct{}

// Name is "odbchat/onepass".
func (OnePass) Name() string { return "odbchat/onepass" }

// Accepts reports whether r follows its protocol.
func (OnePass) Accepts(r policy.Request) bool {
	return strings.Contains(r.System(), "<<<MODE>>>")
}

var (
	modeLine     = regexp.MustCompile(`(?m)^Mode: (\w+)$`)
	questionLine = regexp.MustCompile(`(?m)^Question: (.*)$`)
	passageHead  = regexp.MustCompile(`(?m)^\[(\d+)\] (.*)$`)
)

// onePassTurn is what the one-pass rules read from the user message.
type onePassTurn struct {
	u, mode, lang, question string
	prose                   lexicon.Prose // the prompt's language and length
}

// Decide answers by onePassRules and names the rule.
func (OnePass) Decide(r policy.Request) (llm.Message, string, error) {
	t := &onePassTurn{u: r.LastUser(), mode: "explain"}
	if m := modeLine.FindStringSubmatch(t.u); m != nil {
		t.mode = m[1]
	}
	if m := questionLine.FindStringSubmatch(t.u); m != nil {
		t.question = m[1]
	}
	// The answer's language is the prompt's language rule (answerLanguage):
	// the user's, told from the question, a named one, or, unstated, English.
	ins := policy.InstructionsOf(r)
	t.prose = lexicon.ProseOf(ins, t.question)
	t.lang = t.prose.Lang
	return policy.Decide(onePassRules(), t)
}

// RuleNames lists the names of its rules, in table order.
func (OnePass) RuleNames() []string { return policy.Names(onePassRules()) }

// onePassRules is the one-pass table: the mode comes from the agent's
// message, so the rules only shape the tagged answer.
func onePassRules() []policy.Rule[*onePassTurn] {
	return []policy.Rule[*onePassTurn]{
		{Name: "code-answer", Doc: "code mode: a plan, a Python program picked by what the question names, and the cited passages",
			Match: func(t *onePassTurn) bool { return t.mode == "code" }, Act: onePassAnswer},
		{Name: "explain-answer", Doc: "any other mode: the first sentences of the first two passages, cited",
			Match: func(*onePassTurn) bool { return true }, Act: onePassAnswer},
	}
}

// onePassAnswer writes the tagged answer: the first sentence of each of
// the first two passages, cited, after a plan and a program in code mode.
func onePassAnswer(t *onePassTurn) (llm.Message, error) {
	u := t.u
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
		said = append(said, sentence(body, t.lang)+" ["+u[loc[2]:loc[3]]+"]")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<<<MODE>>>\n%s\n", t.mode)
	if t.mode == "code" {
		b.WriteString("<<<PLAN>>>\n1. Fetch the data over HTTP.\n2. Parse the JSON.\n3. Write the result.\n")
		fmt.Fprintf(&b, "<<<CODE>>>\n```python\n%s```\n", program(t.question))
	}
	b.WriteString("<<<ANSWER>>>\n")
	if t.lang == "zh" {
		b.WriteString("根據 ODB 知識庫：")
	}
	if len(said) == 0 {
		said = []string{"I found nothing about this in the ODB knowledge base."}
	}
	said, _, _ = t.prose.Limit(said)
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
	return policy.FirstSentence(s)
}

var hanRe = regexp.MustCompile(`\p{Han}`)

// program picks a code template by what the question names: CSV, or a
// plot word of the lexicon.
func program(q string) string {
	if strings.Contains(strings.ToLower(q), "csv") {
		return "import csv, json, sys\n\nrows = json.load(sys.stdin)\nwriter = csv.DictWriter(sys.stdout, fieldnames=sorted({k for r in rows for k in r}))\nwriter.writeheader()\nwriter.writerows(rows)\n"
	}
	plot := ""
	if lexicon.Read(q).Has("plot") {
		plot = "import matplotlib.pyplot as plt\nplt.scatter(df.lon, df.lat, c=df.sst, s=4)\nplt.colorbar(label='SST (°C)')\nplt.savefig('sst.png')\n"
	}
	return "import pandas as pd\nimport requests\n\nparams = {'lon0': 118, 'lat0': 20, 'lon1': 123.5, 'lat1': 26.5, 'start': '2025-11-05', 'end': '2025-11-05', 'append': 'sst,sst_anomaly', 'sample': 30}\n" +
		"rows = requests.get('https://eco.odb.ntu.edu.tw/api/ghrsst', params=params, timeout=30).json()\ndf = pd.DataFrame(rows)\nprint(df[['sst', 'sst_anomaly']].mean())\n" + plot
}
