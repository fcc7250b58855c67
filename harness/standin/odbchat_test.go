package standin_test

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin"
)

// args is a tool's expected arguments; the fields the policy always adds
// are filled in by the spec.
type args map[string]any

func withFields(a args) map[string]any {
	out := map[string]any{"fields": []any{"sst", "sst_anomaly"}}
	for k, v := range a {
		out[k] = v
	}
	return out
}

var _ = Describe("the ODBchat router policy", func() {
	var model llm.Client

	BeforeEach(func() {
		model = client(startStandin(standin.Options{}))
	})

	route := func(query string) plan {
		resp := chat(model, routerRequest(query, true))
		var p plan
		Expect(json.Unmarshal([]byte(resp.Message.Content), &p)).To(Succeed(), "router output %q", resp.Message.Content)
		return p
	}

	DescribeTable("routes a question to a tool with arguments",
		func(query, tool string, want args) {
			p := route(query)
			Expect(p.Decision).To(Equal("mcp"), "rationale: %s", p.Rationale)
			Expect(p.Tool).NotTo(BeNil())
			Expect(p.Tool.Name).To(Equal(tool))
			Expect(p.Tool.Arguments).To(Equal(withFields(want)))
			Expect(p.Confidence).To(BeNumerically(">", 0.5))
		},
		Entry("AC-1: Taiwan today, a registry key", "現在台灣周遭海溫多少？",
			"ghrsst.bbox_mean", args{"bbox": "taiwan_nearby", "date": "2025-11-06"}),
		Entry("AC-1 in traditional characters (臺灣)", "今天臺灣附近的海溫？",
			"ghrsst.bbox_mean", args{"bbox": "taiwan_nearby", "date": "2025-11-06"}),
		Entry("a region without a date word sends no date", "台灣周遭海溫多少",
			"ghrsst.bbox_mean", args{"bbox": "taiwan_nearby"}),
		Entry("Taiwan Strait yesterday wins over Taiwan", "台灣海峽昨天的海溫",
			"ghrsst.bbox_mean", args{"bbox": "taiwan_strait", "date": "2025-11-05"}),
		Entry("前天 is two days back", "台灣海峽前天的海溫",
			"ghrsst.bbox_mean", args{"bbox": "taiwan_strait", "date": "2025-11-04"}),
		Entry("the day before yesterday, in English", "Taiwan Strait SST the day before yesterday",
			"ghrsst.bbox_mean", args{"bbox": "taiwan_strait", "date": "2025-11-04"}),
		Entry("an explicit date wins over the clock", "2025-11-01 台灣周遭海溫",
			"ghrsst.bbox_mean", args{"bbox": "taiwan_nearby", "date": "2025-11-01"}),
		Entry("an explicit date with slashes", "臺灣海峽 sea surface temperature 2025/11/04",
			"ghrsst.bbox_mean", args{"bbox": "taiwan_strait", "date": "2025-11-04"}),
		Entry("English, registry region, yesterday", "SST around Taiwan yesterday",
			"ghrsst.bbox_mean", args{"bbox": "taiwan_nearby", "date": "2025-11-05"}),
		Entry("Hawaii, now", "What's the water temperature near Hawaii now?",
			"ghrsst.bbox_mean", args{"bbox": "hawaiian_islands", "date": "2025-11-06"}),
		Entry("夏威夷 today", "夏威夷今天海溫",
			"ghrsst.bbox_mean", args{"bbox": "hawaiian_islands", "date": "2025-11-06"}),
		Entry("'What is the …' is a data question, not a definition", "What is the sea surface temperature around the Hawaiian Islands today?",
			"ghrsst.bbox_mean", args{"bbox": "hawaiian_islands", "date": "2025-11-06"}),
		Entry("a bbox list of four numbers", "2025-11-01 [119, 21, 123, 26] 的平均海溫",
			"ghrsst.bbox_mean", args{"bbox": []any{119.0, 21.0, 123.0, 26.0}, "date": "2025-11-01"}),
		Entry("a reversed bbox is passed on as written (the agent normalizes)", "[123.5, 26, 121, 22] 2025-11-05 的海溫",
			"ghrsst.bbox_mean", args{"bbox": []any{123.5, 26.0, 121.0, 22.0}, "date": "2025-11-05"}),
		Entry("AC-2: a coordinate follow-up without an SST word", "花蓮外海 121.7E,24.0N 今天呢？",
			"ghrsst.point_value", args{"longitude": 121.7, "latitude": 24.0, "date": "2025-11-06"}),
		Entry("a point with hemispheres, latitude first", "今天台灣外海(23N, 123E)海溫多少？",
			"ghrsst.point_value", args{"longitude": 123.0, "latitude": 23.0, "date": "2025-11-06"}),
		Entry("a point wins over the region named beside it", "台灣 121.7E 24N 海溫 today",
			"ghrsst.point_value", args{"longitude": 121.7, "latitude": 24.0, "date": "2025-11-06"}),
		Entry("a plain (lon, lat) pair", "(123,25) 今天海溫多少",
			"ghrsst.point_value", args{"longitude": 123.0, "latitude": 25.0, "date": "2025-11-06"}),
		Entry("a plain pair in full-width brackets", "（120.2，22.6）昨天的水溫",
			"ghrsst.point_value", args{"longitude": 120.2, "latitude": 22.6, "date": "2025-11-05"}),
		Entry("west longitude is negative", "Sea surface temperature at 157.8W, 21.3N yesterday?",
			"ghrsst.point_value", args{"longitude": -157.8, "latitude": 21.3, "date": "2025-11-05"}),
		Entry("south latitude is negative", "SST at 33.9S, 151.2E today",
			"ghrsst.point_value", args{"longitude": 151.2, "latitude": -33.9, "date": "2025-11-06"}),
		Entry("out-of-range numbers are passed on (the agent rejects them)", "(200E, 95N) 的海溫",
			"ghrsst.point_value", args{"longitude": 200.0, "latitude": 95.0}),
	)

	DescribeTable("sends questions that are not data requests to explain or code",
		func(query, decision string) {
			p := route(query)
			Expect(p.Decision).To(Equal(decision), "rationale: %s", p.Rationale)
			Expect(p.Tool).To(BeNil())
		},
		Entry("AC-3: a definition", "GHRSST 是什麼？", "explain"),
		Entry("a definition that names an SST word", "海溫距平是什麼意思？", "explain"),
		Entry("an English definition", "What is an SST anomaly?", "explain"),
		Entry("how a number is computed", "How is the SST anomaly computed?", "explain"),
		Entry("an SST question without a place", "現在的海溫多少？", "explain"),
		Entry("coordinates without an SST word or a date word", "花蓮外海 121.7E,24.0N", "explain"),
		Entry("AC-4: a program", "幫我把以下 JSON 轉 CSV 的 Python", "code"),
		Entry("a program that names an SST place is still code", "Write a Python script to plot SST around Taiwan today", "code"),
		Entry("a script in Chinese", "寫一個程式下載台灣海峽的海溫", "code"),
		Entry("paraphrase the stand-in does not know: 'warm' and 'ocean' without an SST word → explain",
			"How warm is the ocean off Taiwan today?", "explain"),
		Entry("paraphrase the stand-in does not know: 海水…幾度 → explain", "台灣附近的海水現在幾度？", "explain"),
		Entry("paraphrase the stand-in does not know: 'is the sea … warm' → explain", "Is the sea around Taiwan warm today?", "explain"),
	)

	It("answers with the strict JSON keys of the router protocol", func() {
		resp := chat(model, routerRequest("現在台灣周遭海溫多少？", true))
		var raw map[string]json.RawMessage
		Expect(json.Unmarshal([]byte(resp.Message.Content), &raw)).To(Succeed())
		Expect(raw).To(HaveKey("decision"))
		Expect(raw).To(HaveKey("confidence"))
		Expect(raw).To(HaveKey("tool"))
		Expect(raw).To(HaveKey("rationale"))
		Expect(raw).To(HaveKey("needs_followup"))
		Expect(raw).To(HaveKey("followup_question"))
	})

	It("routes the same without few-shot examples", func() {
		resp := chat(model, routerRequest("台灣海峽昨天的海溫", false))
		Expect(resp.Message.Content).To(ContainSubstring(`"taiwan_strait"`))
		Expect(resp.Message.Content).To(ContainSubstring(`"2025-11-05"`))
	})

	It("resolves only regions the request's geo_registry lists", func() {
		req := routerRequest("台灣海峽昨天的海溫", false)
		in, err := json.Marshal(routerInput{Query: "台灣海峽昨天的海溫", Now: now, ToolCatalog: toolCatalog(),
			GeoRegistry: map[string][]float64{"taiwan_nearby": {118, 20, 123.5, 26.5}}})
		Expect(err).NotTo(HaveOccurred())
		req.Messages[len(req.Messages)-1].Content = string(in)
		var p plan
		Expect(json.Unmarshal([]byte(chat(model, req).Message.Content), &p)).To(Succeed())
		Expect(p.Decision).To(Equal("mcp"))
		Expect(p.Tool.Arguments).To(HaveKeyWithValue("bbox", "taiwan_nearby"))
	})

	It("reads dates relative to the request's now, not a clock", func() {
		req := routerRequest("台灣海峽昨天的海溫", false)
		in, err := json.Marshal(routerInput{Query: "台灣海峽昨天的海溫", Now: "2024-03-01", ToolCatalog: toolCatalog(), GeoRegistry: geoRegistry()})
		Expect(err).NotTo(HaveOccurred())
		req.Messages[len(req.Messages)-1].Content = string(in)
		var p plan
		Expect(json.Unmarshal([]byte(chat(model, req).Message.Content), &p)).To(Succeed())
		Expect(p.Tool.Arguments).To(HaveKeyWithValue("date", "2024-02-29"))
	})

	It("routes by the rules its prompt states: without the data rule an SST question goes to the rule for the rest", func() {
		req := mutated(routerRequest("台灣海峽昨天的海溫", false), dropLines(`"mcp" when`))
		var p plan
		Expect(json.Unmarshal([]byte(chat(model, req).Message.Content), &p)).To(Succeed())
		Expect(p.Decision).To(Equal("explain"))
		Expect(p.Tool).To(BeNil())
	})

	It("answers in prose when neither its prompt nor the request asks for JSON", func() {
		// JSON mode with no message saying json is refused, as OpenAI's API refuses it.
		req := mutated(routerRequest("台灣海峽昨天的海溫", false), dropLines("Reply with ONE JSON object"))
		req.Output = ""
		content := chat(model, req).Message.Content
		Expect(json.Valid([]byte(content))).To(BeFalse(), "prose: %s", content)
		Expect(content).To(HavePrefix("mcp (confidence 0.83)."))
		Expect(content).To(ContainSubstring(`"taiwan_strait"`))
	})

	It("refuses a router request whose user message is not the protocol's JSON", func() {
		req := routerRequest("x", false)
		req.Messages[len(req.Messages)-1].Content = "現在台灣周遭海溫多少？"
		_, err := model.Chat(context.Background(), req)
		var se *llm.StatusError
		Expect(errors.As(err, &se)).To(BeTrue(), "got %v", err)
		Expect(se.Code).To(Equal(500))
		Expect(se.Body).To(ContainSubstring("odbchat/router"))
	})
})

