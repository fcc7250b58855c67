package cba

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"unicode"

	"github.com/agentreplay/testbed/agents"
)

// indicator is one row of kb/indicators.csv.
type indicator struct {
	ID                     int
	Component, Class, Name string
	Unit                   string
	MethodTypes            []string // field, lab, remote sensing, participatory, audits ("(x)" marked as secondary)
	Principles             []int
	Criteria               []string
}

// method is one row of kb/methods.csv.
type method struct {
	ID, Indicator        int
	General, Specific    string
	Accuracy, Ease, Cost string
	Notes, DOI           string
}

type principle struct {
	ID       int
	Name     string
	Criteria []string // "1.1 Avoid ecosystem degradation"
}

// knowledgeBase is the CBA indicator and method workbook as tables.
type knowledgeBase struct {
	indicators []indicator
	methods    []method
	principles []principle
	usecases   []usecase
	version    string
}

// readCSV reads the rows of the CSV file name, holding data, as maps keyed
// by the header.
func readCSV(name string, data []byte) ([]map[string]string, error) {
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(rows) < 2 {
		return nil, fmt.Errorf("%s has no rows", name)
	}
	var out []map[string]string
	for _, r := range rows[1:] {
		m := map[string]string{}
		for i, h := range rows[0] {
			if i < len(r) {
				m[h] = strings.TrimSpace(r[i])
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// kbFiles are the knowledge base's tables, in the order buildKnowledgeBase reads them.
var kbFiles = []string{"kb/indicators.csv", "kb/methods.csv", "kb/principles.csv", "kb/usecases.csv"}

// loadKnowledgeBase reads the knowledge base's tables from fsys. It is built
// once per run (agents.Cache) for each content of the tables and never changed after.
func loadKnowledgeBase(cache *agents.Cache, fsys fs.FS) (*knowledgeBase, error) {
	kb, err := agents.LoadOnce(cache, fsys, "cba kb", kbFiles, buildKnowledgeBase)
	if err != nil {
		return nil, fmt.Errorf("cba: knowledge base: %w", err)
	}
	return kb, nil
}

// buildKnowledgeBase makes the tables from the contents of kbFiles.
func buildKnowledgeBase(contents [][]byte) (*knowledgeBase, error) {
	kb := &knowledgeBase{}
	inds, err := readCSV(kbFiles[0], contents[0])
	if err != nil {
		return nil, err
	}
	types := []struct{ col, name string }{{"field_methods", "field"}, {"lab_methods", "lab"}, {"remote_sensing", "remote sensing"},
		{"participatory", "participatory"}, {"audits", "audits"}}
	pcols := []string{"p1_natural_environment", "p2_social_wellbeing", "p3_economic_prosperity", "p4_diversity", "p5_connectivity", "p6_adaptive_capacity", "p7_harmony"}
	for _, r := range inds {
		id, err := strconv.Atoi(r["id"])
		if err != nil {
			return nil, fmt.Errorf("%s: id %q is not a number", kbFiles[0], r["id"])
		}
		in := indicator{ID: id, Component: r["component"], Class: r["class"], Name: r["indicator"], Unit: r["unit"]}
		for _, t := range types {
			switch r[t.col] {
			case "x":
				in.MethodTypes = append(in.MethodTypes, t.name)
			case "(x)":
				in.MethodTypes = append(in.MethodTypes, t.name+" (secondary)")
			}
		}
		for i, c := range pcols {
			if r[c] != "" {
				in.Principles = append(in.Principles, i+1)
			}
		}
		if r["criteria"] != "" {
			in.Criteria = strings.Split(r["criteria"], ";")
		}
		kb.indicators = append(kb.indicators, in)
	}
	ms, err := readCSV(kbFiles[1], contents[1])
	if err != nil {
		return nil, err
	}
	for _, r := range ms {
		id, _ := strconv.Atoi(r["id"])
		ind, _ := strconv.Atoi(r["indicator_id"])
		kb.methods = append(kb.methods, method{ID: id, Indicator: ind, General: r["method_general"], Specific: r["method_specific"],
			Accuracy: r["accuracy"], Ease: r["ease_of_use"], Cost: r["cost"], Notes: r["notes"], DOI: r["doi"]})
	}
	ps, err := readCSV(kbFiles[2], contents[2])
	if err != nil {
		return nil, err
	}
	for _, r := range ps {
		id, _ := strconv.Atoi(r["principle_id"])
		if len(kb.principles) == 0 || kb.principles[len(kb.principles)-1].ID != id {
			kb.principles = append(kb.principles, principle{ID: id, Name: r["principle"]})
		}
		p := &kb.principles[len(kb.principles)-1]
		p.Criteria = append(p.Criteria, r["criterion_id"]+" "+r["criterion"])
	}
	if kb.usecases, err = readUsecases(kbFiles[3], contents[3]); err != nil {
		return nil, err
	}
	kb.version = version(contents)
	return kb, nil
}

// words lowercases and splits text, dropping a plural s.
func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) > 3 && strings.HasSuffix(w, "s") {
			w = strings.TrimSuffix(w, "s")
		}
		if len(w) > 1 {
			out = append(out, w)
		}
	}
	return out
}

func overlap(query []string, text string) int {
	n := 0
	have := map[string]bool{}
	for _, w := range words(text) {
		have[w] = true
	}
	for _, q := range query {
		if have[q] {
			n++
		}
	}
	return n
}

// find resolves an indicator by id or by the best-matching name.
func (kb *knowledgeBase) find(ref string) (*indicator, error) {
	ref = strings.TrimSpace(strings.TrimPrefix(strings.ToLower(ref), "indicator "))
	if id, err := strconv.Atoi(ref); err == nil {
		for i := range kb.indicators {
			if kb.indicators[i].ID == id {
				return &kb.indicators[i], nil
			}
		}
		return nil, fmt.Errorf("no indicator with id %d (ids run from 1 to %d)", id, len(kb.indicators))
	}
	best, score := -1, 0
	for i, in := range kb.indicators {
		if s := overlap(words(ref), in.Name); s > score {
			best, score = i, s
		}
	}
	if best < 0 {
		return nil, fmt.Errorf("no indicator matches %q; search with search_indicators", ref)
	}
	return &kb.indicators[best], nil
}

func (kb *knowledgeBase) methodsOf(id int) []method {
	var out []method
	for _, m := range kb.methods {
		if m.Indicator == id {
			out = append(out, m)
		}
	}
	return out
}
