package standin

import (
	"strings"
	"unicode"
)

// The words of the generic policy: how it cuts text into comparable terms.
//
// A term is a lowercased word with a simple English stem taken off
// ("forecasts" and "forecasting" are both "forecast"), then mapped through
// genericLexicon to its concept, so that "Wetter", "météo" and "天氣" all
// count as "weather". Identifiers split at underscores, dots, dashes and
// camelCase humps ("getWeather" is "get" and "weather"). Stop words never
// count. Han and kana text has no spaces, so the lexicon's CJK words are
// found by substring instead.

// genericLexicon maps common synonyms in English, German, French, Spanish
// and Chinese/Japanese to one concept per line. It is general vocabulary
// for tools, never a phrase taken from a scenario; add a line rather than a
// special case.
var genericLexicon = map[string][]string{
	"weather":     {"weather", "forecast", "wetter", "vorhersage", "météo", "meteo", "prévision", "tiempo", "pronóstico", "clima", "天氣", "天气", "天気", "預報", "预报"},
	"temperature": {"temperature", "temp", "degree", "celsius", "fahrenheit", "temperatur", "température", "temperatura", "氣溫", "气温", "気温", "溫度", "温度"},
	"rain":        {"rain", "precipitation", "shower", "regen", "niederschlag", "pluie", "lluvia", "雨", "降雨"},
	"wind":        {"wind", "windy", "vent", "viento", "風", "风"},
	"search":      {"search", "find", "lookup", "query", "suchen", "finden", "chercher", "rechercher", "buscar", "搜尋", "搜索", "查詢", "查询", "検索"},
	"place":       {"city", "town", "place", "location", "where", "stadt", "ort", "ville", "lieu", "ciudad", "lugar", "城市", "地點", "地点", "都市"},
	"time":        {"time", "clock", "hour", "zeit", "uhr", "heure", "hora", "時間", "时间"},
	"date":        {"date", "day", "datum", "tag", "jour", "fecha", "día", "日期"},
	"price":       {"price", "cost", "quote", "preis", "kosten", "prix", "coût", "precio", "價格", "价格", "値段"},
	"convert":     {"convert", "conversion", "exchange", "umrechnen", "convertir", "換算", "换算", "兌換", "兑换"},
	"send":        {"send", "email", "mail", "message", "notify", "senden", "envoyer", "enviar", "發送", "发送", "送信"},
	"create":      {"create", "add", "new", "make", "book", "erstellen", "créer", "ajouter", "crear", "añadir", "建立", "创建", "新增", "作成"},
	"delete":      {"delete", "remove", "cancel", "löschen", "supprimer", "eliminar", "borrar", "刪除", "删除", "削除"},
	"list":        {"list", "liste", "lister", "listar", "列出", "一覧"},
	"translate":   {"translate", "translation", "übersetzen", "traduire", "traducir", "翻譯", "翻译", "翻訳"},
	"calculate":   {"calculate", "compute", "sum", "berechnen", "calculer", "calcular", "計算", "计算"},
	"news":        {"news", "headline", "nachricht", "actualité", "noticia", "新聞", "新闻", "ニュース"},
	"stock":       {"stock", "ticker", "aktie", "股票", "株価"},
}

// genericStop are words that carry no meaning for matching a tool.
var genericStop = setOf(strings.Fields(`a an the and or of to in on at for by with from is are was be
	it its this that these those what which who how when why do does can could would should will
	me my you your we our i get set please tell give about into as than then there here
	der die das und oder ist ein eine le la les et ou est un une el los las y o es un una`))

// genericConcept is the concept each lexicon word stands for, and
// genericCJK lists the lexicon's words written without spaces.
var genericConcept, genericCJK = lexiconIndex()

func lexiconIndex() (map[string]string, []string) {
	concept := map[string]string{}
	var cjk []string
	for c, words := range genericLexicon {
		for _, w := range words {
			if isCJK(w) {
				cjk = append(cjk, w)
			}
			concept[stem(w)] = c
		}
	}
	return concept, cjk
}

func setOf(words []string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// isCJK reports whether s has a Han, Hiragana or Katakana letter.
func isCJK(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) {
			return true
		}
	}
	return false
}

// stem takes one common English suffix off a lowercased word of five
// letters or more: "ies" becomes "y", then "ing", "ed", "es" and "s" go.
func stem(w string) string {
	if len([]rune(w)) < 5 || isCJK(w) {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ing"):
		return w[:len(w)-3]
	case strings.HasSuffix(w, "ed") && len(w) >= 6:
		return w[:len(w)-2]
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "ches"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}

// terms returns the distinct terms of text (see the top of this file).
func terms(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range words(text) {
		w = strings.ToLower(w)
		if genericStop[w] {
			continue
		}
		s := stem(w)
		if c, ok := genericConcept[s]; ok {
			s = c
		}
		out[s] = true
	}
	for _, w := range genericCJK {
		if strings.Contains(text, w) {
			out[genericConcept[w]] = true
		}
	}
	return out
}

// words splits text into words at anything that is not a letter or digit,
// and identifiers at camelCase humps.
func words(text string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range text {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return out
}

// overlap counts the terms a and b share.
func overlap(a, b map[string]bool) int {
	n := 0
	for t := range a {
		if b[t] {
			n++
		}
	}
	return n
}