var _ = Describe("the ODBchat legacy classifier policy", func() {
	var model llm.Client

	BeforeEach(func() {
		model = client(startStandin(standin.Options{}))
	})

	It("sends data to code only because its prompt's rule for programs says data", func() {
		q := "台灣周遭海溫多少？"
		Expect(chat(model, classifierRequest(q)).Message.Content).To(Equal(`{"mode": "code", "confidence": 0.74}`), "the seed's failure mode, as its prompt states it")
		narrowed := mutated(classifierRequest(q), func(p string) string {
			return strings.Replace(p, ", or needs data that a program must fetch and compute", "", 1)
		})
		Expect(chat(model, narrowed).Message.Content).To(Equal(`{"mode": "explain", "confidence": 0.7}`), "no rule for data: the first mode the shape lists")
	})

	DescribeTable("classifies into explain or code",
		func(query, mode string) {
			resp := chat(model, classifierRequest(query))
			var out struct {
				Mode       string  `json:"mode"`
				Confidence float64 `json:"confidence"`
			}
			Expect(json.Unmarshal([]byte(resp.Message.Content), &out)).To(Succeed())
			Expect(out.Mode).To(Equal(mode))
			Expect(out.Confidence).To(BeNumerically(">", 0))
		},
		Entry("the seed's failure mode: SST with a region → code", "現在台灣周遭海溫多少？", "code"),
		Entry("SST with a point → code", "SST at 121.7E, 24.0N today", "code"),
		Entry("SST with a bbox list → code", "[119, 21, 123, 26] 的平均海溫", "code"),
		Entry("English SST with a region → code", "What is the sea surface temperature around the Hawaiian Islands today?", "code"),
		Entry("a definition → explain", "GHRSST 是什麼？", "explain"),
		Entry("a definition with an SST word and a place → explain", "台灣周遭的海溫距平是什麼意思？", "explain"),
		Entry("SST without a place → explain", "現在的海溫多少？", "explain"),
		Entry("a code request → code", "幫我把以下 JSON 轉 CSV 的 Python", "code"),
	)
})

