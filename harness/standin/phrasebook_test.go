package standin_test

import (
	"encoding/json"
	"maps"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin"
)

// inUserLanguage adds a rule to answer in the user's language to a prompt
// (the seeds' Climate and Kura prompts state none).
var inUserLanguage = appending("Reply in the user's language.")

// ccListed is a Climate Advisor turn, asked in q, whose listing of every
// inventory answered.
func ccListed(q string) llm.Request {
	return mutated(advisorRequest(ccAfter(q, "get_user_inventories", `{}`, allListing())...), inUserLanguage)
}

// ccSearched is a Climate Advisor turn, asked in q, whose search for city
// (and year, 0: any) answered.
func ccSearched(q, city string, year int) llm.Request {
	args := `{"city_name":"` + city + `"}`
	if year != 0 {
		args = `{"city_name":"` + city + `","year":` + strconv.Itoa(year) + `}`
	}
	return mutated(advisorRequest(ccAfter(q, "city_inventory_search", args, cityListing(city, year))...), inUserLanguage)
}

// kuraSays is a Kura synthesizer request for query over context.
func kuraSays(query string, context map[string]any) llm.Request {
	ctx := kuraGeocoded()
	maps.Copy(ctx, context)
	return mutated(kuraSynthesizerRequest(query, kuraWorld(query, ctx), []string{"A snippet."}), inUserLanguage)
}

