package standin_test

import (
	"encoding/json"
	"os"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
)

const familyPrompts = "../../agents/family/prompts/"

// familyTools are the assistant's tools with the schemas the rules read.
func familyTools() []llm.Tool {
	return []llm.Tool{
		{Name: "download_state_history", Parameters: json.RawMessage(`{"type":"object","properties":{"entity_ids":{"type":"array","items":{"type":"string"},"description":"Entity ids such as sensor.pool_temperature."},"start":{"type":"string"},"end":{"type":"string"}},"required":["entity_ids"]}`)},
		{Name: "delegate_to_service", Parameters: json.RawMessage(`{"type":"object","properties":{"service":{"type":"string","enum":["data_visualization"]},"request":{"type":"string"},"attachment_ids":{"type":"array","items":{"type":"string"}}},"required":["service","request"]}`)},
		{Name: "jq_query", Parameters: json.RawMessage(`{"type":"object","properties":{"attachment_id":{"type":"string"},"jq_program":{"type":"string"}},"required":["attachment_id","jq_program"]}`)},
		{Name: "create_vega_chart", Parameters: json.RawMessage(`{"type":"object","properties":{"spec":{"type":"string"}},"required":["spec"]}`)},
	}
}

// familyRequest is a call of the prompt named, with msgs after it.
func familyRequest(prompt string, msgs ...llm.Message) llm.Request {
	b, err := os.ReadFile(familyPrompts + prompt)
	Expect(err).NotTo(HaveOccurred())
	system := string(b) + "\nThe current time is 2026-03-01T00:00:00Z."
	return llm.Request{Messages: append([]llm.Message{{Role: llm.RoleSystem, Content: system}}, msgs...), Tools: familyTools()}
}

// withAttachment is a request with an inline attachment shown after it.
func withAttachment(ask, content string) llm.Message {
	return userSays(ask + "\n\n[System: File from previous tool response]\n[Attachment ID: att-1]\n[Content (40 bytes)]:\n" + content)
}

// faAfter is a request, a call of tool and its result.
func faAfter(ask, tool, result string) []llm.Message {
	return []llm.Message{userSays(ask), modelCalls("call_1", tool, `{}`), toolSays("call_1", tool, result)}
}

// familyRuleCases are one request per rule of the family policies, in new
// wordings (English, French, Spanish, Chinese), none a committed scenario's.
func familyRuleCases() map[string]map[string]ruleCase {
	def := func(msgs ...llm.Message) llm.Request { return familyRequest("default.md", msgs...) }
	viz := func(msgs ...llm.Message) llm.Request { return familyRequest("data_visualization.md", msgs...) }
	saved := "State history for 1 entities (12 states), saved as attachment att-3."
	records := `[{"time":"2026-02-01T00:00:00Z","kwh":3.5}]`
	history := `{"entities":[{"entity_id": "sensor.kitchen_temperature","states":[]}]}`
	return map[string]map[string]ruleCase{
		"family/default": {
			"chart-attachments":    {req: def(withAttachment("Trace un graphique de ce fichier", records))},
			"quoted-jq":            {req: def(withAttachment("Apply jq '.[0].kwh' to it", records))},
			"count-rows":           {req: def(withAttachment("¿Cuántas filas tiene?", "a,b\n1,2"))},
			"summarize-attachment": {req: def(withAttachment("Donne-moi un résumé", "notes"))},
			"attachment-length":    {req: def(userSays("Quelle est la longueur de att-4 ?"))},
			"all-sensors":          {req: def(userSays("Montre tous les capteurs depuis 3 jours"))},
			"sensor-history":       {req: def(userSays("厨房 最近 3 天 的溫度"))},
			"capabilities":         {req: def(userSays("Hola"))},
			"history-failed":       {req: def(faAfter("Kitchen temperature, last 2 days", "download_state_history", "Error: unknown entity")...)},
			"history-empty":        {req: def(faAfter("Kitchen temperature, last 2 days", "download_state_history", "No states in that period.")...)},
			"history-chart":        {req: def(faAfter("Graph the kitchen temperature, last 2 days", "download_state_history", saved)...)},
			"history-unavailable":  {req: def(faAfter("Kitchen readings missing in the last 2 days?", "download_state_history", saved)...)},
			"history-raw":          {req: def(faAfter("Raw kitchen history, last 2 days", "download_state_history", saved)...)},
			"history-period":       {req: def(faAfter("What range does the kitchen history of 2 days span?", "download_state_history", saved)...)},
			"history-count":        {req: def(faAfter("Kitchen temperature, last 2 days", "download_state_history", saved)...)},
			"history-untold":       {req: mutated(def(faAfter("Kitchen temperature, last 2 days", "download_state_history", saved)...), dropLines("jq_query"))},
			"jq-failed":            {req: def(faAfter("x", "jq_query", "Error: syntax")...)},
			"jq-saved":             {req: def(faAfter("x", "jq_query", "Too large, saved as attachment att-5.")...)},
			"jq-answer":            {req: def(faAfter("x", "jq_query", "42")...)},
			"chart-failed":         {req: def(faAfter("x", "delegate_to_service", "[data_visualization failed: no data]")...)},
			"chart-made":           {req: def(faAfter("x", "delegate_to_service", "[data_visualization] Chart made.")...)},
			"done":                 {req: def(faAfter("x", "something_else", "ok")...)},
		},
		"family/data_visualization": {
			"chart-result":   {req: viz(append([]llm.Message{withAttachment("Chart it", records)}, modelCalls("call_1", "create_vega_chart", `{}`), toolSays("call_1", "create_vega_chart", "Chart made."))...)},
			"no-attachment":  {req: viz(userSays("Chart it"))},
			"unreadable":     {req: viz(userSays("Chart it\n\n[System: Attachment att-1 (x.json, 20000 bytes)]\nBinary content not accessible to model"))},
			"text-file":      {req: viz(userSays("Chart it\n\n[System: Large text file]\n[Attachment ID: att-1]"))},
			"history-range":  {req: viz(userSays("Chart it\n\n[System: Large JSON]\n[Attachment ID: att-1]\nData structure (JSON Schema): {\"entities\": [], \"states\": []}"))},
			"history-many":   {req: viz(withAttachment("Graphique de tous les capteurs", history))},
			"history-one":    {req: viz(withAttachment("Graphique", history))},
			"csv":            {req: viz(withAttachment("Graphique", "day,kwh\n2026-01-01,3"))},
			"inline-records": {req: viz(withAttachment("Graphique", records))},
			"cannot-chart":   {req: viz(withAttachment("Graphique", `"just text"`))},
		},
	}
}

var _ = Describe("the family policies' rules", func() {
	specEveryRule([]string{"family/default", "family/data_visualization"}, familyRuleCases)
})
