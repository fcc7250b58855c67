package cba

// The knowledge-base tools the model calls: search, details, the feasible
// methods, comparisons, exports and listings, each answering from the
// knowledge base loaded in kb.go.

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

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
