package standin_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin"
)

// odbRuleCases are one request per rule of each ODBchat policy, in new
// wordings (English, French, Spanish, Chinese), none a committed
// scenario's.
func odbRuleCases() map[string]map[string]llm.Request {
	ghrsst := passage{title: "GHRSST", source: "https://eco.odb.ntu.edu.tw/pub/ghrsst/about", text: "GHRSST is a group of satellite products."}
	return map[string]map[string]llm.Request{
		"odbchat/router": {
			"code":            routerRequest("Écris un script Python qui télécharge la température de la mer", true),
			"definition":      routerRequest("¿Qué significa una anomalía de temperatura del mar?", true),
			"not-data":        routerRequest("Quelles données propose l'ODB ?", true),
			"point":           routerRequest("Température de la mer à 120.5E, 22.1N hier ?", true),
			"bbox":            routerRequest("SST mean over [120, 20, 122, 23] yesterday", true),
			"registry-region": routerRequest("Temperatura del mar en el estrecho de Taiwán ayer", true),
			"no-place":        routerRequest("¿Cuál es la temperatura del mar hoy?", true),
		},
		"odbchat/classifier": {
			"code":              classifierRequest("用 Python 寫一個下載資料的程式"),
			"definition":        classifierRequest("Explique la anomalie de température de la mer"),
			"coordinates":       classifierRequest("Temperatura del mar en (121, 23)"),
			"sst-and-place":     classifierRequest("Température de la mer près de Taïwan"),
			"otherwise-explain": classifierRequest("Bonjour, quelles données a l'ODB ?"),
		},
		"odbchat/onepass": {
			"code-answer":    onepassRequest("code", "en", "Give me a program", ghrsst),
			"explain-answer": onepassRequest("explain", "fr", "Parle-moi du GHRSST", ghrsst),
		},
	}
}

var _ = Describe("the ODBchat policies' rules", func() {
	for _, policy := range []string{"odbchat/router", "odbchat/classifier", "odbchat/onepass"} {
		It("has a spec for every rule of "+policy, func() {
			names := standin.RuleNames(policy)
			Expect(names).NotTo(BeEmpty())
			for _, n := range names {
				Expect(odbRuleCases()[policy]).To(HaveKey(n))
			}
		})
		for _, name := range standin.RuleNames(policy) {
			It(policy+" decides by "+name+" and says so in the trace header", func() {
				Expect(ruleOf(odbRuleCases()[policy][name])).To(Equal(policy + ":" + name))
			})
		}
	}
})
