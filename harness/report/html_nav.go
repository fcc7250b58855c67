package report

import (
	"embed"
	"html/template"
	"strconv"
	"strings"
)

// The page's template, style sheet and script, inlined into every
// page so that it stays one self-contained file.
var (
	//go:embed page
	pageFiles embed.FS

	pageStyle  = template.CSS(mustRead("page/style.css"))
	pageScript = template.JS(mustRead("page/viewer.js"))
)

func mustRead(name string) string {
	b, err := pageFiles.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// htmlLink is a link to an anchor of the page.
type htmlLink struct {
	Anchor  string `json:"anchor"`
	Label   string `json:"label"`
	Verdict string `json:"verdict,omitempty"`
}

// anchorSet hands out element ids made of names, unique in one page.
type anchorSet map[string]int

// add returns an id for the names joined: letters, digits, '.', '_' and
// '-' kept, any other run of characters turned into one '-', and a number
// appended when the id was handed out before.
func (a anchorSet) add(names ...string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.Join(names, "/") {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	id := b.String()
	a[id]++
	if n := a[id]; n > 1 {
		id += "-" + strconv.Itoa(n)
	}
	return id
}

// routeChanged reports whether sc, run by variant v, took a route other
// than the one it expects, or other than the suite's baseline variant took
// for the same scenario.
func routeChanged(sc Scenario, base, v *Variant) bool {
	if sc.ExpectedRoute != "" && !sc.RouteCorrect() {
		return true
	}
	if base == nil || base == v {
		return false
	}
	for _, b := range base.Scenarios {
		if b.ID == sc.ID {
			return b.Route != sc.Route
		}
	}
	return false
}

// overBudget reports whether sc failed a budget expectation, or its
// replayed latency is above the suite's latency budget (budgetMS, 0 for
// none; the dashed line of the latency chart).
func overBudget(sc Scenario, budgetMS float64) bool {
	for _, c := range sc.Checks {
		if !c.Pass && strings.HasPrefix(c.Name, "budget.") {
			return true
		}
	}
	return budgetMS > 0 && float64(sc.Metrics.Latency.Milliseconds()) > budgetMS
}
