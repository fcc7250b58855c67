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

// ruleNames returns the names of the rules of the policy named, in table
// order (for the CBA policy, its turn rules then its intent rules), as the
// policy lists them, so that specs can see that every rule has one.
func ruleNames(name string) []string {
	for _, p := range standin.Policies() {
		if r, ok := p.(interface{ RuleNames() []string }); ok && p.Name() == name {
			return r.RuleNames()
		}
	}
	return nil
}

// ruleCase is one rule's spec: a request, and the rule that must decide
// it when that is not the case's own name (the CBA policy adds the intent
// rule after "+"; the Kura synthesizer joins every section that speaks).
type ruleCase struct {
	req  llm.Request
	rule string
}

// specEveryRule declares the specs of each policy's rules: every rule has
// a case, and each case is decided by its rule, which the trace header
// names.
func specEveryRule(policies []string, cases func() map[string]map[string]ruleCase) {
	for _, policy := range policies {
		It("has a spec for every rule of "+policy, func() {
			names := ruleNames(policy)
			Expect(names).NotTo(BeEmpty())
			for _, n := range names {
				Expect(cases()[policy]).To(HaveKey(n))
			}
		})
		for _, name := range ruleNames(policy) {
			It(policy+" decides by "+name+" and says so in the trace header", func() {
				c := cases()[policy][name]
				want := name
				if c.rule != "" {
					want = c.rule
				}
				got := ruleOf(c.req)
				Expect(got).To(Equal(policy+":"+want), "for %q", c.req.Messages[len(c.req.Messages)-1].Content)
				Expect(strings.Split(strings.TrimPrefix(got, policy+":"), "+")).To(ContainElement(name))
			})
		}
	}
}

// cbaRuleCases are one request per CBA rule, in new wordings (English,
// French, Spanish and Chinese), none a committed scenario's.
func cbaRuleCases() map[string]map[string]ruleCase {
	c := func(setup func() cbaSetup, rule string, msgs ...llm.Message) ruleCase {
		return ruleCase{setup().request(msgs...), rule}
	}
	return map[string]map[string]ruleCase{"cba/assistant": {
		"own-tools":           c(cbaFull, "own-tools", userSays("Quelles sont tes outils ?")),
		"how-answered":        c(cbaMinimalHelp, "how-answered", userSays("How did you get that number?")),
		"after-list-tools":    c(cbaMinimalHelp, "after-list-tools+principle", cbaTurnWith("Indicateurs pour le principe 3", "list_tools", `{}`, "find_indicators_by_principle: List indicators of a principle.")...),
		"after-describe-tool": c(cbaMinimalHelp, "after-describe-tool+principle", cbaTurnWith("Indicateurs pour le principe 3", "describe_tool", `{"name":"find_indicators_by_principle"}`, "Lists indicators.")...),
		"tool-error":          c(cbaFull, "tool-error+weather-now", cbaTurnWith("Météo actuelle à Dakar", "get_current_weather", `{"city":"Dakar"}`, "Error: upstream down")...),
		"answer-from-result":  c(cbaFull, "answer-from-result+weather-now", cbaTurnWith("Météo actuelle à Dakar", "get_current_weather", `{"city":"Dakar"}`, "Sunny, 31 °C")...),
		"no-intent":           c(cbaFull, "no-intent", userSays("Bonjour !")),
		"call-named":          c(cbaFull, "call-named+indicator-search", userSays("Indicadores de biodiversidad")),
		"look-up":             c(cbaMinimalHelp, "look-up+classes", userSays("¿Qué clases de indicadores existen?")),
		"fallback":            c(cbaMinimal, "fallback+classes", userSays("Show me the indicator categories")),
		"principle":           c(cbaFull, "call-named+principle", userSays("原則 5 有哪些指標？")),
		"classes":             c(cbaFull, "call-named+classes", userSays("Lista las categorías de indicadores")),
		"knowledge-base":      c(cbaFull, "call-named+knowledge-base", userSays("知識庫裡有什麼？")),
		"compare":             c(cbaFull, "call-named+compare", userSays("Comparer les indicateurs 3 et 9")),
		"export":              c(cbaFull, "call-named+export", userSays("Exporta un informe con los indicadores 2 y 5")),
		"feasible-methods":    c(cbaFull, "call-named+feasible-methods", userSays("Méthodes bon marché pour l'indicateur 12 ?")),
		"indicator-details":   c(cbaFull, "call-named+indicator-details", userSays("指標 12 是什麼？")),
		"method-search":       c(cbaFull, "call-named+method-search", userSays("¿Qué métodos usan drones?")),
		"forecast":            c(cbaFull, "call-named+forecast", userSays("Prévisions pour Dakar demain")),
		"climate":             c(cbaFull, "call-named+climate", userSays("¿Cómo es el clima típico en Quito?")),
		"soil-carbon":         c(cbaFull, "call-named+soil-carbon", userSays("Carbone du sol à Kisumu")),
		"soil-properties":     c(cbaFull, "call-named+soil-properties", userSays("¿Cuánta arcilla tiene el suelo en Quito?")),
		"weather-now":         c(cbaFull, "call-named+weather-now", userSays("現在 Nairobi 的天氣")),
		"indicator-search":    c(cbaFull, "call-named+indicator-search", userSays("Indicators about water quality")),
	}}
}

var _ = Describe("the CBA assistant policy's rules", func() {
	specEveryRule([]string{"cba/assistant"}, cbaRuleCases)
})
