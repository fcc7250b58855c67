// Package lexicon is how the stand-in reads and writes text: the one
// multilingual lexicon of concepts (lexicon.go) and a message read through
// it (lextext.go), text cut into comparable terms (terms.go), and prose, the
// answer's language, length and closing as the prompt asks, with the
// phrasebook of sentence frames in other languages (prose.go,
// phrasebook.go). It knows no agent and no request.
package lexicon

import (
	"maps"
	"slices"
)

// concepts is the stand-in's one multilingual lexicon: each concept with the words
// that name it, by language (en, zh, es, fr at least; de and ja where a
// policy reads them). Policies recognise what a user asks only through
// these concepts, through the request's own tool names, descriptions and
// schemas, and through numbers, dates and coordinates; never through a
// phrase written for one scenario. See docs/standin.md for how to add a
// language or a concept.
//
// Latin words match whole words, with a plural "s" or "es"; a word ending
// in "*" matches any word it starts; several words match in sequence. Han
// and kana words match anywhere in the text.
var concepts = map[string]map[string][]string{
	// General vocabulary of tools (the generic policy's concepts).
	"weather": {
		"en": {"weather", "forecast"}, "de": {"wetter", "vorhersage"}, "fr": {"météo", "meteo", "prévision"},
		"es": {"tiempo", "pronóstico", "clima"}, "zh": {"天氣", "天气", "預報", "预报"}, "ja": {"天気"},
	},
	"temperature": {
		"en": {"temperature", "temp", "degree", "celsius", "fahrenheit"}, "de": {"temperatur"}, "fr": {"température"},
		"es": {"temperatura"}, "zh": {"氣溫", "气温", "溫度", "温度"}, "ja": {"気温"},
	},
	"rain": {
		"en": {"rain", "precipitation", "shower"}, "de": {"regen", "niederschlag"}, "fr": {"pluie"},
		"es": {"lluvia"}, "zh": {"雨", "降雨"},
	},
	"wind": {"en": {"wind", "windy"}, "fr": {"vent"}, "es": {"viento"}, "zh": {"風", "风"}},
	"search": {
		"en": {"search", "find", "lookup", "query"}, "de": {"suchen", "finden"}, "fr": {"chercher", "rechercher"},
		"es": {"buscar"}, "zh": {"搜尋", "搜索", "查詢", "查询"}, "ja": {"検索"},
	},
	"place": {
		"en": {"city", "cities", "town", "place", "location", "where"}, "de": {"stadt", "ort"}, "fr": {"ville", "lieu"},
		"es": {"ciudad", "lugar"}, "zh": {"城市", "地點", "地点"}, "ja": {"都市"},
	},
	"time":  {"en": {"time", "clock", "hour"}, "de": {"zeit", "uhr"}, "fr": {"heure"}, "es": {"hora"}, "zh": {"時間", "时间"}},
	"date":  {"en": {"date", "day"}, "de": {"datum", "tag"}, "fr": {"jour"}, "es": {"fecha", "día"}, "zh": {"日期"}},
	"price": {"en": {"price", "cost", "quote"}, "de": {"preis", "kosten"}, "fr": {"prix", "coût"}, "es": {"precio"}, "zh": {"價格", "价格"}, "ja": {"値段"}},
	"convert": {
		"en": {"convert", "conversion", "exchange"}, "de": {"umrechnen"}, "fr": {"convertir"}, "es": {"convertir"},
		"zh": {"換算", "换算", "兌換", "兑换"},
	},
	"send": {
		"en": {"send", "email", "mail", "message", "notify"}, "de": {"senden"}, "fr": {"envoyer"}, "es": {"enviar"},
		"zh": {"發送", "发送"}, "ja": {"送信"},
	},
	"create": {
		"en": {"create", "add", "new", "make", "book"}, "de": {"erstellen"}, "fr": {"créer", "ajouter"},
		"es": {"crear", "añadir"}, "zh": {"建立", "创建", "新增"}, "ja": {"作成"},
	},
	"delete": {
		"en": {"delete", "remove", "cancel"}, "de": {"löschen"}, "fr": {"supprimer"}, "es": {"eliminar", "borrar"},
		"zh": {"刪除", "删除"}, "ja": {"削除"},
	},
	"list":      {"en": {"list"}, "de": {"liste"}, "fr": {"lister"}, "es": {"listar"}, "zh": {"列出"}, "ja": {"一覧"}},
	"translate": {"en": {"translate", "translation"}, "de": {"übersetzen"}, "fr": {"traduire"}, "es": {"traducir"}, "zh": {"翻譯", "翻译"}, "ja": {"翻訳"}},
	"calculate": {"en": {"calculate", "compute", "sum"}, "de": {"berechnen"}, "fr": {"calculer"}, "es": {"calcular"}, "zh": {"計算", "计算"}},
	"news":      {"en": {"news", "headline"}, "de": {"nachricht"}, "fr": {"actualité"}, "es": {"noticia"}, "zh": {"新聞", "新闻"}, "ja": {"ニュース"}},
	"stock":     {"en": {"stock", "ticker"}, "de": {"aktie"}, "fr": {"bourse", "cours de l'action"}, "es": {"bolsa", "cotización"}, "zh": {"股票"}, "ja": {"株価"}},

	// Weather, climate and soil.
	"now": {
		"en": {"now", "current*", "today", "at the moment"}, "fr": {"maintenant", "actuel*", "aujourd'hui", "en ce moment"},
		"es": {"ahora", "actual*", "hoy", "en este momento"}, "zh": {"現在", "现在", "目前", "今天", "今日", "最新", "當前", "当前"},
	},
	"forecast": {
		"en": {"forecast", "tomorrow", "coming days", "next days", "upcoming", "this week", "next week"},
		"fr": {"prévision*", "demain", "prochains jours", "cette semaine", "semaine prochaine"},
		"es": {"pronóstico", "previsión", "mañana", "próximos días", "esta semana", "próxima semana"},
		"zh": {"預報", "预报", "明天", "未來", "未来", "接下來", "接下来", "這週", "这周", "本週", "本周"},
	},
	"climate": {
		"en": {"climate", "normals", "typical*", "average", "usually", "rainy season", "dry season"},
		"fr": {"climat", "normales", "typique*", "moyenne*", "saison des pluies", "saison sèche"},
		"es": {"clima", "climatolog*", "típic*", "promedio", "temporada de lluvias", "estación lluviosa"},
		"zh": {"氣候", "气候", "雨季", "旱季", "平均"},
	},
	"soil":   {"en": {"soil*", "ground"}, "fr": {"sol", "sols", "terre"}, "es": {"suelo*", "tierra"}, "zh": {"土壤"}},
	"carbon": {"en": {"carbon", "soc", "organic matter"}, "fr": {"carbone"}, "es": {"carbono"}, "zh": {"碳"}},
	"clay":   {"en": {"clay"}, "fr": {"argile"}, "es": {"arcilla"}, "zh": {"黏土", "粘土"}},
	"sand":   {"en": {"sand*"}, "fr": {"sable*"}, "es": {"arena*"}, "zh": {"沙", "砂"}},
	"ph":     {"en": {"ph", "acidity", "acidic"}, "fr": {"acidité"}, "es": {"acidez"}, "zh": {"酸鹼", "酸碱"}},
	"nitrogen": {
		"en": {"nitrogen"}, "fr": {"azote"}, "es": {"nitrógeno"}, "zh": {"氮"},
	},
	"days": {"en": {"day"}, "fr": {"jour"}, "es": {"día", "días"}, "zh": {"天", "日"}},

	// Indicators and methods (monitoring knowledge bases).
	"indicator": {"en": {"indicator*"}, "fr": {"indicateur*"}, "es": {"indicador*"}, "zh": {"指標", "指标"}},
	"method": {
		"en": {"method*", "technique*", "approach*"}, "fr": {"méthode*", "technique*"}, "es": {"método*", "técnica*"},
		"zh": {"方法", "技術", "技术"},
	},
	"category": {
		"en": {"class", "classes", "categor*", "kinds", "types"}, "fr": {"classe*", "catégorie*", "types"},
		"es": {"clase*", "categoría*", "tipos"}, "zh": {"類別", "类别", "分類", "分类", "種類", "种类"},
	},
	"knowledge_base": {
		"en": {"knowledge base", "database", "knowledge"}, "fr": {"base de connaissances", "base de données"},
		"es": {"base de conocimiento*", "base de datos"}, "zh": {"知識庫", "知识库", "資料庫", "数据库"},
	},
	"principle": {"en": {"principle*"}, "fr": {"principe*"}, "es": {"principio*"}, "zh": {"原則", "原则"}},
	"compare": {
		"en": {"compare", "comparison", "versus", "vs", "difference*"}, "fr": {"compar*", "différence*"},
		"es": {"compar*", "diferencia*"}, "zh": {"比較", "比较", "對比", "对比"},
	},
	"export": {
		"en": {"export", "report", "download"}, "fr": {"export*", "rapport", "télécharger"},
		"es": {"export*", "informe", "reporte", "descargar"}, "zh": {"匯出", "导出", "報告", "报告", "下載", "下载"},
	},
	"cheap": {
		"en": {"cheap*", "low cost", "low-cost", "inexpensive", "affordable", "budget"},
		"fr": {"pas cher", "bon marché", "peu coûteu*", "faible coût", "économique*"},
		"es": {"barat*", "bajo costo", "bajo coste", "económic*", "asequible*"}, "zh": {"便宜", "低成本", "低價", "低价"},
	},
	"accuracy": {
		"en": {"accura*", "precise", "precision", "reliable"}, "fr": {"précis*", "exactitude", "fiable*"},
		"es": {"precis*", "exactitud", "fiable*", "exact*"}, "zh": {"準確", "准确", "精確", "精确", "精度"},
	},
	"ease": {
		"en": {"easy", "easiest", "simple", "straightforward"}, "fr": {"facile*", "simple*"},
		"es": {"fácil*", "sencill*"}, "zh": {"簡單", "简单", "容易"},
	},
	"level_high":   {"en": {"high", "highest", "very"}, "fr": {"haute", "élevé*", "très"}, "es": {"alta", "alto", "muy"}, "zh": {"高"}},
	"level_medium": {"en": {"medium", "moderate", "decent", "reasonable"}, "fr": {"moyen*", "correct*"}, "es": {"medi*", "moderad*", "razonable"}, "zh": {"中等"}},
	"level_low":    {"en": {"low", "lowest"}, "fr": {"faible*", "bas", "basse"}, "es": {"baj*"}, "zh": {"低"}},

	// Emission inventories and climate accounting.
	"climate_science": {
		"en": {"gpc", "basic+", "scope", "scopes", "warming potential", "gwp", "ar5", "ar6", "emission factor", "grid",
			"landfill*", "decay", "notation key", "methodolog*", "uncertaint*", "data quality", "vkt", "fuel sales", "methane", "n2o"},
		"fr": {"gpc", "périmètre*", "potentiel de réchauffement", "facteur d'émission", "facteurs d'émission", "réseau électrique",
			"décharge*", "clé de notation", "clés de notation", "méthodolog*", "incertitude*", "qualité des données", "méthane"},
		"es": {"gpc", "alcance*", "potencial de calentamiento", "factor de emisión", "factores de emisión", "red eléctrica",
			"vertedero*", "relleno sanitario", "clave de notación", "claves de notación", "metodolog*", "incertidumbre*", "calidad de datos", "metano"},
		"zh": {"範疇", "范畴", "範圍一", "範圍二", "范围一", "范围二", "暖化潛勢", "变暖潜能", "排放係數", "排放系数", "排放因子", "電網", "电网",
			"掩埋", "填埋", "註記鍵", "方法學", "方法学", "不確定", "不确定", "甲烷"},
	},
	"inventory": {
		"en": {"inventor*", "emissions"}, "fr": {"inventaire*", "émissions"}, "es": {"inventario*", "emisiones"},
		"zh": {"清冊", "清册", "清單", "清单", "盤查", "盘查", "排放"},
	},
	"sources": {
		"en": {"data source*", "sources", "dataset*"}, "fr": {"source*", "jeu de données", "jeux de données"},
		"es": {"fuente*", "conjunto de datos", "conjuntos de datos"}, "zh": {"資料來源", "数据来源", "數據源", "数据源", "來源", "来源"},
	},
	"detail": {
		"en": {"detail*", "total", "summar*", "tell me about"}, "fr": {"détail*", "total", "résum*"},
		"es": {"detalle*", "total", "resum*"}, "zh": {"詳細", "详细", "總量", "总量", "摘要", "介紹", "介绍"},
	},
	"product": {
		"en": {"upload*", "invite*", "dashboard*", "password*", "log in", "login", "export*", "button*"},
		"fr": {"téléverser", "importer", "inviter", "mot de passe", "tableau de bord", "connexion", "bouton", "exporter"},
		"es": {"subir", "cargar", "invitar", "contraseña", "panel", "iniciar sesión", "botón", "exportar"},
		"zh": {"上傳", "上传", "邀請", "邀请", "密碼", "密码", "登入", "登录", "儀表板", "仪表板", "按鈕", "按钮"},
	},
	"how_to": {
		"en": {"how do i", "how can i", "where do i", "where can i", "how do we", "how can we", "where can we"},
		"fr": {"comment puis-je", "comment faire", "où puis-je", "comment on"}, "es": {"cómo puedo", "cómo hago", "dónde puedo", "cómo se"},
		"zh": {"怎麼", "怎么", "如何", "在哪裡", "在哪里"},
	},
	"ordinal_1": {"en": {"first", "1st"}, "fr": {"premier", "première"}, "es": {"primer*"}, "zh": {"第一"}},
	"ordinal_2": {"en": {"second", "2nd"}, "fr": {"second*", "deuxième"}, "es": {"segund*"}, "zh": {"第二"}},
	"ordinal_3": {"en": {"third", "3rd"}, "fr": {"troisième"}, "es": {"tercer*"}, "zh": {"第三"}},
	"ordinal_4": {"en": {"fourth", "4th"}, "fr": {"quatrième"}, "es": {"cuart*"}, "zh": {"第四"}},
	"latest": {
		"en": {"latest", "newest", "most recent", "last"}, "fr": {"dernier", "dernière", "plus récent*"},
		"es": {"más reciente*", "último", "última"}, "zh": {"最新", "最近"},
	},
	"oldest": {"en": {"oldest", "earliest"}, "fr": {"plus ancien*"}, "es": {"más antigu*"}, "zh": {"最舊", "最旧", "最早"}},

	// Ocean data.
	"sst": {
		"en": {"sst", "sea surface temp*", "water temp*", "ocean temp*", "sea temp*", "anomal*"},
		"fr": {"anomalie*"}, "es": {"anomalía*"},
		"zh": {"海溫", "海温", "水溫", "水温", "海表溫", "海表温", "海水溫度", "海水温度", "距平"},
	},
	"sea": {
		"en": {"sea", "ocean", "water", "marine", "surface"}, "fr": {"mer", "océan", "eau", "marin*", "surface"},
		"es": {"mar", "océano", "agua", "marin*", "superficie", "superficial"}, "zh": {"海水", "海洋", "海面", "海表"},
	},
	"definition": {
		"en": {"what is a", "what is an", "what does", "explain*", "defin*", "meaning", "how is", "how are", "how do i", "how can i"},
		"fr": {"qu'est-ce", "que signifie", "expliqu*", "défin*", "signification"},
		"es": {"qué es", "qué significa", "explica*", "defin*", "significado"},
		"zh": {"是什麼", "是什么", "什麼是", "什么是", "意思", "解釋", "解释", "定義", "定义", "如何", "怎麼", "怎么"},
	},
	"code": {
		"en": {"python", "code", "script*", "program*", "function", "csv"},
		"fr": {"python", "code", "script*", "programme*", "fonction", "csv"},
		"es": {"python", "código", "script*", "programa*", "función", "csv"},
		"zh": {"程式", "程序", "代碼", "代码", "寫一", "写一"},
	},
	"plot": {
		"en": {"plot*", "chart*", "map*", "graph*", "visuali*"}, "fr": {"trac*", "graphique*", "carte*"},
		"es": {"gráfic*", "mapa*", "trazar"}, "zh": {"畫", "画", "圖", "图"},
	},
	// Instruction vocabulary: the words a prompt's condition uses for a
	// case a policy recognises (package policy, instructions.go).
	"greeting": {
		"en": {"greeting*", "greet*", "hello", "hi", "thanks", "thank*"}, "fr": {"salut*", "bonjour", "merci", "remerciement*"},
		"es": {"saludo*", "hola", "gracias", "agradecimiento*"}, "zh": {"問候", "问候", "你好", "謝謝", "谢谢"},
	},
	"data": {
		"en": {"data", "numbers", "values", "readings"}, "fr": {"données", "valeurs", "chiffres"},
		"es": {"datos", "valores", "cifras"}, "zh": {"數據", "数据", "資料", "数值", "數值"},
	},
	"differ": {
		"en": {"differ*", "different"}, "fr": {"diffère*", "différent*"}, "es": {"difiere*", "diferente*", "distint*"},
		"zh": {"不同", "差異", "差异"},
	},
	"yesterday":            {"en": {"yesterday"}, "fr": {"hier"}, "es": {"ayer"}, "zh": {"昨天", "昨日"}},
	"day_before_yesterday": {"en": {"day before yesterday"}, "fr": {"avant-hier"}, "es": {"anteayer", "antes de ayer"}, "zh": {"前天"}},

	// Place words of the regions a request's registry may name (add the
	// words of a new region's key here).
	"taiwan":  {"en": {"taiwan*"}, "fr": {"taïwan*"}, "es": {"taiwán"}, "zh": {"台灣", "臺灣", "台湾"}},
	"hawaii":  {"en": {"hawaii*"}, "fr": {"hawaï*"}, "es": {"hawái*"}, "zh": {"夏威夷"}},
	"strait":  {"en": {"strait*"}, "fr": {"détroit*"}, "es": {"estrecho*"}, "zh": {"海峽", "海峡"}},
	"islands": {"en": {"island*"}, "fr": {"île*", "archipel*"}, "es": {"isla*", "archipiélago*"}, "zh": {"群島", "群岛", "島", "岛"}},
	"nearby": {
		"en": {"nearby", "near", "around", "off", "waters", "surrounding"}, "fr": {"autour", "près", "proche*", "large", "eaux"},
		"es": {"alrededor*", "cerca", "aguas", "frente a"}, "zh": {"附近", "周遭", "周邊", "周边", "外海", "海域"},
	},

	// Getting around (trip planners).
	"where_am_i": {
		"en": {"where am i", "where i am", "my location", "my address"}, "fr": {"où suis-je", "où je suis", "ma position", "mon adresse"},
		"es": {"dónde estoy", "donde estoy", "mi ubicación", "mi dirección"}, "zh": {"我在哪", "我的位置", "我現在在哪", "我现在在哪"},
	},
	"here": {
		"en": {"here", "me", "my location", "where i am", "current location", "my current location"},
		"fr": {"ici", "moi", "ma position"}, "es": {"aquí", "mí", "mi ubicación"}, "zh": {"這裡", "这里", "我這", "我这"},
	},
	"go_to": {
		"en": {"get to", "go to", "take me to", "directions to", "route to"}, "fr": {"aller à", "aller au", "me rendre à", "itinéraire vers", "itinéraire pour"},
		"es": {"ir a", "ir al", "llegar a", "llegar al", "ruta a", "ruta al"}, "zh": {"去", "到"},
	},
	"from_place": {"en": {"from"}, "fr": {"de", "depuis", "du"}, "es": {"desde", "de", "del"}, "zh": {"從", "从"}},
	"to_place":   {"en": {"to"}, "fr": {"à", "au", "jusqu'à"}, "es": {"a", "al", "hasta"}, "zh": {"到", "去"}},
	"in_place":   {"en": {"in", "for", "at"}, "fr": {"à", "en", "au", "pour"}, "es": {"en", "para"}, "zh": {"在"}},
	"near": {
		"en": {"near", "around", "close to", "nearby"}, "fr": {"près de", "autour de", "à côté de", "proche"},
		"es": {"cerca de", "alrededor de", "cerca"}, "zh": {"附近"},
	},
	"find": {
		"en": {"find", "any", "search for", "look for", "looking for"}, "fr": {"trouve", "trouver", "cherche", "chercher"},
		"es": {"busca", "buscar", "encuentra", "encontrar", "hay"}, "zh": {"找", "搜尋", "搜索"},
	},
	"hot_cold": {"en": {"hot", "cold", "warm", "raining", "rainy"}, "fr": {"chaud", "froid", "pleut"}, "es": {"calor", "frío", "llueve"}, "zh": {"熱", "热", "冷", "下雨"}},
	"today":    {"en": {"today"}, "fr": {"aujourd'hui"}, "es": {"hoy"}, "zh": {"今天"}},
	"tonight":  {"en": {"tonight"}, "fr": {"ce soir"}, "es": {"esta noche"}, "zh": {"今晚"}},
	"tomorrow": {"en": {"tomorrow"}, "fr": {"demain"}, "es": {"mañana"}, "zh": {"明天"}},

	// The home and its data (home assistants).
	"sensors":  {"en": {"sensor*"}, "fr": {"capteur*", "sonde*"}, "es": {"sensor*"}, "zh": {"感測器", "傳感器", "传感器"}},
	"all":      {"en": {"all", "every", "each"}, "fr": {"tous", "toutes", "chaque"}, "es": {"todos", "todas", "cada"}, "zh": {"所有", "全部", "每個", "每个"}},
	"humidity": {"en": {"humid*"}, "fr": {"humidité"}, "es": {"humedad"}, "zh": {"濕度", "湿度"}},
	"pool":     {"en": {"pool"}, "fr": {"piscine"}, "es": {"piscina", "alberca"}, "zh": {"泳池", "游泳池"}},
	"living_room": {
		"en": {"living room", "lounge"}, "fr": {"salon", "séjour"}, "es": {"sala", "salón"}, "zh": {"客廳", "客厅"},
	},
	"garage":  {"en": {"garage"}, "fr": {"garage"}, "es": {"garaje", "cochera"}, "zh": {"車庫", "车库"}},
	"outdoor": {"en": {"outdoor*", "outside"}, "fr": {"extérieur*", "dehors"}, "es": {"exterior", "afuera", "fuera"}, "zh": {"室外", "戶外", "户外", "外面"}},
	"kitchen": {"en": {"kitchen"}, "fr": {"cuisine"}, "es": {"cocina"}, "zh": {"廚房", "厨房"}},
	"bedroom": {"en": {"bedroom"}, "fr": {"chambre"}, "es": {"dormitorio", "habitación"}, "zh": {"臥室", "卧室"}},
	"week":    {"en": {"week"}, "fr": {"semaine"}, "es": {"semana"}, "zh": {"週", "周", "星期"}},
	"hours":   {"en": {"hour*"}, "fr": {"heure*"}, "es": {"hora*"}, "zh": {"小時", "小时"}},
	"rows":    {"en": {"rows", "records", "entries"}, "fr": {"lignes", "enregistrements"}, "es": {"filas", "registros"}, "zh": {"幾行", "几行", "多少行", "筆資料", "条记录"}},
	"summary": {
		"en": {"summar*", "overview", "gist"}, "fr": {"résum*", "synthèse"}, "es": {"resum*", "síntesis"}, "zh": {"摘要", "總結", "总结", "概述"},
	},
	"count": {
		"en": {"how many", "number of", "count", "length"}, "fr": {"combien", "nombre de", "longueur"},
		"es": {"cuántos", "cuántas", "número de", "longitud"}, "zh": {"多少", "幾個", "几个", "長度", "长度"},
	},
	"unavailable": {"en": {"unavailable", "unknown", "missing"}, "fr": {"indisponible*", "inconnu*", "manquant*"}, "es": {"no disponible*", "desconocid*", "faltante*"}, "zh": {"不可用", "未知", "缺少"}},
	"raw":         {"en": {"raw"}, "fr": {"brut*"}, "es": {"crud*", "en bruto"}, "zh": {"原始"}},
	"period":      {"en": {"period", "cover*", "range", "span"}, "fr": {"période", "couvr*", "plage"}, "es": {"período", "periodo", "abarca*", "rango"}, "zh": {"期間", "期间", "範圍", "范围", "時段", "时段"}},

	// The assistant itself.
	"own_tools": {
		"en": {"tools", "capabilities", "what can you do"}, "fr": {"outils", "que peux-tu faire", "que pouvez-vous faire"},
		"es": {"herramientas", "qué puedes hacer"}, "zh": {"工具", "你能做什麼", "你能做什么"},
	},
	"how_answered": {
		"en": {"how did you", "what did you use", "internal"}, "fr": {"comment as-tu", "comment avez-vous", "interne*"},
		"es": {"cómo obtuviste", "cómo encontraste", "intern*"}, "zh": {"怎麼找到", "怎么找到", "內部", "内部"},
	},
}

