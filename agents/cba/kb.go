package cba

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io/fs"
	"sort"
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

func (a *Agent) searchIndicators(_ context.Context, args map[string]any) (string, []byte, error) {
	q := words(str(args, "query"))
	if len(q) == 0 {
		return "", nil, fmt.Errorf("query is required")
	}
	n := 5
	if v, ok := args["n_results"].(float64); ok && v >= 1 {
		n = int(v)
	}
	type hit struct {
		in    indicator
		score int
	}
	var hits []hit
	for _, in := range a.kb.indicators {
		if s := 2*overlap(q, in.Name) + overlap(q, in.Class+" "+in.Component+" "+in.Unit); s > 0 {
			hits = append(hits, hit{in, s})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	if len(hits) == 0 {
		return fmt.Sprintf("No indicators match %q.", str(args, "query")), nil, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Indicators matching %q:\n", str(args, "query"))
	for _, h := range hits[:min(n, len(hits))] {
		fmt.Fprintf(&b, "- %d. %s (%s; unit: %s)\n", h.in.ID, h.in.Name, h.in.Class, h.in.Unit)
	}
	return strings.TrimRight(b.String(), "\n"), nil, nil
}

func (a *Agent) searchMethods(_ context.Context, args map[string]any) (string, []byte, error) {
	q := words(str(args, "query"))
	if len(q) == 0 {
		return "", nil, fmt.Errorf("query is required")
	}
	var b strings.Builder
	n := 0
	for _, m := range a.kb.methods {
		if overlap(q, m.General+" "+m.Specific+" "+m.Notes) == 0 || n == 8 {
			continue
		}
		n++
		fmt.Fprintf(&b, "- method %d for indicator %d: %s (%s); accuracy %s, ease %s, cost %s\n", m.ID, m.Indicator, m.Specific, m.General, m.Accuracy, m.Ease, m.Cost)
	}
	if n == 0 {
		return fmt.Sprintf("No methods match %q.", str(args, "query")), nil, nil
	}
	return "Methods:\n" + strings.TrimRight(b.String(), "\n"), nil, nil
}

func (a *Agent) indicatorDetails(_ context.Context, args map[string]any) (string, []byte, error) {
	in, err := a.kb.find(str(args, "indicator"))
	if err != nil {
		return "", nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Indicator %d: %s\n- Component: %s\n- Class: %s\n- Unit: %s\n- Method types: %s\n- Principles: %s\n- Criteria: %s\n- Methods:\n",
		in.ID, in.Name, in.Component, in.Class, in.Unit, strings.Join(in.MethodTypes, ", "), a.principleNames(in.Principles), strings.Join(in.Criteria, ", "))
	for _, m := range a.kb.methodsOf(in.ID) {
		fmt.Fprintf(&b, "  - %d. %s (%s): accuracy %s, ease %s, cost %s\n", m.ID, m.Specific, m.General, m.Accuracy, m.Ease, m.Cost)
	}
	return strings.TrimRight(b.String(), "\n"), nil, nil
}

func (a *Agent) principleNames(ids []int) string {
	var out []string
	for _, id := range ids {
		for _, p := range a.kb.principles {
			if p.ID == id {
				out = append(out, fmt.Sprintf("%d %s", p.ID, p.Name))
			}
		}
	}
	return strings.Join(out, ", ")
}

// level ranks Low < Medium < Medium-High < High, ignoring case and a
// trailing *; anything else is 0.
func level(s string) int {
	switch strings.ToLower(strings.TrimSuffix(strings.TrimSpace(s), "*")) {
	case "low":
		return 1
	case "medium":
		return 2
	case "medium-high":
		return 3
	case "high":
		return 4
	}
	return 0
}

func (a *Agent) feasibleMethods(_ context.Context, args map[string]any) (string, []byte, error) {
	in, err := a.kb.find(str(args, "indicator"))
	if err != nil {
		return "", nil, err
	}
	maxCost, minEase, minAcc := str(args, "max_cost"), str(args, "min_ease"), str(args, "min_accuracy")
	var fit []method
	for _, m := range a.kb.methodsOf(in.ID) {
		if maxCost != "" && maxCost != "any" && level(m.Cost) > level(maxCost) {
			continue
		}
		if minEase != "" && minEase != "any" && level(m.Ease) < level(minEase) {
			continue
		}
		if minAcc != "" && minAcc != "any" && level(m.Accuracy) < level(minAcc) {
			continue
		}
		fit = append(fit, m)
	}
	limits := fmt.Sprintf("cost at most %s, ease at least %s, accuracy at least %s", or(maxCost, "any"), or(minEase, "any"), or(minAcc, "any"))
	if len(fit) == 0 {
		return fmt.Sprintf("No method for indicator %d (%s) fits: %s.", in.ID, in.Name, limits), nil, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Feasible methods for indicator %d (%s), %s:\n", in.ID, in.Name, limits)
	for _, m := range fit {
		fmt.Fprintf(&b, "- %d. %s: accuracy %s, ease %s, cost %s\n", m.ID, m.Specific, m.Accuracy, m.Ease, m.Cost)
	}
	return strings.TrimRight(b.String(), "\n"), nil, nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (a *Agent) indicatorsOf(args map[string]any) ([]*indicator, error) {
	ids := strs(args, "indicator_ids")
	if len(ids) == 0 {
		return nil, fmt.Errorf("indicator_ids is required")
	}
	var out []*indicator
	for _, id := range ids {
		in, err := a.kb.find(id)
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, nil
}

func (a *Agent) compareIndicators(_ context.Context, args map[string]any) (string, []byte, error) {
	ins, err := a.indicatorsOf(args)
	if err != nil {
		return "", nil, err
	}
	var b strings.Builder
	b.WriteString("Indicator | Class | Unit | Methods | Cheapest cost | Principles\n")
	for _, in := range ins {
		ms := a.kb.methodsOf(in.ID)
		cheapest := ""
		for _, m := range ms {
			if cheapest == "" || level(m.Cost) < level(cheapest) {
				cheapest = m.Cost
			}
		}
		fmt.Fprintf(&b, "%d. %s | %s | %s | %d | %s | %s\n", in.ID, in.Name, in.Class, in.Unit, len(ms), or(cheapest, "-"), a.principleNames(in.Principles))
	}
	return strings.TrimRight(b.String(), "\n"), nil, nil
}

func (a *Agent) exportSelection(_ context.Context, args map[string]any) (string, []byte, error) {
	ins, err := a.indicatorsOf(args)
	if err != nil {
		return "", nil, err
	}
	withMethods := true
	if v, ok := args["include_methods"].(bool); ok {
		withMethods = v
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Indicator selection (%d indicators)\n\n", len(ins))
	for _, in := range ins {
		fmt.Fprintf(&b, "## %d. %s\n- Class: %s (%s)\n- Unit: %s\n- Principles: %s\n", in.ID, in.Name, in.Class, in.Component, in.Unit, a.principleNames(in.Principles))
		if withMethods {
			for _, m := range a.kb.methodsOf(in.ID) {
				fmt.Fprintf(&b, "- Method %d: %s (accuracy %s, ease %s, cost %s)\n", m.ID, m.Specific, m.Accuracy, m.Ease, m.Cost)
			}
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n"), nil, nil
}

func (a *Agent) byPrinciple(_ context.Context, args map[string]any) (string, []byte, error) {
	ref := strings.ToLower(str(args, "principle"))
	var p *principle
	for i := range a.kb.principles {
		if strconv.Itoa(a.kb.principles[i].ID) == ref || strings.Contains(strings.ToLower(a.kb.principles[i].Name), ref) && ref != "" {
			p = &a.kb.principles[i]
			break
		}
	}
	if p == nil {
		return "", nil, fmt.Errorf("no principle %q (principles 1-7)", str(args, "principle"))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Indicators covering principle %d %s:\n", p.ID, p.Name)
	n := 0
	for _, in := range a.kb.indicators {
		for _, id := range in.Principles {
			if id == p.ID {
				fmt.Fprintf(&b, "- %d. %s (%s)\n", in.ID, in.Name, in.Class)
				n++
			}
		}
	}
	fmt.Fprintf(&b, "%d indicators in all.", n)
	return b.String(), nil, nil
}

func (a *Agent) byClass(_ context.Context, args map[string]any) (string, []byte, error) {
	class := strings.ToLower(str(args, "class"))
	var b strings.Builder
	for _, in := range a.kb.indicators {
		if strings.ToLower(in.Class) == class {
			fmt.Fprintf(&b, "- %d. %s (unit: %s)\n", in.ID, in.Name, in.Unit)
		}
	}
	if b.Len() == 0 {
		return "", nil, fmt.Errorf("no class %q; list them with list_available_classes", str(args, "class"))
	}
	return "Indicators of class " + str(args, "class") + ":\n" + strings.TrimRight(b.String(), "\n"), nil, nil
}

func (a *Agent) listClasses(context.Context, map[string]any) (string, []byte, error) {
	type cls struct {
		component string
		n         int
	}
	classes := map[string]*cls{}
	var order []string
	for _, in := range a.kb.indicators {
		if classes[in.Class] == nil {
			classes[in.Class] = &cls{component: in.Component}
			order = append(order, in.Class)
		}
		classes[in.Class].n++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d indicator classes:\n", len(order))
	for _, c := range order {
		fmt.Fprintf(&b, "- %s (%s): %d indicators\n", c, classes[c].component, classes[c].n)
	}
	return strings.TrimRight(b.String(), "\n"), nil, nil
}

func (a *Agent) kbStats(context.Context, map[string]any) (string, []byte, error) {
	classes := map[string]bool{}
	criteria := 0
	for _, in := range a.kb.indicators {
		classes[in.Class] = true
	}
	for _, p := range a.kb.principles {
		criteria += len(p.Criteria)
	}
	return fmt.Sprintf("The knowledge base holds %d indicators in %d classes, %d methods, %d principles and %d criteria.",
		len(a.kb.indicators), len(classes), len(a.kb.methods), len(a.kb.principles), criteria), nil, nil
}