var _ = Describe("the ODBchat one-pass policy", func() {
	var model llm.Client

	ghrsst := passage{title: "GHRSST and the MUR sea surface temperature analysis", source: "https://eco.odb.ntu.edu.tw/pub/ghrsst/about",
		text: "GHRSST is the Group for High Resolution Sea Surface Temperature. It coordinates satellite SST products."}
	anomaly := passage{title: "Sea surface temperature anomaly (海溫距平)", source: "https://eco.odb.ntu.edu.tw/pub/ghrsst/sst-anomaly",
		text: "An SST anomaly is the departure of the observed temperature from a climatology. Positive means warmer."}

	BeforeEach(func() {
		model = client(startStandin(standin.Options{}))
	})

	answer := func(content string) string {
		_, after, ok := strings.Cut(content, "<<<ANSWER>>>")
		Expect(ok).To(BeTrue(), "no ANSWER block in %q", content)
		return strings.TrimSpace(after)
	}

	It("answers explain mode in tagged blocks citing the passages", func() {
		content := chat(model, onepassRequest("explain", "en", "What is GHRSST?", ghrsst, anomaly)).Message.Content
		Expect(content).To(HavePrefix("<<<MODE>>>\nexplain\n"))
		Expect(content).NotTo(ContainSubstring("<<<CODE>>>"))
		Expect(answer(content)).To(ContainSubstring("Group for High Resolution Sea Surface Temperature. [1]"))
		Expect(answer(content)).To(ContainSubstring("[2]"))
	})

	It("cites only the passages it was given", func() {
		content := chat(model, onepassRequest("explain", "en", "What is GHRSST?", ghrsst)).Message.Content
		Expect(answer(content)).To(ContainSubstring("[1]"))
		Expect(answer(content)).NotTo(ContainSubstring("[2]"))
	})

	It("writes a Python program in code mode", func() {
		content := chat(model, onepassRequest("code", "zh", "幫我把以下 JSON 轉 CSV 的 Python", ghrsst)).Message.Content
		Expect(content).To(HavePrefix("<<<MODE>>>\ncode\n"))
		Expect(content).To(ContainSubstring("<<<PLAN>>>"))
		Expect(content).To(MatchRegexp("(?s)<<<CODE>>>\n```python\n.*csv.*```"))
	})

	It("prefixes a Chinese answer and not an English one", func() {
		zh := chat(model, onepassRequest("explain", "zh", "GHRSST 是什麼？", ghrsst)).Message.Content
		en := chat(model, onepassRequest("explain", "en", "What is GHRSST?", ghrsst)).Message.Content
		Expect(answer(zh)).To(HavePrefix("根據 ODB 知識庫："))
		Expect(answer(en)).NotTo(ContainSubstring("根據"))
		Expect(answer(en)).To(HavePrefix("GHRSST is the Group"))
	})

	It("answers in the language its prompt's rule says, and in English when the prompt states none", func() {
		user := mutated(onepassRequest("explain", "zh", "GHRSST 是什麼？", ghrsst), swapWords("the user's language", "Spanish"))
		Expect(answer(chat(model, user).Message.Content)).NotTo(ContainSubstring("根據"), "a named language the policy has no words for: its own")
		none := mutated(onepassRequest("explain", "zh", "GHRSST 是什麼？", ghrsst), func(p string) string {
			return strings.Replace(p, " in the user's language", "", 1)
		})
		Expect(answer(chat(model, none).Message.Content)).To(HavePrefix("GHRSST is the Group"), "no language rule: English")
	})

	It("says so when no passage was found", func() {
		content := chat(model, onepassRequest("explain", "en", "Who won the 1998 World Cup?")).Message.Content
		Expect(answer(content)).To(Equal(verbose("I found nothing about this in the ODB knowledge base.")))
		Expect(regexp.MustCompile(`\[\d+\]`).MatchString(answer(content))).To(BeFalse())
	})

	It("keeps the passages' sentences a stated limit allows, else every one and the closing offer", func() {
		req := onepassRequest("explain", "en", "What is GHRSST?", ghrsst, anomaly)
		Expect(answer(chat(model, req).Message.Content)).To(HaveSuffix("[2] Let me know if there is anything else I can help you with."))
		limited := answer(chat(model, mutated(req, appending("Answer in one sentence."))).Message.Content)
		Expect(limited).To(HaveSuffix("[1]"))
	})
})