// genericConcepts are the lexicon's concepts the generic policy maps words
// to (terms.go): general vocabulary of tools.
var genericConcepts = []string{"weather", "temperature", "rain", "wind", "search", "place", "time", "date",
	"price", "convert", "send", "create", "delete", "list", "translate", "calculate", "news", "stock"}

// languages are the language tags of the lexicon, English first.
var languages = []string{"en", "de", "fr", "es", "zh", "ja"}

// ConceptWords returns every word of concept c, in every language.
func ConceptWords(c string) []string {
	var out []string
	for _, lang := range languages {
		out = append(out, concepts[c][lang]...)
	}
	return out
}

// ConceptNames are the lexicon's concepts, sorted.
func ConceptNames() []string { return slices.Sorted(maps.Keys(concepts)) }

// WordsIn returns the words of concept c in language lang (a copy).
func WordsIn(c, lang string) []string { return slices.Clone(concepts[c][lang]) }

// EmbedConcepts are the keyword groups of the embedding vectors' first
// dimensions (harness/standin/embed.go), one per climate concept, counted as substrings of
// the lowercased text; English only, like the documents searched. Changing a
// group changes every recorded vector search.
func EmbedConcepts() [][]string {
	return [][]string{
		{"gpc", "basic+", "basic plus", "basic ", "global protocol for community"},
		{"scope 1", "scope 2", "scope 3", "scopes", "scope"},
		{"warming potential", "gwp", "ar5", "ar6", "assessment report"},
		{"methane", "ch4", "nitrous oxide", "n2o", "carbon dioxide"},
		{"grid", "electricity", "emission factor", "location-based", "market-based"},
		{"waste", "landfill", "first order decay", "wastewater", "incineration"},
		{"transport", "vehicle", "vkt", "fuel sales", "road"},
		{"notation key", "not estimated", "included elsewhere", "not occurring", "confidential"},
		{"uncertainty", "data quality", "quality"},
		{"inventory", "inventories"},
	}
}
