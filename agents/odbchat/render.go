package odbchat

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// Languages an answer is rendered in.
const (
	LangZH = "zh"
	LangEN = "en"
)

// languageOf returns zh when the text has any Han character, else en.
func languageOf(s string) string {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return LangZH
		}
	}
	return LangEN
}

// render writes a one-line answer such as
// "2025-11-06：台灣周遭海溫約 26.4 °C，距平 +0.21 °C。".
func render(res *ToolResult, lang string) string {
	var parts []string
	if lang == LangZH {
		if res.SST != nil {
			parts = append(parts, fmt.Sprintf("%s海溫約 %.1f °C", placeZH(res), *res.SST))
		}
		if res.SSTAnomaly != nil {
			parts = append(parts, fmt.Sprintf("距平 %+.2f °C", *res.SSTAnomaly))
		}
		s := res.Date + "：" + strings.Join(parts, "，") + "。"
		if res.RequestedDate != "" {
			s += fmt.Sprintf("（原請求 %s 尚無資料，改用前一日）", res.RequestedDate)
		}
		return s
	}
	if res.SST != nil {
		parts = append(parts, fmt.Sprintf("SST ≈ %.1f °C", *res.SST))
	}
	if res.SSTAnomaly != nil {
		parts = append(parts, fmt.Sprintf("anomaly %+.2f °C", *res.SSTAnomaly))
	}
	s := fmt.Sprintf("%s, %s: %s.", res.Date, placeEN(res), strings.Join(parts, ", "))
	if res.RequestedDate != "" {
		s += fmt.Sprintf(" (no data yet for %s; showing the day before)", res.RequestedDate)
	}
	return s
}

func placeZH(res *ToolResult) string {
	if name := regionName(res.Region); name != "" {
		return map[string]string{"taiwan_nearby": "台灣周遭", "taiwan_strait": "台灣海峽", "hawaiian_islands": "夏威夷群島周遭"}[name]
	}
	return describeRegion(res.Region) + " "
}

func placeEN(res *ToolResult) string {
	if name := regionName(res.Region); name != "" {
		return map[string]string{"taiwan_nearby": "around Taiwan", "taiwan_strait": "Taiwan Strait", "hawaiian_islands": "around the Hawaiian Islands"}[name]
	}
	return describeRegion(res.Region)
}

// regionName returns the registry key whose bbox equals region, if any.
func regionName(region []float64) string {
	for k, b := range geoRegistry() {
		if len(region) == 4 && b[0] == region[0] && b[1] == region[1] && b[2] == region[2] && b[3] == region[3] {
			return k
		}
	}
	return ""
}

func describeRegion(r []float64) string {
	switch len(r) {
	case 2:
		return fmt.Sprintf("point [%g, %g]", r[0], r[1])
	case 4:
		return fmt.Sprintf("bbox [%g, %g, %g, %g]", r[0], r[1], r[2], r[3])
	}
	return "the requested area"
}

// failure is the envelope of a failed request: a compact message in the
// user's language that names the standard code.
func (a *Agent) failure(lang, code, msg string, plan *Plan) Envelope {
	var text string
	if lang == LangZH {
		lead := map[string]string{
			CodeInvalidArgument: "參數有誤",
			CodeNotFound:        "查無資料",
			CodeUnavailable:     "目前無法取得資料",
		}[code]
		text = fmt.Sprintf("%s（%s）：%s", lead, code, localizeZH(msg))
	} else {
		lead := map[string]string{
			CodeInvalidArgument: "Invalid request",
			CodeNotFound:        "No data",
			CodeUnavailable:     "The data service is unavailable",
		}[code]
		text = fmt.Sprintf("%s (%s): %s", lead, code, msg)
	}
	env := Envelope{Mode: "error", Text: text, Source: "router.answer", Raw: Raw{Plan: plan}}
	if plan != nil && plan.Tool != nil {
		env.Source = plan.Tool.Name
	}
	return env
}

var (
	dataNotExist = regexp.MustCompile(`^Data not exist, available date is (\S+)/(\S+?)\.?$`)
	tooMany      = regexp.MustCompile(`^(Too many points|Unable to satisfy bbox request within point limit)`)
)

// localizeZH renders the GHRSST service's known English messages in
// Chinese, keeping their facts; others pass through unchanged.
func localizeZH(msg string) string {
	switch {
	case dataNotExist.MatchString(msg):
		m := dataNotExist.FindStringSubmatch(msg)
		return fmt.Sprintf("該日期沒有資料，可查詢的日期為 %s 至 %s", m[1], m[2])
	case tooMany.MatchString(msg):
		return "範圍內的資料點過多，請縮小經緯度範圍"
	case strings.HasSuffix(msg, "No available dates."):
		return "海溫服務目前沒有可用的日期"
	case strings.HasPrefix(msg, "no sea-surface data on "):
		return strings.TrimPrefix(strings.TrimSuffix(msg, " at this location (land or ice)"), "no sea-surface data on ") + " 此位置沒有海面資料（陸地或海冰）"
	}
	return msg
}
