package weather_test

import (
	"testing"

	"github.com/agentreplay/testbed/replaytest"

	"example.com/weatheragent"
)

// TestSuite replays testdata/scenarios/weather.yaml against weather.New
// and gates it against testdata/baseline.json. Record the cassettes again
// after changing a prompt or a tool with
//
//	TESTBED_RECORD=1 go test -run '^TestSuite$' .
//
// and bless the figures after a change you mean with TESTBED_BLESS=1.
func TestSuite(t *testing.T) {
	rep := replaytest.Run(t, "testdata/scenarios/weather.yaml", weather.New,
		replaytest.Baseline("testdata/baseline.json"))
	if rep == nil {
		return
	}
	// The report is data: assert on it like on anything else.
	for _, v := range rep.Suites[0].Variants {
		if v.Name == "trimmed" && v.Summary.TokenReduction < 0.5 {
			t.Errorf("trimmed keeps %.0f%% of the forecast's tokens; want under half", (1-v.Summary.TokenReduction)*100)
		}
	}
}
