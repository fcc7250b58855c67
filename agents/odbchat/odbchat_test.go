package odbchat_test

import (
	"encoding/json"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/odbchat"
)

var _ = Describe("the single-pass router", func() {
	var (
		w *world
		a agents.Agent
	)

	BeforeEach(func() {
		w = newWorld()
		a = w.agent(singlePass)
	})

	It("AC-1: answers Taiwan's SST today from ghrsst.bbox_mean in one LLM call", func() {
		env := ask(a, "現在台灣周遭海溫多少？")

		Expect(env.Mode).To(Equal("tool"))
		Expect(env.Source).To(Equal(odbchat.ToolBBoxMean))
		// Means of taiwan_nearby_2025-11-06.json (fixtures/odbchat/ghrsst/README.md).
		Expect(env.Text).To(Equal("2025-11-06：台灣周遭海溫約 26.4 °C，距平 +0.21 °C。"))
		Expect(env.Confidence).To(BeNumerically(">", 0))
		Expect(w.model.roles()).To(Equal([]string{"router"}))

		Expect(env.Raw.Plan.Decision).To(Equal(odbchat.DecisionMCP))
		Expect(env.Raw.Plan.Tool.Name).To(Equal(odbchat.ToolBBoxMean))
		Expect(env.Raw.ToolResult.Region).To(Equal([]float64{118, 20, 123.5, 26.5}))
		Expect(env.Raw.ToolResult.Date).To(Equal("2025-11-06"))
		Expect(env.Raw.ToolResult.RequestedDate).To(BeEmpty())
		Expect(env.Raw.ToolResult.Sample).To(Equal(30))
		Expect(*env.Raw.ToolResult.SST).To(BeNumerically("~", 26.40, 0.005))
		Expect(*env.Raw.ToolResult.SSTAnomaly).To(BeNumerically("~", 0.21, 0.005))
		Expect(env.Raw.Trace.RetriedYesterday).To(BeFalse())

		Expect(w.tracer.Noted(agents.NoteRoute)).To(Equal([]any{agents.Route{Mode: "tool", Tool: odbchat.ToolBBoxMean}}))
		Expect(w.tracer.Reports("")).To(HaveLen(1))
		call := w.tracer.Reports("")[0]
		Expect(call.Name).To(Equal(odbchat.ToolBBoxMean))
		Expect(call.Err).NotTo(HaveOccurred())
		Expect(string(call.Raw)).To(ContainSubstring(`"sample":30`), "the tool's structured result")
		Expect(call.Args).To(MatchJSON(`{"bbox":[118,20,123.5,26.5],"date":"2025-11-06","fields":["sst","sst_anomaly"]}`))

		// One MCP session per call, as the real server's proxy opens one.
		Expect(w.transport.jsonRPCMethods(ghrsstHost)).To(Equal([]string{"initialize", "notifications/initialized", "tools/call", http.MethodDelete}))
		calls := w.transport.toolCalls(ghrsstHost)
		Expect(calls).To(HaveLen(1))
		Expect(calls[0].Name).To(Equal(odbchat.ToolBBoxMean))
		Expect(calls[0].Arguments).To(Equal(map[string]any{"bbox": []any{118.0, 20.0, 123.5, 26.5}, "date": "2025-11-06", "fields": []any{"sst", "sst_anomaly"}}))
	})

	It("AC-1: the envelope marshals to the seed's uniform shape", func() {
		b, err := json.Marshal(ask(a, "現在台灣周遭海溫多少？"))
		Expect(err).NotTo(HaveOccurred())
		var env map[string]any
		Expect(json.Unmarshal(b, &env)).To(Succeed())
		Expect(env).To(HaveKeyWithValue("mode", "tool"))
		Expect(env).To(HaveKeyWithValue("source", "ghrsst.bbox_mean"))
		Expect(env).To(HaveKey("text"))
		Expect(env).To(HaveKey("confidence"))
		raw := env["raw"].(map[string]any)
		Expect(raw["plan"]).To(HaveKeyWithValue("decision", "mcp"))
		Expect(raw["tool_result"]).To(HaveKeyWithValue("region", []any{118.0, 20.0, 123.5, 26.5}))
		Expect(raw["trace"]).To(HaveKeyWithValue("retried_yesterday", false))
		Expect(raw["trace"]).To(HaveKey("t_classify_ms"))
	})

	It("AC-2: answers a point off Hualien from ghrsst.point_value", func() {
		env := ask(a, "花蓮外海 121.7E,24.0N 今天呢？")

		Expect(env.Mode).To(Equal("tool"))
		Expect(env.Source).To(Equal(odbchat.ToolPointValue))
		Expect(env.Text).To(Equal("2025-11-06：point [121.7, 24] 海溫約 26.6 °C，距平 +0.36 °C。"))
		Expect(env.Raw.ToolResult.Region).To(Equal([]float64{121.7, 24}))
		Expect(w.model.roles()).To(Equal([]string{"router"}))
		Expect(w.tracer.Noted(agents.NoteRoute)).To(Equal([]any{agents.Route{Mode: "tool", Tool: odbchat.ToolPointValue}}))

		calls := w.transport.toolCalls(ghrsstHost)
		Expect(calls).To(HaveLen(1))
		Expect(calls[0].Name).To(Equal(odbchat.ToolPointValue))
		Expect(calls[0].Arguments).To(Equal(map[string]any{"longitude": 121.7, "latitude": 24.0, "date": "2025-11-06", "fields": []any{"sst", "sst_anomaly"}}))
	})

	It("AC-3: explains GHRSST from the knowledge base with citations in two LLM calls", func() {
		env := ask(a, "GHRSST 是什麼？")

		Expect(env.Mode).To(Equal("explain"))
		Expect(env.Source).To(Equal("rag.explain"))
		Expect(env.Raw.Plan.Decision).To(Equal(odbchat.DecisionExplain))
		Expect(env.Raw.ToolResult).To(BeNil())
		Expect(env.Text).To(HavePrefix("根據 ODB 知識庫："))
		Expect(env.Text).To(ContainSubstring("[1]"))
		Expect(env.Raw.Citations).NotTo(BeEmpty())
		Expect(env.Raw.Citations[0].Title).To(ContainSubstring("GHRSST"))
		Expect(w.model.roles()).To(Equal([]string{"router", "onepass"}))
		Expect(w.tracer.Noted(agents.NoteRoute)).To(Equal([]any{agents.Route{Mode: "explain"}}))
		Expect(w.tracer.Reports("rag.search")).To(HaveLen(1))
		Expect(w.transport.requests(ghrsstHost)).To(BeEmpty())
	})

	It("AC-4: writes code for a code request", func() {
		env := ask(a, "幫我把以下 JSON 轉 CSV 的 Python")

		Expect(env.Mode).To(Equal("code"))
		Expect(env.Source).To(Equal("rag.code"))
		Expect(env.Text).To(HavePrefix("```python\n"))
		Expect(env.Text).To(ContainSubstring("csv"))
		Expect(w.model.roles()).To(Equal([]string{"router", "onepass"}))
		Expect(w.tracer.Noted(agents.NoteRoute)).To(Equal([]any{agents.Route{Mode: "code"}}))
		Expect(w.transport.requests(ghrsstHost)).To(BeEmpty())
	})

	It("falls back to yesterday when today has no data yet, and says so", func() {
		env := ask(a, "What is the sea surface temperature around the Hawaiian Islands today?")

		Expect(env.Mode).To(Equal("tool"))
		Expect(env.Raw.ToolResult.Date).To(Equal("2025-11-05"))
		Expect(env.Raw.ToolResult.RequestedDate).To(Equal("2025-11-06"))
		Expect(env.Raw.ToolResult.Region).To(Equal([]float64{-162.5, 18.5, -153.5, 23}))
		Expect(env.Raw.Trace.RetriedYesterday).To(BeTrue())
		Expect(env.Text).To(Equal("2025-11-05, around the Hawaiian Islands: SST ≈ 26.8 °C, anomaly +0.31 °C. (no data yet for 2025-11-06; showing the day before)"))
		Expect(w.tracer.Noted("retried_yesterday")).To(Equal([]any{true}))

		calls := w.transport.toolCalls(ghrsstHost)
		Expect(calls).To(HaveLen(2))
		Expect(calls[0].Arguments["date"]).To(Equal("2025-11-06"))
		Expect(calls[1].Arguments["date"]).To(Equal("2025-11-05"))
		Expect(w.transport.jsonRPCMethods(ghrsstHost)).To(HaveLen(8), "a session for each call")
		Expect(w.tracer.Reports(odbchat.ToolBBoxMean)).To(HaveLen(2))
		Expect(w.tracer.Reports(odbchat.ToolBBoxMean)[0].Err).To(HaveOccurred())
	})

	It("falls back to yesterday for a point too, in Chinese", func() {
		env := ask(a, "今天 157.8W, 21.3N 的海溫")
		Expect(env.Mode).To(Equal("tool"))
		Expect(env.Raw.ToolResult.Region).To(Equal([]float64{-157.8, 21.3}))
		Expect(env.Text).To(Equal("2025-11-05：point [-157.8, 21.3] 海溫約 26.7 °C，距平 +0.29 °C。（原請求 2025-11-06 尚無資料，改用前一日）"))
	})

	DescribeTable("answers data questions with the fixture means",
		func(q, text string, region []float64) {
			env := ask(a, q)
			Expect(env.Mode).To(Equal("tool"))
			Expect(env.Text).To(Equal(text))
			Expect(env.Raw.ToolResult.Region).To(Equal(region))
			Expect(env.Raw.Trace.RetriedYesterday).To(BeFalse())
		},
		Entry("Taiwan Strait yesterday", "台灣海峽昨天的海溫",
			"2025-11-05：台灣海峽海溫約 25.9 °C，距平 +0.16 °C。", []float64{118, 21.5, 121.5, 26}),
		Entry("Taiwan Strait the day before yesterday", "台灣海峽前天的海溫",
			"2025-11-04：台灣海峽海溫約 25.9 °C，距平 +0.14 °C。", []float64{118, 21.5, 121.5, 26}),
		Entry("an explicit date", "2025-11-01 台灣周遭海溫",
			"2025-11-01：台灣周遭海溫約 26.6 °C，距平 +0.25 °C。", []float64{118, 20, 123.5, 26.5}),
		Entry("a bbox list, in English", "Mean SST over [119, 21, 123, 26] on 2025-11-01",
			"2025-11-01, bbox [119, 21, 123, 26]: SST ≈ 26.5 °C, anomaly +0.25 °C.", []float64{119, 21, 123, 26}),
		Entry("a point written latitude first", "(23N, 123E) 今天海溫",
			"2025-11-06：point [123, 23] 海溫約 26.2 °C，距平 +0.21 °C。", []float64{123, 23}),
		Entry("a region without a date word defaults to today", "台灣周遭海溫多少",
			"2025-11-06：台灣周遭海溫約 26.4 °C，距平 +0.21 °C。", []float64{118, 20, 123.5, 26.5}),
	)

	It("normalizes a reversed bbox before calling GHRSST", func() {
		env := ask(a, "[123.5, 26, 121, 22] 2025-11-05 的海溫")

		Expect(env.Mode).To(Equal("tool"))
		Expect(env.Raw.Plan.Tool.Arguments["bbox"]).To(Equal([]any{123.5, 26.0, 121.0, 22.0}))
		Expect(env.Raw.ToolResult.Region).To(Equal([]float64{121, 22, 123.5, 26}))
		Expect(env.Raw.ToolResult.Arguments.BBox).To(Equal([]float64{121, 22, 123.5, 26}))
		Expect(env.Text).To(Equal("2025-11-05：bbox [121, 22, 123.5, 26] 海溫約 26.2 °C，距平 +0.26 °C。"))
		calls := w.transport.toolCalls(ghrsstHost)
		Expect(calls).To(HaveLen(1))
		Expect(calls[0].Arguments["bbox"]).To(Equal([]any{121.0, 22.0, 123.5, 26.0}))
		Expect(env.Raw.ToolResult.Sample).To(Equal(16))
	})

	Describe("errors", func() {
		It("maps a service without dates to UNAVAILABLE, without retrying", func() {
			env := ask(a, "130.5E, 30.2N 今天的海溫？")
			Expect(env.Mode).To(Equal("error"))
			Expect(env.Source).To(Equal(odbchat.ToolPointValue))
			Expect(env.Text).To(HavePrefix("目前無法取得資料（UNAVAILABLE）："))
			Expect(env.Raw.ToolResult.Error.Code).To(Equal(odbchat.CodeUnavailable))
			Expect(env.Raw.Trace.RetriedYesterday).To(BeFalse())
			Expect(w.transport.toolCalls(ghrsstHost)).To(HaveLen(1))
		})

		It("answers an English question in English", func() {
			env := ask(a, "SST at 130.5E, 30.2N today?")
			Expect(env.Mode).To(Equal("error"))
			Expect(env.Text).To(Equal("The data service is unavailable (UNAVAILABLE): GHRSST API error (503): No available dates."))
		})

		It("maps a date before the record to NOT_FOUND and retries only today", func() {
			env := ask(a, "1990-01-01 台灣周遭海溫")
			Expect(env.Mode).To(Equal("error"))
			Expect(env.Text).To(HavePrefix("查無資料（NOT_FOUND）："))
			Expect(env.Text).To(ContainSubstring("2025-11-06"), "the last available date the service named")
			Expect(env.Raw.ToolResult.Error.Code).To(Equal(odbchat.CodeNotFound))
			Expect(env.Raw.Trace.RetriedYesterday).To(BeFalse())
			Expect(w.transport.toolCalls(ghrsstHost)).To(HaveLen(1))
		})

		It("rejects an impossible point as INVALID_ARGUMENT without calling GHRSST", func() {
			env := ask(a, "(200E, 95N) 的海溫")
			Expect(env.Mode).To(Equal("error"))
			Expect(env.Text).To(HavePrefix("參數有誤（INVALID_ARGUMENT）："))
			Expect(env.Raw.ToolResult.Error.Code).To(Equal(odbchat.CodeInvalidArgument))
			Expect(w.transport.requests(ghrsstHost)).To(BeEmpty())
			Expect(w.tracer.Noted("tool_rejected")).To(HaveLen(1))
			Expect(w.tracer.Reports(odbchat.ToolPointValue)).To(HaveLen(1))
			Expect(w.tracer.Reports(odbchat.ToolPointValue)[0].Raw).To(BeNil())
		})

		It("maps a land cell to NOT_FOUND", func() {
			env := ask(a, "澎湖 119.6E, 23.6N 今天的海溫")
			Expect(env.Mode).To(Equal("error"))
			Expect(env.Raw.ToolResult.Error.Code).To(Equal(odbchat.CodeNotFound))
			Expect(env.Text).To(HavePrefix("查無資料（NOT_FOUND）："))
			Expect(env.Text).To(ContainSubstring("2025-11-06"))
			Expect(env.Text).NotTo(ContainSubstring("routes.yaml"))
			// Today answered, with land cells: yesterday cannot be sea.
			Expect(env.Raw.Trace.RetriedYesterday).To(BeFalse())
			Expect(w.transport.toolCalls(ghrsstHost)).To(HaveLen(1))
			Expect(w.tracer.Noted("retried_yesterday")).To(BeEmpty())
		})

		It("says a land cell has no sea-surface data, in English", func() {
			env := ask(a, "SST at Penghu, 119.6E 23.6N, today")
			Expect(env.Text).To(Equal("No data (NOT_FOUND): no sea-surface data on 2025-11-06 at this location (land or ice)"))
			Expect(w.transport.toolCalls(ghrsstHost)).To(HaveLen(1))
		})

		It("maps 'Too many points' to INVALID_ARGUMENT", func() {
			env := ask(a, "Mean SST over [122, 24, 122.5, 24.5] today")
			Expect(env.Mode).To(Equal("error"))
			Expect(env.Text).To(Equal("Invalid request (INVALID_ARGUMENT): Unable to satisfy bbox request within point limit retries."))
			Expect(env.Raw.Trace.RetriedYesterday).To(BeFalse())
			Expect(w.transport.toolCalls(ghrsstHost)).To(HaveLen(1))
		})
	})

	Describe("timings", func() {
		It("measures a tool answer on the injected clock", func() {
			env := ask(a, "現在台灣周遭海溫多少？")
			Expect(env.Raw.Trace.ClassifyMS).To(Equal(ms(1)))
			// Four requests: initialize, notifications/initialized, tools/call, DELETE.
			Expect(env.Raw.Trace.MCPMS).To(Equal(ms(4)))
			Expect(env.Raw.Trace.AnswerMS).To(BeZero())
			Expect(env.Raw.Trace.TotalMS).To(Equal(ms(5)))
			Expect(w.tracer.Noted("t_classify_ms")).To(Equal([]any{ms(1)}))
			Expect(w.tracer.Noted("t_mcp_ms")).To(Equal([]any{ms(4)}))
			Expect(w.tracer.Noted("t_total_ms")).To(Equal([]any{ms(5)}))
		})

		It("counts the retry in t_mcp_ms", func() {
			env := ask(a, "What is the sea surface temperature around the Hawaiian Islands today?")
			Expect(env.Raw.Trace.ClassifyMS).To(Equal(ms(1)))
			Expect(env.Raw.Trace.MCPMS).To(Equal(ms(8)))
			Expect(env.Raw.Trace.TotalMS).To(Equal(ms(9)))
		})

		It("measures an explain answer", func() {
			env := ask(a, "GHRSST 是什麼？")
			Expect(env.Raw.Trace.ClassifyMS).To(Equal(ms(1)))
			Expect(env.Raw.Trace.MCPMS).To(BeZero())
			Expect(env.Raw.Trace.AnswerMS).To(Equal(ms(1)))
			Expect(env.Raw.Trace.TotalMS).To(Equal(ms(2)))
		})
	})

	It("answers every turn of a conversation and notes the turn index", func() {
		ans, err := a.Run(ctx(), agents.Input{Turns: []string{"現在台灣周遭海溫多少？", "GHRSST 是什麼？"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(ans.Replies).To(HaveLen(2))
		Expect(ans.Replies[0].Data.(odbchat.Envelope).Mode).To(Equal("tool"))
		Expect(ans.Replies[1].Data.(odbchat.Envelope).Mode).To(Equal("explain"))
		Expect(w.tracer.Noted(agents.NoteTurn)).To(Equal([]any{0, 1}))
	})
})

var _ = Describe("the legacy classifier", func() {
	It("AC-1 ends in code mode after two LLM calls, without calling GHRSST", func() {
		w := newWorld()
		env := ask(w.agent(legacy), "現在台灣周遭海溫多少？")

		Expect(env.Mode).To(Equal("code"))
		Expect(env.Source).To(Equal("rag.code"))
		Expect(env.Text).To(ContainSubstring("```python"))
		Expect(env.Raw.Plan.Decision).To(Equal(odbchat.DecisionCode))
		Expect(w.model.roles()).To(Equal([]string{"classifier", "onepass"}))
		Expect(w.transport.requests(ghrsstHost)).To(BeEmpty())
		Expect(w.tracer.Noted(agents.NoteRoute)).To(Equal([]any{agents.Route{Mode: "code"}}))
	})

	It("explains a definition", func() {
		w := newWorld()
		env := ask(w.agent(legacy), "GHRSST 是什麼？")
		Expect(env.Mode).To(Equal("explain"))
		Expect(w.model.roles()).To(Equal([]string{"classifier", "onepass"}))
	})
})
