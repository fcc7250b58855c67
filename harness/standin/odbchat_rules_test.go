package standin_test

import (
	. "github.com/onsi/ginkgo/v2"
)

// odbRuleCases are one request per rule of each ODBchat policy, in new
// wordings (English, French, Spanish, Chinese), none a committed
// scenario's.
func odbRuleCases() map[string]map[string]ruleCase {
	ghrsst := passage{title: "GHRSST", source: "https://eco.odb.ntu.edu.tw/pub/ghrsst/about", text: "GHRSST is a group of satellite products."}
	return map[string]map[string]ruleCase{
		"odbchat/router": {
			"code":            {req: routerRequest("Écris un script Python qui télécharge la température de la mer", true)},
			"definition":      {req: routerRequest("¿Qué significa una anomalía de temperatura del mar?", true)},
			"otherwise":       {req: routerRequest("Quelles données propose l'ODB ?", true)},
			"point":           {req: routerRequest("Température de la mer à 120.5E, 22.1N hier ?", true)},
			"bbox":            {req: routerRequest("SST mean over [120, 20, 122, 23] yesterday", true)},
			"registry-region": {req: routerRequest("Temperatura del mar en el estrecho de Taiwán ayer", true)},
			"no-place":        {req: routerRequest("¿Cuál es la temperatura del mar hoy?", true)},
		},
		"odbchat/classifier": {
			"code":              {req: classifierRequest("用 Python 寫一個下載資料的程式")},
			"definition":        {req: classifierRequest("Explique la anomalie de température de la mer")},
			"coordinates":       {req: classifierRequest("Temperatura del mar en (121, 23)")},
			"sst-and-place":     {req: classifierRequest("Température de la mer près de Taïwan")},
			"otherwise-explain": {req: classifierRequest("Bonjour, quelles données a l'ODB ?")},
		},
		"odbchat/onepass": {
			"code-answer":    {req: onepassRequest("code", "en", "Give me a program", ghrsst)},
			"explain-answer": {req: onepassRequest("explain", "fr", "Parle-moi du GHRSST", ghrsst)},
		},
	}
}

var _ = Describe("the ODBchat policies' rules", func() {
	specEveryRule([]string{"odbchat/router", "odbchat/classifier", "odbchat/onepass"}, odbRuleCases)
})
