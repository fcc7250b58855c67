package standin_test

import (
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/openai"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/standin"
)

// ruleSpy keeps the cassette.RuleHeader of the last answer it carried.
type ruleSpy struct {
	base http.RoundTripper
	last string
}

func (s *ruleSpy) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.base.RoundTrip(r)
	if err == nil {
		s.last = resp.Header.Get(cassette.RuleHeader)
	}
	return resp, err
}

// ruleOf sends req to a fresh stand-in and returns the rule it named.
func ruleOf(req llm.Request) string {
	GinkgoHelper()
	srv := startStandin(standin.Options{})
	tr := &http.Transport{}
	DeferCleanup(tr.CloseIdleConnections)
	spy := &ruleSpy{base: tr}
	chat(openai.New(srv.URL()+"/v1", "gemma3:4b", "", &http.Client{Transport: spy}), req)
	return spy.last
}

// cbaTurnWith is a question, a tool call and its result.
func cbaTurnWith(q, tool, args, result string) []llm.Message {
	return []llm.Message{userSays(q),
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: tool, Arguments: []byte(args)}}},
		toolSays("call_1", tool, result)}
}

// cbaRuleCase is one rule's spec: a conversation under a setup, and the
// rule (with the intent rule after "+") that must answer it.
type cbaRuleCase struct {
	setup func() cbaSetup
	msgs  []llm.Message
	rule  string
}

// The wordings are new, in English, French, Spanish and Chinese: none is a
// committed scenario's.
var cbaRuleCases = map[string]cbaRuleCase{
	"own-tools":           {cbaFull, []llm.Message{userSays("Quelles sont tes outils ?")}, "own-tools"},
	"how-answered":        {cbaMinimalHelp, []llm.Message{userSays("How did you get that number?")}, "how-answered"},
	"after-list-tools":    {cbaMinimalHelp, cbaTurnWith("Indicateurs pour le principe 3", "list_tools", `{}`, "find_indicators_by_principle: List indicators of a principle."), "after-list-tools+principle"},
	"after-describe-tool": {cbaMinimalHelp, cbaTurnWith("Indicateurs pour le principe 3", "describe_tool", `{"name":"find_indicators_by_principle"}`, "Lists indicators."), "after-describe-tool+principle"},
	"tool-error":          {cbaFull, cbaTurnWith("Météo actuelle à Dakar", "get_current_weather", `{"city":"Dakar"}`, "Error: upstream down"), "tool-error+weather-now"},
	"answer-from-result":  {cbaFull, cbaTurnWith("Météo actuelle à Dakar", "get_current_weather", `{"city":"Dakar"}`, "Sunny, 31 °C"), "answer-from-result+weather-now"},
	"no-intent":           {cbaFull, []llm.Message{userSays("Bonjour !")}, "no-intent"},
	"call-named":          {cbaFull, []llm.Message{userSays("Indicadores de biodiversidad")}, "call-named+indicator-search"},
	"look-up":             {cbaMinimalHelp, []llm.Message{userSays("¿Qué clases de indicadores existen?")}, "look-up+classes"},
	"fallback":            {cbaMinimal, []llm.Message{userSays("Show me the indicator categories")}, "fallback+classes"},
	"principle":           {cbaFull, []llm.Message{userSays("原則 5 有哪些指標？")}, "call-named+principle"},
	"classes":             {cbaFull, []llm.Message{userSays("Lista las categorías de indicadores")}, "call-named+classes"},
	"knowledge-base":      {cbaFull, []llm.Message{userSays("知識庫裡有什麼？")}, "call-named+knowledge-base"},
	"compare":             {cbaFull, []llm.Message{userSays("Comparer les indicateurs 3 et 9")}, "call-named+compare"},
	"export":              {cbaFull, []llm.Message{userSays("Exporta un informe con los indicadores 2 y 5")}, "call-named+export"},
	"feasible-methods":    {cbaFull, []llm.Message{userSays("Méthodes bon marché pour l'indicateur 12 ?")}, "call-named+feasible-methods"},
	"indicator-details":   {cbaFull, []llm.Message{userSays("指標 12 是什麼？")}, "call-named+indicator-details"},
	"method-search":       {cbaFull, []llm.Message{userSays("¿Qué métodos usan drones?")}, "call-named+method-search"},
	"forecast":            {cbaFull, []llm.Message{userSays("Prévisions pour Dakar demain")}, "call-named+forecast"},
	"climate":             {cbaFull, []llm.Message{userSays("¿Cómo es el clima típico en Quito?")}, "call-named+climate"},
	"soil-carbon":         {cbaFull, []llm.Message{userSays("Carbone du sol à Kisumu")}, "call-named+soil-carbon"},
	"soil-properties":     {cbaFull, []llm.Message{userSays("¿Cuánta arcilla tiene el suelo en Quito?")}, "call-named+soil-properties"},
	"weather-now":         {cbaFull, []llm.Message{userSays("現在 Nairobi 的天氣")}, "call-named+weather-now"},
	"indicator-search":    {cbaFull, []llm.Message{userSays("Indicators about water quality")}, "call-named+indicator-search"},
}

var _ = Describe("the CBA assistant policy's rules", func() {
	It("has a spec for every rule", func() {
		names := standin.RuleNames("cba/assistant")
		Expect(names).NotTo(BeEmpty())
		for _, n := range names {
			Expect(cbaRuleCases).To(HaveKey(n))
		}
	})

	for _, name := range standin.RuleNames("cba/assistant") {
		c := cbaRuleCases[name]
		It("decides by "+name+" and says so in the trace header", func() {
			got := ruleOf(c.setup().request(c.msgs...))
			Expect(got).To(Equal("cba/assistant:"+c.rule), "rule for %q", c.msgs[0].Content)
			Expect(strings.Split(strings.TrimPrefix(got, "cba/assistant:"), "+")).To(ContainElement(name))
		})
	}
})
