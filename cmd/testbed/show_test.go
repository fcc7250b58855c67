package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/trace"
)

var _ = Describe("testbed show", func() {
	It("prints a turn's events before the next turn's at the same instant", func() {
		at := 120 * time.Millisecond
		run := showRun{Scenario: "two-turns", Sample: 1, Samples: 1, Verdict: "pass", Events: []trace.Event{
			{Kind: trace.KindLLM, Turn: 1, At: at, LLM: &trace.LLMCall{Model: "m", Text: "second answer"}},
			{Kind: trace.KindTool, Turn: 0, At: at, Tool: &trace.ToolCall{Name: "get_weather", Args: json.RawMessage(`{}`)}},
		}}
		var out strings.Builder
		writeShow(&out, run, func(s string) string { return s }, false, false)
		tool, call := strings.Index(out.String(), "turn 1  tool get_weather"), strings.Index(out.String(), "turn 2  model call")
		Expect(tool).To(BeNumerically(">=", 0), out.String())
		Expect(call).To(BeNumerically(">", tool), out.String())
	})

	It("names a model call by its model alone when the agent gave no role (an outside agent sends none)", func() {
		run := showRun{Scenario: "s", Sample: 1, Samples: 1, Verdict: "pass", Events: []trace.Event{
			{Kind: trace.KindLLM, LLM: &trace.LLMCall{Model: "gpt-4.1-mini", Text: "hi"}},
			{Kind: trace.KindLLM, LLM: &trace.LLMCall{Role: "planner", Model: "gpt-4.1-mini", Text: "hi"}},
		}}
		var out strings.Builder
		writeShow(&out, run, func(s string) string { return s }, false, false)
		Expect(out.String()).To(ContainSubstring("turn 1  model call (gpt-4.1-mini), 0 ms:"), "not a dash where the role would be")
		Expect(out.String()).To(ContainSubstring("turn 1  model call planner (gpt-4.1-mini), 0 ms:"))
	})

	It("prints one scenario run as a timeline: the model call with what it was sent and answered, the upstream call, the tool, the notes and the checks", func() {
		r := testbed("show", "odbchat/single-pass/ac1-taiwan-sst", "--root", repoRoot)
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(HavePrefix("odbchat/single-pass/ac1-taiwan-sst (sample 1 of 1): PASS, replayed from rule-based stand-in"))
		Expect(r.stdout).To(MatchRegexp(`(?m)^\s+0 ms  turn 1  model call router \(gemma3:4b\), 2,360 ms: in 975 tokens \(system 288, tools 0, history 439, tool results 0, user 209, overhead 39\), out 74$`), "every part, so that they add up to the 975")
		Expect(r.stdout).To(MatchRegexp(`(?m)^\s+sent user: \{"query":"現在台灣周遭海溫多少？".*--all shows them\)$`))
		Expect(r.stdout).To(MatchRegexp(`(?m)^\s+answer: \{"decision":"mcp"`))
		// The GHRSST MCP session: initialize, notifications/initialized, tools/call, DELETE.
		Expect(r.stdout).To(MatchRegexp(`(?m)^2,360 ms  turn 1  POST https://eco\.odb\.ntu\.edu\.tw/mcp/ghrsst → 200 in 20 ms$`))
		Expect(r.stdout).To(MatchRegexp(`(?m)^2,380 ms  turn 1  POST https://eco\.odb\.ntu\.edu\.tw/mcp/ghrsst → 202 in 5 ms$`))
		Expect(r.stdout).To(MatchRegexp(`(?m)^2,385 ms  turn 1  POST https://eco\.odb\.ntu\.edu\.tw/mcp/ghrsst → 200 in 150 ms$`))
		Expect(r.stdout).To(MatchRegexp(`(?m)^2,535 ms  turn 1  DELETE https://eco\.odb\.ntu\.edu\.tw/mcp/ghrsst → 204 in 5 ms$`))
		Expect(r.stdout).To(MatchRegexp(`(?m)^2,540 ms  turn 1  tool ghrsst\.bbox_mean \{"bbox":\[118,20,123\.5,26\.5\].*raw 51 tokens → context 94 tokens$`))
		Expect(r.stdout).To(ContainSubstring("note route {\"mode\":\"tool\",\"tool\":\"ghrsst.bbox_mean\"}"))
		Expect(r.stdout).To(ContainSubstring("reply 1: 2025-11-06：台灣周遭海溫約 26.4 °C"))
		Expect(r.stdout).To(ContainSubstring("✓ turn 1 route (model behaviour)"))
		Expect(r.stdout).To(ContainSubstring("✓ turn 1 llm_calls\n"))

		whole := testbed("show", "odbchat/single-pass/ac1-taiwan-sst", "--root", repoRoot, "--all")
		Expect(whole.stdout).NotTo(ContainSubstring("--all shows them"))
		Expect(whole.stdout).To(ContainSubstring(`"tool_catalog":[{"name":"ghrsst.bbox_mean"`))
	})

	It("replays a scenario of an outside agent kept alive, as the run does", func() {
		root := project()
		odbchatAs(root, "odbchat-kept", fmt.Sprintf("  command: [%s, agent, odbchat, --root, %s]\n  keep_alive: variant\n", buildTestbed(), root))
		r := testbed("show", "odbchat-kept/single-pass/ac1-taiwan-sst", "--root", root)
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(HavePrefix("odbchat-kept/single-pass/ac1-taiwan-sst (sample 1 of 1): PASS"))
		Expect(r.stdout).To(ContainSubstring("reply 1: 2025-11-06：台灣周遭海溫約 26.4 °C"))
	})

	It("prints with --prompt everything each model call was sent: its tools, then every message, the system prompt first", func() {
		r := testbed("show", "climate/trimmed/city-new-york-one-year", "--root", repoRoot, "--prompt")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(MatchRegexp(`(?m)^\s+tool city_inventory_search: Finds the user's inventories for a named city`))
		Expect(r.stdout).To(MatchRegexp(`(?m)^\s+\[1\] system: `))
		Expect(r.stdout).To(MatchRegexp(`(?m)^\s+calls city_inventory_search \{"city_name":"New York","year":2022\} \(call_[0-9a-f]{24}\)$`))
		Expect(r.stdout).To(MatchRegexp(`(?m)^\s+\[\d+\] tool \(city_inventory_search, call_[0-9a-f]{24}\): \{`))
		Expect(r.stdout).NotTo(ContainSubstring("parameters {"), "the tools' parameters only with --all")

		whole := testbed("show", "climate/trimmed/city-new-york-one-year", "--root", repoRoot, "--prompt", "--all")
		Expect(whole.stdout).To(MatchRegexp(`(?m)^\s+parameters \{"type":"object"`))
		Expect(whole.stdout).NotTo(ContainSubstring("--all shows them"))
	})

	It("gives the same as data with --json, what each model call was sent included", func() {
		r := testbed("show", "odbchat/single-pass/ac1-taiwan-sst", "--root", repoRoot, "--json")
		Expect(r.code).To(Equal(exitOK), r.String())
		var got struct {
			Verdict string
			Events  []struct {
				Kind string
				LLM  *struct{ Role, Sent, Text string } `json:"llm"`
			}
			Checks []struct{ Name string }
		}
		Expect(json.Unmarshal([]byte(r.stdout), &got)).To(Succeed())
		Expect(got.Verdict).To(Equal("pass"))
		var sent []string
		for _, e := range got.Events {
			if e.LLM != nil {
				sent = append(sent, e.LLM.Sent)
			}
		}
		Expect(sent).To(ConsistOf(HavePrefix(`user: {"query":"現在台灣周遭海溫多少？"`)))
		Expect(got.Checks).NotTo(BeEmpty())
	})

	It("shows a later sample of a sampled scenario", func() {
		r := testbed("show", "odbchat-sampled/terse-router/strait-yesterday-en#2", "--root", repoRoot)
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(HavePrefix("odbchat-sampled/terse-router/strait-yesterday-en (sample 2 of 5): "))
		Expect(r.stdout).To(ContainSubstring("model call router"))
	})

	DescribeTable("says what is wrong with what it was asked to show",
		func(target, want string) {
			r := testbed("show", target, "--root", repoRoot)
			Expect(r.code).To(Equal(exitUsage), r.String())
			Expect(r.stderr).To(ContainSubstring(want))
		},
		Entry("not suite/variant/scenario", "odbchat/single-pass", "name one scenario run: testbed show <suite>/<variant>/<scenario>[#sample]"),
		Entry("a sample that is not a number", "odbchat/single-pass/ac1-taiwan-sst#two", "#two: want a sample number from 1"),
		Entry("a sample beyond the scenario's", "odbchat/single-pass/ac1-taiwan-sst#2", "ac1-taiwan-sst has 1 samples"),
		Entry("a scenario the suite lacks", "odbchat/single-pass/nope", `no scenario "nope" in the selected suites`),
	)
})
