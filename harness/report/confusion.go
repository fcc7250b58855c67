package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// confusionSection lays out v's routing confusion matrix: a row per
// expected route, a column per observed route (both sorted; no route as
// "—"), the count in each cell, ✓ on the cells that RouteCorrect counts as
// right, · for none, and each row's accuracy. Columns are headed by the full
// route unless that makes the table wider than textWidth; then tool routes
// are headed by the tool's name, and if even that does not fit, the section
// lists the misrouted cells instead of the matrix.
func confusionSection(v *Variant) section {
	sec := section{title: "routing confusion (expected → observed) — " + v.Name}
	counts := map[[2]string]int{}
	var expected, observed []string
	right, total := 0, 0
	for _, c := range v.Confusion {
		counts[[2]string{c.Expected, c.Observed}] += c.Count
		expected = append(expected, c.Expected)
		observed = append(observed, c.Observed)
		total += c.Count
		if correctRoute(c.Expected, c.Observed) {
			right += c.Count
		}
	}
	slices.Sort(expected)
	slices.Sort(observed)
	expected, observed = slices.Compact(expected), slices.Compact(observed)

	t := table{
		header: []string{"expected"},
		right:  []bool{false},
	}
	for _, o := range observed {
		t.header = append(t.header, routeOrNone(o))
		t.right = append(t.right, true)
	}
	t.header = append(t.header, "accuracy")
	t.right = append(t.right, true)
	for _, e := range expected {
		row := []string{e}
		n, ok := 0, 0
		for _, o := range observed {
			c := counts[[2]string{e, o}]
			n += c
			// A space where others have ✓ keeps the digits aligned.
			cell := "· "
			if c != 0 {
				cell = strconv.Itoa(c) + " "
			}
			if correctRoute(e, o) {
				ok += c
				if c != 0 {
					cell = strconv.Itoa(c) + "✓"
				}
			}
			row = append(row, cell)
		}
		acc := "—"
		if n > 0 {
			acc = percent(float64(ok) / float64(n))
		}
		t.rows = append(t.rows, append(row, acc))
	}
	if tableWidth(t) <= textWidth {
		sec.table = t
		return sec
	}
	if short, ok := toolNames(observed); ok {
		copy(t.header[1:], short)
		if tableWidth(t) <= textWidth {
			sec.table = t
			return sec
		}
	}

	sec.notes = append(sec.notes, note{text: fmt.Sprintf(
		"%d expected and %d observed routes are too many for a table; %d of %d routed as expected, the others:",
		len(expected), len(observed), right, total)})
	for _, e := range expected {
		for _, o := range observed {
			if c := counts[[2]string{e, o}]; c != 0 && !correctRoute(e, o) {
				sec.notes = append(sec.notes, note{text: fmt.Sprintf("%s → %s: %d", e, routeOrNone(o), c)})
			}
		}
	}
	return sec
}

// correctRoute reports whether observed is right for expected, as
// Scenario.RouteCorrect does.
func correctRoute(expected, observed string) bool {
	return Scenario{ExpectedRoute: expected, Route: observed}.RouteCorrect()
}

// routeOrNone is route, or "—" for no route.
func routeOrNone(route string) string {
	if route == "" {
		return "—"
	}
	return route
}

// toolNames returns routes with "tool:" cut off the tool routes and "—"
// for no route, or false when that would make two of them the same.
func toolNames(routes []string) ([]string, bool) {
	names := make([]string, len(routes))
	seen := map[string]bool{}
	for i, r := range routes {
		name, _ := strings.CutPrefix(r, "tool:")
		name = routeOrNone(name)
		if seen[name] {
			return nil, false
		}
		seen[name] = true
		names[i] = name
	}
	return names, true
}
