package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/harness/trace"
)

// faultSection lays out, per variant, the faults the stand-ins injected,
// how many were handled (in runs that passed) and the crashes, with the
// kinds seen.
func faultSection(order []*Variant) (section, bool) {
	sec := section{title: "injected faults", table: table{
		header: []string{"variant", "injected", "handled", "crashes", "kinds"},
		right:  []bool{false, true, true, true, false},
		wrap:   []bool{false, false, false, false, true},
	}}
	for _, v := range order {
		s := v.Summary
		if s.Faults == 0 && s.Crashes == 0 {
			continue
		}
		kinds := map[string]int{}
		for _, sc := range v.Scenarios {
			for _, e := range sc.Events {
				if e.Kind == trace.KindHTTP && e.HTTP.Fault != "" {
					kinds[e.HTTP.Fault]++
				}
			}
		}
		names := make([]string, 0, len(kinds))
		for k := range kinds {
			names = append(names, k)
		}
		sort.Strings(names)
		for i, k := range names {
			names[i] = fmt.Sprintf("%s×%d", k, kinds[k])
		}
		sec.table.rows = append(sec.table.rows, []string{v.Name, strconv.Itoa(s.Faults), strconv.Itoa(s.FaultsHandled),
			strconv.Itoa(s.Crashes), strings.Join(names, ", ")})
	}
	return sec, len(sec.table.rows) > 0
}

// faultsByAgent totals the injected faults, those handled and the crashes
// per agent over the whole report.
func faultsByAgent(r *Report) (section, bool) {
	sec := section{title: "faults by agent", table: table{
		header: []string{"agent", "injected", "handled", "crashes"},
		right:  []bool{false, true, true, true},
	}}
	var agents []string
	totals := map[string][3]int{}
	for _, s := range r.Suites {
		for _, v := range s.Variants {
			t, seen := totals[s.Agent]
			if !seen {
				agents = append(agents, s.Agent)
			}
			t[0] += v.Summary.Faults
			t[1] += v.Summary.FaultsHandled
			t[2] += v.Summary.Crashes
			totals[s.Agent] = t
		}
	}
	any := false
	for _, a := range agents {
		t := totals[a]
		any = any || t != [3]int{}
		sec.table.rows = append(sec.table.rows, []string{a, strconv.Itoa(t[0]), strconv.Itoa(t[1]), strconv.Itoa(t[2])})
	}
	return sec, any
}
