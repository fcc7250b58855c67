package scenario_test

import (
	"errors"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/agentreplay/testbed/harness/scenario"
)

// FuzzParse checks that Parse never panics, that a suite it accepts is
// consistent, and that what it rejects is reported as path:line: message.
func FuzzParse(f *testing.F) {
	valid, err := os.ReadFile("testdata/valid.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := scenario.Parse("f.yaml", data, opts)
		if err == nil {
			checkSuite(t, s)
			return
		}
		if s != nil {
			t.Errorf("Parse returned a suite and an error")
		}
		var errs scenario.Errors
		if !errors.As(err, &errs) || len(errs) == 0 || !errors.Is(err, scenario.ErrInvalidSuite) {
			t.Fatalf("Parse error is not a non-empty Errors matching ErrInvalidSuite: %#v", err)
		}
		for _, e := range errs {
			se, ok := e.(*scenario.Error)
			switch {
			case !ok:
				t.Errorf("item %#v is not an *Error", e)
			case se.Path != "f.yaml" || se.Line < 1 || se.Msg == "" || strings.Contains(se.Msg, "\n"):
				t.Errorf("bad item %q", se.Error())
			}
		}
	})
}

func checkSuite(t *testing.T, s *scenario.Suite) {
	if s == nil {
		t.Fatal("Parse returned neither a suite nor an error")
	}
	var names []string
	for _, v := range s.Variants {
		names = append(names, v.Name)
	}
	if !slices.Contains(names, s.Baseline) {
		t.Errorf("baseline %q is not among variants %q", s.Baseline, names)
	}
	if len(s.Scenarios) == 0 {
		t.Errorf("no scenarios")
	}
	ids := map[string]bool{}
	for _, sc := range s.Scenarios {
		if ids[sc.ID] {
			t.Errorf("duplicate id %q", sc.ID)
		}
		ids[sc.ID] = true
		if len(sc.Turns) == 0 {
			t.Errorf("scenario %q has no turns", sc.ID)
		}
		for _, turn := range sc.Turns {
			if turn.Input == "" {
				t.Errorf("scenario %q has a turn without input", sc.ID)
			}
			for v := range turn.Overrides {
				if !slices.Contains(names, v) {
					t.Errorf("scenario %q overrides unknown variant %q", sc.ID, v)
				}
			}
		}
	}
}

// FuzzParseThreshold checks that ParseThreshold never panics and that what it
// accepts is well formed.
func FuzzParseThreshold(f *testing.F) {
	for _, seed := range []string{"latency_p95 < 2s", "pass_rate == 100%", "llm_calls_mean <= baseline", "x!=1e3", "", "a => b", "cost_mean < $0.002"} {
		f.Add(seed)
	}
	ops := []string{"<", "<=", ">", ">=", "==", "!="}
	f.Fuzz(func(t *testing.T, expr string) {
		th, err := scenario.ParseThreshold(expr)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q spans lines", err)
			}
			return
		}
		if th.Source != expr || th.Metric == "" || !slices.Contains(ops, th.Op) ||
			math.IsNaN(th.Value) || math.IsInf(th.Value, 0) || th.Baseline && th.Value != 0 ||
			!slices.Contains([]string{"", "s", "%", "$"}, th.Unit) {
			t.Errorf("ParseThreshold(%q) = %+v", expr, th)
		}
	})
}
