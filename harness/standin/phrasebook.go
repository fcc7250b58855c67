package standin

// phrasebook holds the stand-in's own sentence frames in the lexicon's
// other languages, by the English frame a policy writes (prose.say). A
// frame it lacks stays English, as a weak model's translation does; the
// values a frame carries (tool results, names, numbers) are never
// translated.
var phrasebook = map[string]map[string]string{
	closing: {
		"es": "Dime si puedo ayudarte en algo más.",
		"fr": "Dites-moi si je peux vous aider pour autre chose.",
		"zh": "如果還有其他需要幫忙的地方，請告訴我。",
	},
	// The CBA assistant's frames (cba.go).
	"I have %d tools: %s.": {
		"es": "Tengo %d herramientas: %s.",
		"fr": "J'ai %d outils : %s.",
		"zh": "我有 %d 個工具：%s。",
	},
	"I have %d tools for weather and climate normals, soil properties and soil carbon, and the CBA indicator knowledge base (indicator search, details, feasible methods, comparisons and reports).": {
		"es": "Tengo %d herramientas para el tiempo y las normales climáticas, las propiedades y el carbono del suelo, y la base de indicadores CBA (búsqueda, detalles, métodos factibles, comparaciones e informes).",
		"fr": "J'ai %d outils pour la météo et les normales climatiques, les propriétés et le carbone des sols, et la base d'indicateurs CBA (recherche, détails, méthodes réalisables, comparaisons et rapports).",
		"zh": "我有 %d 個工具，涵蓋天氣與氣候平均值、土壤性質與土壤碳，以及 CBA 指標知識庫（指標搜尋、詳情、可行方法、比較與報告）。",
	},
	"I chose the data source that fits your question and called it.": {
		"es": "Elegí la fuente de datos que corresponde a tu pregunta y la consulté.",
		"fr": "J'ai choisi la source de données adaptée à votre question et je l'ai interrogée.",
		"zh": "我選擇了符合您問題的資料來源並查詢了它。",
	},
	"I called %s to see my tools and %s to read the right one's documentation, then called it.": {
		"es": "Llamé a %s para ver mis herramientas y a %s para leer la documentación de la adecuada, y luego la llamé.",
		"fr": "J'ai appelé %s pour voir mes outils et %s pour lire la documentation du bon outil, puis je l'ai appelé.",
		"zh": "我呼叫了 %s 查看我的工具，並用 %s 閱讀合適工具的說明，然後呼叫了它。",
	},
	"%s to choose the right data source, then called it.": {
		"es": "%s para elegir la fuente de datos adecuada, y luego la consulté.",
		"fr": "%s pour choisir la bonne source de données, puis je l'ai interrogée.",
		"zh": "%s，以選擇合適的資料來源，然後查詢了它。",
	},
	"I could not get that: %s": {
		"es": "No pude obtener eso: %s",
		"fr": "Je n'ai pas pu l'obtenir : %s",
		"zh": "我無法取得這項資料：%s",
	},
	"Here is what I found:\n%s": {
		"es": "Esto es lo que encontré:\n%s",
		"fr": "Voici ce que j'ai trouvé :\n%s",
		"zh": "以下是我找到的資料：\n%s",
	},
	"I can help with weather, climate normals, soil and the CBA monitoring indicators. What place or indicator do you have in mind?": {
		"es": "Puedo ayudarte con el tiempo, las normales climáticas, el suelo y los indicadores de seguimiento CBA. ¿En qué lugar o indicador piensas?",
		"fr": "Je peux vous aider pour la météo, les normales climatiques, les sols et les indicateurs de suivi CBA. À quel lieu ou indicateur pensez-vous ?",
		"zh": "我可以協助查詢天氣、氣候平均值、土壤以及 CBA 監測指標。您想了解哪個地點或指標？",
	},
	"I cannot look that up with the tools I have.": {
		"es": "No puedo consultar eso con las herramientas que tengo.",
		"fr": "Je ne peux pas le rechercher avec les outils dont je dispose.",
		"zh": "我現有的工具無法查詢這項資料。",
	},
}
