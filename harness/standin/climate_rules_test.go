package standin_test

import (
	. "github.com/onsi/ginkgo/v2"

	"github.com/agentreplay/testbed/agents/llm"
)

// ccAfter is a question, one tool call and its result.
func ccAfter(q, tool, args, result string) []llm.Message {
	return []llm.Message{userSays(q), modelCalls("call_1", tool, args), toolSays("call_1", tool, result)}
}

// ccAfterListing is a listing turn, then a new question.
func ccAfterListing(q string) []llm.Message {
	return append(ccAfter("Mes inventaires ?", "get_user_inventories", `{}`, allListing()), assistantSays("Which one?"), userSays(q))
}

// ccRuleCases is one conversation per Climate Advisor rule, in new
// wordings (English, French, Spanish, Chinese), none a committed
// scenario's.
func ccRuleCases() map[string]map[string]ruleCase {
	c := func(msgs ...llm.Message) ruleCase { return ruleCase{req: advisorRequest(msgs...)} }
	return map[string]map[string]ruleCase{"climate/advisor": {
		"product-question":    c(userSays("¿Cómo puedo cambiar mi contraseña?")),
		"pick-listed":         c(ccAfterListing("Ouvre le premier")...),
		"science-search":      c(userSays("¿Qué es un factor de emisión de la red eléctrica?")),
		"sources-of-opened":   c(append(ccAfter("Détails de l'inventaire d'Oslo", "get_inventory", `{"inventory_id":"`+ccOslo+`"}`, inventoryDetail(ccOslo)), assistantSays("Oslo…"), userSays("¿Y sus fuentes?"))...),
		"city-search":         c(userSays("Inventarios de emisiones para Quito")),
		"my-inventories":      c(userSays("我的排放清冊有哪些？")),
		"capabilities":        c(userSays("Bonjour !")),
		"unreadable-result":   c(ccAfter("Inventarios para Quito", "city_inventory_search", `{"city_name":"Quito"}`, "<html>bad gateway</html>")...),
		"tool-failed":         c(ccAfter("Inventarios para Quito", "city_inventory_search", `{"city_name":"Quito"}`, failed("timeout", "cc_error"))...),
		"none-for-city":       c(ccAfter("Inventarios para Quito", "city_inventory_search", `{"city_name":"Quito"}`, cityListing("Quito", 0))...),
		"none-at-all":         c(ccAfter("我的清單", "get_user_inventories", `{}`, succeeded(map[string]any{"data": []any{}}))...),
		"sources-before-open": {req: mutated(advisorRequest(ccAfter("Sources de données pour Oslo ?", "city_inventory_search", `{"city_name":"Oslo"}`, cityListing("Oslo", 0))...), swapWords("get_inventory", "get_all_datasources"))},
		"open-the-one":        c(ccAfter("Inventaires pour Oslo", "city_inventory_search", `{"city_name":"Oslo"}`, cityListing("Oslo", 0))...),
		"list-and-ask":        c(ccAfter("我的清單", "get_user_inventories", `{}`, allListing())...),
		"sources-next":        c(ccAfter("Sources de données pour Oslo ?", "get_inventory", `{"inventory_id":"`+ccOslo+`"}`, inventoryDetail(ccOslo))...),
		"summarize-inventory": c(ccAfter("Résumé de l'inventaire d'Oslo", "get_inventory", `{"inventory_id":"`+ccOslo+`"}`, inventoryDetail(ccOslo))...),
		"count-sources":       c(ccAfter("Fuentes de datos", "get_all_datasources", `{"inventory_id":"`+ccRio+`"}`, `{"success":true,"data":{"data":[]}}`)...),
		"knowledge-unused":    c(ccAfter("甲烷的暖化潛勢？", "climate_vector_search", `{"question":"x"}`, "Climate search was not used.")...),
		"quote-knowledge":     c(ccAfter("甲烷的暖化潛勢？", "climate_vector_search", `{"question":"x"}`, "1. Source: IPCC (p. 3)\nFull Content: Methane is strong.")...),
		"done":                c(ccAfter("Hola", "something_else", `{}`, `{"success":true,"data":{}}`)...),
	}}
}

var _ = Describe("the Climate Advisor policy's rules", func() {
	specEveryRule([]string{"climate/advisor"}, ccRuleCases)
})
