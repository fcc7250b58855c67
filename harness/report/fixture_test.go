package report_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

// fixture is a two-suite report: odbchat with a baseline listed after the
// variant compared to it, a failing and a stale scenario, passing and
// failing thresholds, roles, unplayed interactions, and routing confusion
// and payload trimming built from the scenarios; climate with one variant,
// no baseline run, no expected routes, and token reduction over a tool
// called twice and one that failed with no raw payload.
func fixture() *report.Report {
	ms := time.Millisecond
	ac1Events := []trace.Event{
		{Kind: trace.KindLLM, Turn: 1, At: 0, LLM: &trace.LLMCall{
			Role: "router", Model: "gemma3:4b", Duration: 412 * ms,
			Input: trace.Parts{System: 610, Tools: 480, User: 18, Overhead: 12}, Output: 34,
			Reported:  &trace.Usage{Input: 1118, Output: 34},
			ToolCalls: []trace.Call{{Name: "ghrsst.bbox_mean", Arguments: json.RawMessage(`{"bbox":[118,20,123.5,26.5]}`)}},
		}},
		{Kind: trace.KindHTTP, Turn: 1, At: 0, HTTP: &trace.Exchange{
			Method: "POST", URL: "http://localhost:11434/v1/chat/completions", Status: 200, Duration: 412 * ms}},
		{Kind: trace.KindTool, Turn: 1, At: 412 * ms, Tool: &trace.ToolCall{
			Name: "ghrsst.bbox_mean", Args: json.RawMessage(`{"bbox":[118,20,123.5,26.5]}`),
			RawBytes: 5120, RawTokens: 1480, ContextTokens: 96}},
		{Kind: trace.KindHTTP, Turn: 1, At: 412 * ms, HTTP: &trace.Exchange{
			Method: "GET", URL: "https://eco.odb.ntu.edu.tw/api/ghrsst/bbox", Status: 200, Duration: 388 * ms}},
		{Kind: trace.KindNote, Turn: 1, At: 800 * ms, Note: &trace.Note{Key: "route", Value: "tool:ghrsst.bbox_mean"}},
		{Kind: trace.KindNote, Turn: 1, At: 800 * ms, Note: &trace.Note{Key: "t_classify_ms", Value: 412.0}},
	}
	pointSeries := trace.Event{Kind: trace.KindTool, Turn: 1, At: 420 * ms, Tool: &trace.ToolCall{
		Name: "ghrsst.point_series", Args: json.RawMessage(`{"lat":25,"lon":123,"start":"2025-10-01","end":"2025-11-06"}`),
		RawBytes: 10240, RawTokens: 2900, ContextTokens: 410}}
	routerAnswer := func(router, answer time.Duration, rin, ain int) map[string]trace.Role {
		return map[string]trace.Role{
			"router": {Calls: 1, InputTokens: rin, OutputTokens: 30, Latency: router},
			"answer": {Calls: 1, InputTokens: ain, OutputTokens: 140, Latency: answer},
		}
	}
	legacy := report.Variant{
		Name:        "legacy",
		Description: "2-way classifier, then RAG one-pass",
		Provenance:  "rule-based stand-in shaped like gemma3:4b's API",
		Scenarios: []report.Scenario{
			{ID: "ac1-taiwan-sst", Criterion: "AC-1", Verdict: report.VerdictPass,
				Route: "tool:ghrsst.bbox_mean", ExpectedRoute: "tool:ghrsst.bbox_mean",
				Checks: []report.Check{{Turn: 1, Name: "route", Pass: true}},
				Answer: []string{"台灣周遭海溫約 27.4 °C。"},
				Metrics: trace.Metrics{LLMCalls: 2, ToolCalls: 1, HTTPCalls: 3,
					Input:       trace.Parts{System: 1220, Tools: 480, History: 120, ToolResults: 96, User: 36, Overhead: 24},
					InputTokens: 1976, OutputTokens: 170, RawTokens: 1480, ContextTokens: 96,
					CostUSD: 0.0010624, PricedCalls: 2,
					Latency: 1523 * ms, Roles: routerAnswer(412*ms, 723*ms, 1120, 856)},
				Events: ac1Events},
			{ID: "ac2-kuroshio-trend", Criterion: "AC-2", Verdict: report.VerdictPass,
				Route: "tool:ghrsst.point_series", ExpectedRoute: "tool:ghrsst.point_series",
				Checks: []report.Check{{Turn: 1, Name: "route", Pass: true}},
				Answer: []string{"The Kuroshio warmed by 0.3 °C."},
				Metrics: trace.Metrics{LLMCalls: 2, ToolCalls: 1, HTTPCalls: 3,
					Input:       trace.Parts{System: 1220, Tools: 480, History: 140, ToolResults: 410, User: 40, Overhead: 24},
					InputTokens: 2314, OutputTokens: 190, RawTokens: 2900, ContextTokens: 410,
					CostUSD: 0.0012296, PricedCalls: 2,
					Latency: 1870 * ms, Roles: routerAnswer(420*ms, 1010*ms, 1124, 1190)},
				Events: []trace.Event{pointSeries}},
			{ID: "ac3-docs-howto", Criterion: "AC-3", Verdict: report.VerdictPass,
				Route: "rag", ExpectedRoute: "rag",
				Answer: []string{"Use the /api/ghrsst endpoint."},
				Metrics: trace.Metrics{LLMCalls: 2, HTTPCalls: 2,
					Input:       trace.Parts{System: 1220, Tools: 0, History: 0, ToolResults: 0, User: 30, Overhead: 16},
					InputTokens: 1266, OutputTokens: 210,
					CostUSD: 0.0008424, PricedCalls: 1, UnpricedCalls: 1, CountedCalls: 1,
					Latency: 1402 * ms, Roles: routerAnswer(398*ms, 1004*ms, 640, 626)}},
		},
		Summary: report.Summary{Scenarios: 3, Passed: 3, PassRate: 1, Routed: 3, RoutingAccuracy: 1,
			LLMCallsMean: 2, ToolCallsMean: 2.0 / 3, InputTokensMean: 1852, OutputTokensMean: 190,
			TokenReduction: 1 - 506.0/4380, LatencyMean: 1598.333, LatencyP50: 1523, LatencyP95: 1835.3, LatencyP99: 1863.1,
			Cost: report.Spend{Mean: 0.0010448, P95: 0.0012296, Total: 0.0031344, Priced: 5, Unpriced: 1, Counted: 1}},
	}
	singlePass := report.Variant{
		Name:        "single-pass",
		Description: "single-pass classifier+router",
		Provenance:  "rule-based stand-in shaped like gemma3:4b's API",
		Scenarios: []report.Scenario{
			{ID: "ac1-taiwan-sst", Criterion: "AC-1", Verdict: report.VerdictPass,
				Route: "tool:ghrsst.bbox_mean", ExpectedRoute: "tool:ghrsst.bbox_mean",
				Checks: []report.Check{{Turn: 1, Name: "route", Pass: true}},
				Answer: []string{"台灣周遭海溫約 27.4 °C。"},
				Metrics: trace.Metrics{LLMCalls: 1, ToolCalls: 1, HTTPCalls: 2,
					Input:       trace.Parts{System: 720, Tools: 480, ToolResults: 96, User: 18, Overhead: 12},
					InputTokens: 1326, OutputTokens: 150, RawTokens: 1480, ContextTokens: 96,
					CostUSD: 0.0007704, PricedCalls: 1,
					Latency: 902 * ms, Roles: map[string]trace.Role{"planner": {Calls: 1, InputTokens: 1326, OutputTokens: 150, Latency: 514 * ms}}},
				Events: ac1Events[:3]},
			{ID: "ac2-kuroshio-trend", Criterion: "AC-2", Verdict: report.VerdictFail,
				Route: "tool:ghrsst.bbox_mean", ExpectedRoute: "tool:ghrsst.point_series",
				Checks: []report.Check{
					{Turn: 1, Name: "route", Pass: false, Detail: "got tool:ghrsst.bbox_mean, want tool:ghrsst.point_series"},
					{Turn: 1, Name: "args", Pass: true},
					{Turn: 2, Name: "answer.language", Pass: false, Detail: "got en, want zh"},
				},
				Answer: []string{"SST is 27.1 °C.", "It rose."},
				Metrics: trace.Metrics{LLMCalls: 2, ToolCalls: 1, HTTPCalls: 3,
					Input:       trace.Parts{System: 1440, Tools: 960, History: 200, ToolResults: 96, User: 52, Overhead: 24},
					InputTokens: 2772, OutputTokens: 260, RawTokens: 1480, ContextTokens: 96,
					UnpricedCalls: 2,
					Latency:       1843500 * time.Microsecond,
					Roles:         map[string]trace.Role{"planner": {Calls: 2, InputTokens: 2772, OutputTokens: 260, Latency: 1200 * ms}}},
				Events: []trace.Event{ac1Events[2]}},
			{ID: "ac3-docs-howto", Criterion: "AC-3", Verdict: report.VerdictStale,
				ExpectedRoute: "rag",
				Error: "cassette cassettes/odbchat/single-pass/ac3-docs-howto.yaml has no match for POST http://localhost:11434/v1/chat/completions\n" +
					"nearest differs at /messages/0/content\n" +
					"re-record with: testbed record --suite odbchat --scenario ac3-docs-howto",
				Metrics:    trace.Metrics{LLMCalls: 0},
				Unmeasured: true, // as package runner sets it
				Unplayed:   2},
		},
		// over the two runs measured: the stale one is Incomplete
		Summary: report.Summary{Scenarios: 3, Passed: 1, PassRate: 1.0 / 3, Routed: 3, RoutingAccuracy: 1.0 / 3,
			LLMCallsMean: 1.5, ToolCallsMean: 1, InputTokensMean: 2049, OutputTokensMean: 205,
			TokenReduction: 1 - 192.0/2960, LatencyMean: 1372.75, LatencyP50: 902, LatencyP95: 1843.5, LatencyP99: 1843.5,
			Incomplete: 1,
			Cost:       report.Spend{Mean: 0.0003852, P95: 0.0007704, Total: 0.0007704, Priced: 1, Unpriced: 2, Unmeasured: 1}},
		Thresholds: []report.Threshold{
			{Source: "routing_accuracy >= 0.95", Observed: 1.0 / 3, Target: 0.95, Pass: false, Detail: "1 of 3 routed as expected"},
			{Source: "llm_calls_mean <= baseline", Observed: 1, Target: 2, Pass: true, Detail: "baseline legacy"},
			{Source: "latency_p95 < 2s", Observed: 1749.3, Target: 2000, Pass: true},
			{Source: "input_tokens_mean <= baseline", Observed: 1366, Target: 1852, Pass: true},
		},
	}
	for _, v := range []*report.Variant{&legacy, &singlePass} {
		v.Confusion = report.Confusion(v.Scenarios)
		v.Trimming = report.Trimming(v.Scenarios)
	}
	// The rainfall tool called twice, and a forecast call that failed
	// upstream: no raw payload, only the error put into the context.
	climateEvents := []trace.Event{
		{Kind: trace.KindTool, Turn: 0, At: 640 * ms, Tool: &trace.ToolCall{
			Name: "cwa.rainfall", Args: json.RawMessage(`{"station":"466920","date":"2025-11-05"}`),
			RawBytes: 4410, RawTokens: 1310, ContextTokens: 402}},
		{Kind: trace.KindTool, Turn: 0, At: 1280 * ms, Tool: &trace.ToolCall{
			Name: "cwa.rainfall", Args: json.RawMessage(`{"station":"467410","date":"2025-11-05"}`),
			RawBytes: 4530, RawTokens: 1336, ContextTokens: 371}},
		{Kind: trace.KindTool, Turn: 0, At: 1900 * ms, Tool: &trace.ToolCall{
			Name: "cwa.forecast", Args: json.RawMessage(`{"county":"Taipei"}`),
			ContextTokens: 39, Error: "upstream answered 503 Service Unavailable"}},
	}
	climate := report.Suite{
		Name: "climate", Agent: "climate", Tokenizer: "cl100k_base",
		Variants: []report.Variant{{
			Name: "trimmed",
			Scenarios: []report.Scenario{{
				ID: "c1-rainfall", Verdict: report.VerdictPass, Route: "tool:cwa.rainfall",
				Answer: []string{"Rainfall was 12 mm."},
				Metrics: trace.Metrics{LLMCalls: 3, ToolCalls: 3, HTTPCalls: 6,
					Input:       trace.Parts{System: 900, Tools: 650, History: 300, ToolResults: 812, User: 25, Overhead: 30},
					InputTokens: 2717, OutputTokens: 95, RawTokens: 2646, ContextTokens: 812,
					Latency: 2310 * ms},
				Events: climateEvents,
			}},
			Summary: report.Summary{Scenarios: 1, Passed: 1, PassRate: 1, LLMCallsMean: 3, ToolCallsMean: 3,
				InputTokensMean: 2717, OutputTokensMean: 95, TokenReduction: 1 - 812.0/2646,
				LatencyMean: 2310, LatencyP50: 2310, LatencyP95: 2310, LatencyP99: 2310},
			Thresholds: []report.Threshold{{Source: "token_reduction >= 0.6", Observed: 1 - 812.0/2646, Target: 0.6, Pass: true}},
		}},
	}
	climate.Variants[0].Trimming = report.Trimming(climate.Variants[0].Scenarios)
	return &report.Report{
		SchemaVersion: report.SchemaVersion,
		Mode:          "replay",
		Suites: []report.Suite{
			{Name: "odbchat", Agent: "odbchat", Tokenizer: "o200k_base", Baseline: "legacy",
				Variants: []report.Variant{singlePass, legacy}},
			climate,
		},
	}
}

// passing is a report in which everything passed.
func passing() *report.Report {
	r := fixture()
	r.Suites = r.Suites[1:]
	return r
}

// large is a report with n scenarios under each of two variants, every one
// with a few events, for the benchmarks.
func large(n int) *report.Report {
	r := fixture()
	s := &r.Suites[0]
	for v := range s.Variants {
		proto := s.Variants[v].Scenarios
		scenarios := make([]report.Scenario, n)
		for i := range scenarios {
			sc := proto[i%len(proto)]
			sc.ID = fmt.Sprintf("%s-%03d", sc.ID, i)
			sc.Events = proto[0].Events
			scenarios[i] = sc
		}
		s.Variants[v].Scenarios = scenarios
		s.Variants[v].Summary.Scenarios = n
	}
	return r
}