var _ = Describe("sentences a policy builds from parts, in the answer's language", func() {
	var c llm.Client

	BeforeEach(func() { c = client(startStandin(standin.Options{})) })

	paris := map[string]any{"weather": map[string]any{"Paris": kuraWeather("Paris", 54.3, 51.8, "Partly cloudy", "imperial")}}
	here := map[string]any{"weather": map[string]any{"current": kuraWeather("current", 54.3, 51.8, "Partly cloudy", "imperial")}}
	ride := map[string]any{"transit": map[string]any{"duration": 840, "departure": "2025-11-07T13:05:00Z", "line": "1", "from": "34 St-Penn Station", "to": "Times Sq-42 St"}}

	DescribeTable("the frame and its parts are the phrasebook's; names, numbers and units stay as the data has them",
		func(req llm.Request, want string) {
			Expect(chat(c, req).Message.Content).To(Equal(want))
		},
		Entry("Climate, no inventory for a city and year, in French", ccSearched("Inventaires pour Atlantide en 2023", "Atlantide", 2023),
			`Je n'ai trouvé aucun inventaire pour "Atlantide" en 2023 dans votre compte. Dites-moi si je peux vous aider pour autre chose.`),
		Entry("Climate, no inventory for a city, in Spanish", ccSearched("Inventarios para Atlántida", "Atlántida", 0),
			`No encontré inventarios para "Atlántida" en tu cuenta. Dime si puedo ayudarte en algo más.`),
		Entry("Climate, no inventory for a city and year, in English: unchanged", ccSearched("Inventories for Atlantis in 2023", "Atlantis", 2023),
			`I found no inventories for "Atlantis" in 2023 in your account. Let me know if there is anything else I can help you with.`),
		Entry("Kura, the weather in a place, in Spanish", kuraSays("¿Qué tiempo hace en París?", paris),
			"En Paris hace 54.3°F y partly cloudy, con sensación térmica de 51.8°F."),
		Entry("Kura, the weather where the user is, in Chinese", kuraSays("我這裡天氣如何？", here),
			"您所在的位置現在 54.3°F，partly cloudy，體感 51.8°F。"),
		Entry("Kura, the weather, in English: unchanged", kuraSays("What's the weather in Paris?", paris),
			"In Paris it's 54.3°F and partly cloudy, feels like 51.8°F."),
		Entry("Kura, a ride with its departure, in French", kuraSays("Comment aller de Penn Station à Times Square en métro ?", ride),
			"Prenez le 1 depuis 34 St-Penn Station à 8:05 AM et vous arriverez à Times Sq-42 St environ 14 minutes plus tard."),
		Entry("Kura, a ride, in Chinese", kuraSays("從賓州車站到時代廣場怎麼搭地鐵？", ride),
			"從 34 St-Penn Station（8:05 AM 出發） 搭乘 1，約 14 分鐘後抵達 Times Sq-42 St。"),
		Entry("Kura, a ride, in English: unchanged", kuraSays("How do I get from Penn Station to Times Square by subway?", ride),
			"Take the 1 from 34 St-Penn Station at 8:05 AM and arrive at Times Sq-42 St about 14 minutes later."),
		Entry("Kura, the greeting its prompt prescribes, in Spanish", kuraSays("hola, buenos días", nil),
			"¡Hola, con gusto te ayudo con transit, places or weather!"),
		Entry("Kura, the greeting, in English: unchanged", kuraSays("hi", nil),
			"Hi there, happy to help with transit, places or weather!"),
		Entry("family, a row count, in Spanish", mutated(familyRequest("default.md", withAttachment("¿Cuántas filas tiene el archivo?", "a,b\n1,2\n3,4")), inUserLanguage),
			"El archivo adjunto tiene 2 filas. Dime si puedo ayudarte en algo más."),
		Entry("family, a row count, in English: unchanged", mutated(familyRequest("default.md", withAttachment("How many rows does it have?", "a,b\n1,2\n3,4")), inUserLanguage),
			"The attached file has 2 rows. Let me know if there is anything else I can help you with."),
	)

	DescribeTable("Climate's listing of inventories: every line's words, the totals' and the question",
		func(q string, want []string) {
			got := chat(c, ccListed(q)).Message.Content
			for _, w := range want {
				Expect(got).To(ContainSubstring(w))
			}
		},
		Entry("in Spanish", "¿Cuáles son mis inventarios?", []string{"Encontré 13 inventarios:\n",
			"- Oslo 2021: GPC BASIC, 1.1 millones de tCO2e (ID " + ccOslo + ")\n",
			"- Tokyo 2020: GPC BASIC, ningún total de emisiones registrado (ID " + ccTokyo + ")\n", "¿Cuál debo abrir?"}),
		Entry("in French", "Quels inventaires d'émissions ai-je ?", []string{"J'ai trouvé 13 inventaires :\n",
			"- Oslo 2021 : GPC BASIC, 1.1 millions de tCO2e (ID " + ccOslo + ")\n",
			"- Tokyo 2020 : GPC BASIC, aucun total d'émissions enregistré (ID " + ccTokyo + ")\n", "Lequel dois-je ouvrir ?"}),
		Entry("in Chinese", "我的排放清冊有哪些？", []string{"我找到 13 個清冊：\n",
			"- Oslo 2021：GPC BASIC，1.1 百萬 tCO2e（ID " + ccOslo + "）\n",
			"- Tokyo 2020：GPC BASIC，未記錄排放總量（ID " + ccTokyo + "）\n", "要開啟哪一個？"}),
		Entry("in English: unchanged", "Which inventories do I have?", []string{"I found 13 inventories:\n",
			"- Oslo 2021: GPC BASIC, 1.1 million tCO2e (ID " + ccOslo + ")\n",
			"- Tokyo 2020: GPC BASIC, no total emissions recorded (ID " + ccTokyo + ")\n", "Which one should I open?"}),
	)

	DescribeTable("the Kura executor's snippet; the error it records for the synthesizer stays as data",
		func(query, step, tool, arguments, result, want string) {
			var st map[string]any
			Expect(json.Unmarshal([]byte(step), &st)).To(Succeed())
			req := mutated(kuraExecutorRequest(st, kuraWorld(query, kuraGeocoded()),
				modelCalls("call_1", tool, arguments), toolSays("call_1", tool, result)), inUserLanguage)
			var out struct {
				Snippet string `json:"snippet"`
			}
			Expect(json.Unmarshal([]byte(chat(c, req).Message.Content), &out)).To(Succeed())
			Expect(out.Snippet).To(Equal(want))
		},
		Entry("the weather, in Spanish", "¿Qué tiempo hace en París?", `{"id":"S2","action":"Weather","args":{"location":"Paris"}}`,
			"weather", `{"lat":48.8575475,"lng":2.3513765,"units":"imperial"}`, kuraWeatherResult(54.3, 51.8, "FAHRENHEIT", "Partly cloudy"),
			"Hace 54.3 imperial y partly cloudy en Paris."),
		Entry("the weather, in Chinese", "巴黎天氣如何？", `{"id":"S2","action":"Weather","args":{"location":"Paris"}}`,
			"weather", `{"lat":48.8575475,"lng":2.3513765,"units":"imperial"}`, kuraWeatherResult(54.3, 51.8, "FAHRENHEIT", "Partly cloudy"),
			"Paris現在 54.3 imperial，partly cloudy。"),
		Entry("the weather, in English: unchanged", "What's the weather in Paris?", `{"id":"S2","action":"Weather","args":{"location":"Paris"}}`,
			"weather", `{"lat":48.8575475,"lng":2.3513765,"units":"imperial"}`, kuraWeatherResult(54.3, 51.8, "FAHRENHEIT", "Partly cloudy"),
			"It is 54.3 imperial and partly cloudy in Paris."),
		Entry("a ride, in French", "Comment aller de Penn Station à Times Square en métro ?", `{"id":"S3","action":"Transit","args":{"origin":"Penn Station","destination":"Times Square"}}`,
			"transit_directions", `{"origin_lat":40.7505045,"origin_lng":-73.9934387,"destination_lat":40.7579747,"destination_lng":-73.9855426}`,
			kuraRoutesResult("840s", kuraRide("A", "8 Avenue Express", "34 St-Penn Station", "2025-11-07T13:05:00Z", "Times Sq-42 St", "2025-11-07T13:09:00Z", 1)),
			"Le A va de 34 St-Penn Station à Times Sq-42 St en environ 14 minutes."),
		Entry("a failed step, in Spanish: the tool's message as it came", "¿Qué tiempo hace en Atlántida?", `{"id":"S2","action":"Weather","args":{"location":"Atlantis"}}`,
			"weather", `{"units":"imperial"}`, `{"error": "lat and lng are required"}`,
			"El paso Weather falló: lat and lng are required."),
	)

	It("says \"Done.\" in the answer's language after a result no rule reads", func() {
		req := mutated(advisorRequest(ccAfter("Exporta mi inventario de emisiones, por favor", "export_inventory", `{}`, `{"success":true,"data":{}}`)...), inUserLanguage)
		Expect(chat(c, req).Message.Content).To(Equal("Listo. Dime si puedo ayudarte en algo más."))
	})
})
