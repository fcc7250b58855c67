package standin_test

import (
	. "github.com/onsi/ginkgo/v2"

	"github.com/agentreplay/testbed/agents/llm"
)

// kuraStepRequest is an executor call for step, answered with result when
// result is not "".
func kuraStepRequest(step map[string]any, tool, args, result string) llm.Request {
	ws := kuraWorld("x", kuraGeocoded())
	if result == "" {
		return kuraExecutorRequest(step, ws)
	}
	return kuraExecutorRequest(step, ws, modelCalls("call_1", tool, args), toolSays("call_1", tool, result))
}

func kuraStepOf(action string, args map[string]any) map[string]any {
	return map[string]any{"id": "S1", "action": action, "args": args}
}

// kuraRuleCases are one request per rule of each Kura policy, in new
// wordings (English, French, Spanish, Chinese), none a committed
// scenario's; a synthesizer case names every section that must speak.
func kuraRuleCases() map[string]map[string]ruleCase {
	type c = ruleCase
	plan := func(q string) llm.Request { return kuraPlannerRequest(q, kuraWorld(q, nil)) }
	geo := func(address, result string) llm.Request {
		return kuraStepRequest(kuraStepOf("Geocode", map[string]any{"address": address}), "geocode", `{"address":"`+address+`"}`, result)
	}
	synth := func(ctx map[string]any, errs []any) llm.Request {
		ws := kuraWorld("¿Qué tiempo hace en Lima?", ctx)
		if errs != nil {
			ws["errors"] = errs
		}
		return kuraSynthesizerRequest("¿Qué tiempo hace en Lima?", ws, nil)
	}
	return map[string]map[string]c{
		"kura/planner": {
			"no-letters":      {plan("👋 ?? 42"), ""},
			"transit-from-to": {plan("Itinéraire de Gare du Nord à Montmartre demain à 9h"), ""},
			"transit-go-to":   {plan("¿Cómo puedo ir a Plaza Mayor?"), ""},
			"places-near":     {plan("Busca farmacias cerca de Plaza Mayor"), ""},
			"weather":         {plan("Quel temps fait-il à Lyon ? Il fait chaud ?"), ""},
			"where-am-i":      {plan("我在哪裡？"), ""},
			"conversation":    {plan("Merci beaucoup"), ""},
		},
		"kura/executor": {
			"conversation":   {kuraStepRequest(kuraStepOf("Conversation", nil), "", "", ""), ""},
			"unknown-action": {kuraStepRequest(kuraStepOf("Teleport", nil), "", "", ""), ""},
			"tool-missing": {func() llm.Request {
				r := kuraStepRequest(kuraStepOf("Geolocate", nil), "", "", "")
				r.Tools = r.Tools[:1]
				return r
			}(), ""},
			"call-tool":         {kuraStepRequest(kuraStepOf("Weather", map[string]any{"location": "Lima"}), "", "", ""), ""},
			"unreadable-result": {geo("Lyon", "<html>"), ""},
			"tool-error":        {geo("Lyon", `{"error": "quota exceeded"}`), ""},
			"geocode-none":      {geo("Nowhere", `{"status": "ZERO_RESULTS", "results": []}`), ""},
			"geocode-ambiguous": {geo("Springfield", kuraGeocodeResult("Springfield, IL, USA", "Springfield, MA, USA")), ""},
			"geocode-found":     {geo("Lyon", kuraGeocodeResult("Lyon, France")), ""},
			"geolocated":        {kuraStepRequest(kuraStepOf("Geolocate", nil), "geolocate", `{}`, kuraGeolocateResult), ""},
			"reverse-none":      {kuraStepRequest(kuraStepOf("ReverseGeocode", nil), "reverse_geocode", `{}`, `{"results": []}`), ""},
			"reverse-found":     {kuraStepRequest(kuraStepOf("ReverseGeocode", nil), "reverse_geocode", `{}`, kuraGeocodeResult("Rue de Rivoli, Paris")), ""},
			"weather-now":       {kuraStepRequest(kuraStepOf("Weather", map[string]any{"location": "Lima"}), "weather", `{}`, kuraWeatherResult(20, 21, "CELSIUS", "Cloudy")), ""},
			"transit-none":      {kuraStepRequest(kuraStepOf("Transit", map[string]any{"origin": "Lima", "destination": "Tokyo"}), "transit_directions", `{}`, `{"routes": []}`), ""},
			"transit-route":     {kuraStepRequest(kuraStepOf("Transit", map[string]any{"origin": "Lima", "destination": "Tokyo"}), "transit_directions", `{}`, kuraRoutesResult("600s")), ""},
			"places-found":      {kuraStepRequest(kuraStepOf("Places", map[string]any{"query": "café"}), "places_search", `{}`, kuraPlacesResult(2)), ""},
		},
		"kura/synthesizer": {
			"address":  {synth(map[string]any{"reverse_geocode_result": map[string]any{"formatted_address": "Rue de Rivoli, Paris"}}, nil), "address"},
			"weather":  {synth(map[string]any{"weather": map[string]any{"Lima": kuraWeather("Lima", 20, 21, "Cloudy", "metric")}}, nil), "weather"},
			"transit":  {synth(map[string]any{"transit": map[string]any{"duration": 600.0}}, nil), "transit"},
			"places":   {synth(map[string]any{"places_found": []any{}}, nil), "places"},
			"errors":   {synth(nil, []any{map[string]any{"step": "S1", "tool": "geocode", "message": "no place found for 'Lima'"}}), "errors"},
			"greeting": {synth(nil, nil), "greeting"},
		},
	}
}

var _ = Describe("the Kura policies' rules", func() {
	specEveryRule([]string{"kura/planner", "kura/executor", "kura/synthesizer"}, kuraRuleCases)
})
