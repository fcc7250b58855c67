package instruct_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentreplay/testbed/harness/standin/instruct"
)

// BenchmarkRead reads the longest committed prompt (CBA's full prompt, about
// 10 KB, with its 19 tools named), as the stand-in does on every request of
// that agent.
func BenchmarkRead(b *testing.B) {
	text, err := os.ReadFile(filepath.Join("..", "..", "..", "agents", "cba", "prompts", "full.md"))
	if err != nil {
		b.Fatal(err)
	}
	tools := []string{"get_current_weather", "get_weather_forecast", "get_climate_data", "get_soil_properties", "get_soil_carbon",
		"get_country_profile", "get_world_bank_indicator", "search_indicators", "find_indicators_by_principle", "get_indicator_details",
		"find_feasible_methods", "compare_indicators", "export_indicator_selection", "list_tools", "list_tools_by_category",
		"search_tools", "describe_tool", "run_tools_parallel", "get_elevation"}
	b.ReportAllocs()
	for b.Loop() {
		instruct.Read(string(text), tools)
	}
}
