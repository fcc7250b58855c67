package standin_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin"
)

var _ = Describe("the Kura policies", func() {
	var c llm.Client

	BeforeEach(func() { c = client(startStandin(standin.Options{})) })

	Describe("the planner", func() {
		It("writes reasoning on its steps only when the plan format shows the field", func() {
			req := kuraPlannerRequest("What's the weather in Paris?", kuraWorld("What's the weather in Paris?", nil))
			Expect(chat(c, req).Message.Content).To(ContainSubstring(`"reasoning"`))
			req.Messages[0].Content = strings.ReplaceAll(req.Messages[0].Content, `, "reasoning": "<why this step>"`, "")
			Expect(req.Messages[0].Content).NotTo(ContainSubstring(`"reasoning"`))
			Expect(chat(c, req).Message.Content).NotTo(ContainSubstring(`"reasoning"`))
		})

		DescribeTable("plans the steps the query needs",
			func(query, steps string) {
				resp := chat(c, kuraPlannerRequest(query, kuraWorld(query, nil)))
				var plan struct {
					Steps []map[string]any `json:"steps"`
				}
				Expect(json.Unmarshal([]byte(resp.Message.Content), &plan)).To(Succeed(), "plan %q", resp.Message.Content)
				for _, st := range plan.Steps {
					// The planner prompt's format has a reasoning field; its
					// text is checked on its own below.
					Expect(st).To(HaveKeyWithValue("reasoning", "the query needs a "+st["action"].(string)+" step"))
					delete(st, "reasoning")
				}
				got, err := json.Marshal(plan.Steps)
				Expect(err).NotTo(HaveOccurred())
				Expect(got).To(MatchJSON(steps))
			},
			Entry("where am i", "where am i",
				`[{"id":"S1","action":"Geolocate","args":{}},{"id":"S2","action":"ReverseGeocode","args":{}}]`),
			Entry("Where am I right now?", "Where am I right now?",
				`[{"id":"S1","action":"Geolocate","args":{}},{"id":"S2","action":"ReverseGeocode","args":{}}]`),
			Entry("weather in one city", "What's the weather in Paris?",
				`[{"id":"S1","action":"Geocode","args":{"address":"Paris"}},{"id":"S2","action":"Weather","args":{"location":"Paris"}}]`),
			Entry("several cities → forEach", "weather in Paris, Tokyo and Lima",
				`[{"id":"S1","action":"Geocode","args":{"address":"{item}"},"forEach":["Paris","Tokyo","Lima"]},
				  {"id":"S2","action":"Weather","args":{"location":"{item}"},"forEach":["Paris","Tokyo","Lima"]}]`),
			Entry("particles and accents stay in the names", "How hot is it in Rio de Janeiro and São Paulo?",
				`[{"id":"S1","action":"Geocode","args":{"address":"{item}"},"forEach":["Rio de Janeiro","São Paulo"]},
				  {"id":"S2","action":"Weather","args":{"location":"{item}"},"forEach":["Rio de Janeiro","São Paulo"]}]`),
			Entry("a trailing lowercase word ends the place", "Is it raining in New York today?",
				`[{"id":"S1","action":"Geocode","args":{"address":"New York"}},{"id":"S2","action":"Weather","args":{"location":"New York"}}]`),
			Entry(`"for tomorrow" names no place; "in Berlin" does`, "What's the temperature for tomorrow in Berlin?",
				`[{"id":"S1","action":"Geocode","args":{"address":"Berlin"}},{"id":"S2","action":"Weather","args":{"location":"Berlin"}}]`),
			Entry("a street address keeps its comma", "What's the weather at 123 Nowhere Lane, Atlantis?",
				`[{"id":"S1","action":"Geocode","args":{"address":"123 Nowhere Lane, Atlantis"}},{"id":"S2","action":"Weather","args":{"location":"123 Nowhere Lane, Atlantis"}}]`),
			Entry("weather here", "What's the weather here?",
				`[{"id":"S1","action":"Geolocate","args":{}},{"id":"S2","action":"Weather","args":{"location":"current"}}]`),
			Entry("weather where I am", "Is it cold where I am?",
				`[{"id":"S1","action":"Geolocate","args":{}},{"id":"S2","action":"Weather","args":{"location":"current"}}]`),
			Entry("transit tomorrow at 8am, in the user's time zone", "How do I get from Penn Station to Times Square by subway tomorrow at 8am?",
				`[{"id":"S1","action":"Geocode","args":{"address":"Penn Station"}},{"id":"S2","action":"Geocode","args":{"address":"Times Square"}},
				  {"id":"S3","action":"Transit","args":{"origin":"Penn Station","destination":"Times Square","departureTime":"2025-11-07T08:00:00-05:00"}}]`),
			Entry("transit later today, 12-hour clock with minutes", "Transit from Grand Central to Yankee Stadium at 9:30 pm",
				`[{"id":"S1","action":"Geocode","args":{"address":"Grand Central"}},{"id":"S2","action":"Geocode","args":{"address":"Yankee Stadium"}},
				  {"id":"S3","action":"Transit","args":{"origin":"Grand Central","destination":"Yankee Stadium","departureTime":"2025-11-06T21:30:00-05:00"}}]`),
			Entry("a time already past today means tomorrow", "From JFK to Brooklyn Bridge at 8am",
				`[{"id":"S1","action":"Geocode","args":{"address":"JFK"}},{"id":"S2","action":"Geocode","args":{"address":"Brooklyn Bridge"}},
				  {"id":"S3","action":"Transit","args":{"origin":"JFK","destination":"Brooklyn Bridge","departureTime":"2025-11-07T08:00:00-05:00"}}]`),
			Entry(`"tonight at 7" from here`, "Take me from here to Central Park tonight at 7",
				`[{"id":"S1","action":"Geolocate","args":{}},{"id":"S2","action":"Geocode","args":{"address":"Central Park"}},
				  {"id":"S3","action":"Transit","args":{"origin":"current","destination":"Central Park","departureTime":"2025-11-06T19:00:00-05:00"}}]`),
			Entry("get to a place without an origin", "How do I get to Central Park?",
				`[{"id":"S1","action":"Geolocate","args":{}},{"id":"S2","action":"Geocode","args":{"address":"Central Park"}},
				  {"id":"S3","action":"Transit","args":{"origin":"current","destination":"Central Park"}}]`),
			Entry("directions to Y from X", "Directions to Yankee Stadium from Grand Central at 6:15pm",
				`[{"id":"S1","action":"Geocode","args":{"address":"Grand Central"}},{"id":"S2","action":"Geocode","args":{"address":"Yankee Stadium"}},
				  {"id":"S3","action":"Transit","args":{"origin":"Grand Central","destination":"Yankee Stadium","departureTime":"2025-11-06T18:15:00-05:00"}}]`),
			Entry("places near a named place", "Find coffee shops near Union Square",
				`[{"id":"S1","action":"Geocode","args":{"address":"Union Square"}},{"id":"S2","action":"Places","args":{"query":"coffee shops","near":"Union Square"}}]`),
			Entry("places near me", "Any pizza places near me?",
				`[{"id":"S1","action":"Geolocate","args":{}},{"id":"S2","action":"Places","args":{"query":"pizza places"}}]`),
			Entry("places nearby", "find a pharmacy nearby",
				`[{"id":"S1","action":"Geolocate","args":{}},{"id":"S2","action":"Places","args":{"query":"pharmacy"}}]`),
			Entry("a greeting", "hi", `[{"id":"S1","action":"Conversation","args":{}}]`),
			Entry("thanks", "Thanks a lot!", `[{"id":"S1","action":"Conversation","args":{}}]`),
			Entry(`"go to sleep" names no place`, "I want to go to sleep", `[{"id":"S1","action":"Conversation","args":{}}]`),
		)

		It("answers in the prompt's JSON shape", func() {
			resp := chat(c, kuraPlannerRequest("What's the weather in Paris?", kuraWorld("", nil)))
			Expect(resp.Message.Content).To(MatchJSON(`{"steps":[
				{"id":"S1","action":"Geocode","args":{"address":"Paris"},"reasoning":"the query needs a Geocode step"},
				{"id":"S2","action":"Weather","args":{"location":"Paris"},"reasoning":"the query needs a Weather step"}],
				"status":"planning","confidence":0.8}`))
		})

		It("resolves times in the user's own time zone", func() {
			ws := kuraWorld("", nil)
			ws["user"].(map[string]any)["timezone"] = "Europe/Paris"
			resp := chat(c, kuraPlannerRequest("How do I get from Gare du Nord to Orly at 8am?", ws))
			Expect(resp.Message.Content).To(ContainSubstring(`"departureTime":"2025-11-07T08:00:00+01:00"`))
		})

		DescribeTable("answers a query with no Latin letter in prose, not JSON",
			func(query string) {
				resp := chat(c, kuraPlannerRequest(query, kuraWorld(query, nil)))
				Expect(resp.Message.Content).To(Equal("I'm not sure what you need."))
				Expect(json.Valid([]byte(resp.Message.Content))).To(BeFalse())
			},
			Entry("emoji", "🤔🤔❓"),
			Entry("punctuation", "???!!!"),
			Entry("digits and emoji", "123 456 😀"),
			Entry("nothing", ""),
		)
	})

	Describe("the executor", func() {
		DescribeTable("calls the one tool of the step, with coordinates from the world state",
			func(step string, context map[string]any, tool, arguments string) {
				var s map[string]any
				Expect(json.Unmarshal([]byte(step), &s)).To(Succeed())
				ws := kuraWorld("", kuraGeocoded())
				maps.Copy(ws["context"].(map[string]any), context)
				m := chat(c, kuraExecutorRequest(s, ws)).Message
				Expect(m.Content).To(BeEmpty())
				Expect(m.ToolCalls).To(HaveLen(1))
				Expect(m.ToolCalls[0].ID).To(HavePrefix("call_"))
				Expect(m.ToolCalls[0].Name).To(Equal(tool))
				Expect(m.ToolCalls[0].Arguments).To(MatchJSON(arguments))
			},
			Entry("Geocode", `{"id":"S1","action":"Geocode","args":{"address":"Paris"}}`, nil,
				"geocode", `{"address":"Paris"}`),
			Entry("Geolocate", `{"id":"S1","action":"Geolocate","args":{}}`, nil,
				"geolocate", `{}`),
			Entry("ReverseGeocode, from context.location", `{"id":"S2","action":"ReverseGeocode","args":{}}`, nil,
				"reverse_geocode", `{"lat":40.7484405,"lng":-73.9856644}`),
			Entry("Weather, from context.places", `{"id":"S2","action":"Weather","args":{"location":"Paris"}}`, nil,
				"weather", `{"lat":48.8575475,"lng":2.3513765,"units":"imperial"}`),
			Entry("Weather, a place key in other case", `{"id":"S2","action":"Weather","args":{"location":"paris"}}`, nil,
				"weather", `{"lat":48.8575475,"lng":2.3513765,"units":"imperial"}`),
			Entry("Weather, metric units", `{"id":"S2","action":"Weather","args":{"location":"Tokyo"}}`, map[string]any{"units": "metric"},
				"weather", `{"lat":35.6764225,"lng":139.650027,"units":"metric"}`),
			Entry("Weather, current", `{"id":"S2","action":"Weather","args":{"location":"current"}}`, nil,
				"weather", `{"lat":40.7484405,"lng":-73.9856644,"units":"imperial"}`),
			Entry("Weather, a place never geocoded: no coordinates", `{"id":"S2","action":"Weather","args":{"location":"Atlantis"}}`, nil,
				"weather", `{"units":"imperial"}`),
			Entry("Transit with a departure time", `{"id":"S3","action":"Transit","args":{"origin":"Penn Station","destination":"Times Square","departureTime":"2025-11-07T08:00:00-05:00"}}`, nil,
				"transit_directions", `{"origin_lat":40.7505045,"origin_lng":-73.9934387,"destination_lat":40.7579747,"destination_lng":-73.9855426,"departure_time":"2025-11-07T08:00:00-05:00"}`),
			Entry("Transit from the current location", `{"id":"S3","action":"Transit","args":{"origin":"current","destination":"Times Square"}}`, nil,
				"transit_directions", `{"origin_lat":40.7484405,"origin_lng":-73.9856644,"destination_lat":40.7579747,"destination_lng":-73.9855426}`),
			Entry("Places near a place", `{"id":"S2","action":"Places","args":{"query":"coffee shops","near":"Union Square"}}`, nil,
				"places_search", `{"query":"coffee shops","lat":40.7358633,"lng":-73.9910835}`),
			Entry("Places near the user", `{"id":"S2","action":"Places","args":{"query":"pharmacy"}}`, nil,
				"places_search", `{"query":"pharmacy","lat":40.7484405,"lng":-73.9856644}`),
		)

		DescribeTable("turns the tool's result into a deltaState and a snippet",
			func(step, tool, arguments, result, reply string) {
				var s map[string]any
				Expect(json.Unmarshal([]byte(step), &s)).To(Succeed())
				m := chat(c, kuraExecutorRequest(s, kuraWorld("", kuraGeocoded()),
					modelCalls("call_1", tool, arguments), toolSays("call_1", tool, result))).Message
				Expect(m.ToolCalls).To(BeEmpty())
				Expect(m.Content).To(MatchJSON(reply))
			},
			Entry("Geocode: the first result", `{"id":"S1","action":"Geocode","args":{"address":"Paris"}}`,
				"geocode", `{"address":"Paris"}`, kuraGeocodeResult("Paris, France"),
				`{"deltaState":{"context":{"places":{"Paris":{"name":"Paris","address":"Paris, France","lat":48.8575475,"lng":2.3513765}}}},
				  "snippet":"Found Paris, France."}`),
			Entry("Geocode: ZERO_RESULTS is an error", `{"id":"S1","action":"Geocode","args":{"address":"123 Nowhere Lane, Atlantis"}}`,
				"geocode", `{"address":"123 Nowhere Lane, Atlantis"}`, kuraGeocodeResult(),
				`{"deltaState":{"errors":[{"step":"S1","tool":"geocode","message":"no place found for '123 Nowhere Lane, Atlantis'"}]},
				  "snippet":"The Geocode step failed: no place found for '123 Nowhere Lane, Atlantis'."}`),
			Entry("Geocode: several results are candidates and an error", `{"id":"S1","action":"Geocode","args":{"address":"Springfield"}}`,
				"geocode", `{"address":"Springfield"}`, kuraGeocodeResult("Springfield, IL, USA", "Springfield, MO, USA", "Springfield, MA, USA"),
				`{"deltaState":{"context":{"candidates":{"Springfield":["Springfield, IL, USA","Springfield, MO, USA","Springfield, MA, USA"]}},
				  "errors":[{"step":"S1","tool":"geocode","message":"'Springfield' is ambiguous: 3 places match"}]},
				  "snippet":"'Springfield' matches 3 places."}`),
			Entry("Geolocate", `{"id":"S1","action":"Geolocate","args":{}}`,
				"geolocate", `{}`, kuraGeolocateResult,
				`{"deltaState":{"context":{"location":{"lat":40.7484405,"lng":-73.9856644,"accuracy":35}}},"snippet":"Located you to within 35 meters."}`),
			Entry("ReverseGeocode", `{"id":"S2","action":"ReverseGeocode","args":{}}`,
				"reverse_geocode", `{"lat":40.7484405,"lng":-73.9856644}`, kuraGeocodeResult("350 5th Ave, New York, NY 10118, USA"),
				`{"deltaState":{"context":{"reverse_geocode_result":{"formatted_address":"350 5th Ave, New York, NY 10118, USA"}}},
				  "snippet":"You are at 350 5th Ave, New York, NY 10118, USA."}`),
			Entry("ReverseGeocode: no address", `{"id":"S2","action":"ReverseGeocode","args":{}}`,
				"reverse_geocode", `{"lat":0,"lng":-160}`, kuraGeocodeResult(),
				`{"deltaState":{"errors":[{"step":"S2","tool":"reverse_geocode","message":"no address found for your location"}]},
				  "snippet":"The ReverseGeocode step failed: no address found for your location."}`),
			Entry("Weather, imperial (its prompt states no format: the raw value)", `{"id":"S2","action":"Weather","args":{"location":"Paris"}}`,
				"weather", `{"lat":48.8575475,"lng":2.3513765,"units":"imperial"}`, kuraWeatherResult(54.3, 51.8, "FAHRENHEIT", "Partly cloudy"),
				`{"deltaState":{"context":{
					"weather":{"Paris":{"location":"Paris","temp":54.3,"feels_like":51.8,"summary":"Partly cloudy","humidity":71,"wind_speed":9,"units":"imperial"}},
					"lastWeather":{"location":"Paris","temp":54.3,"feels_like":51.8,"summary":"Partly cloudy","humidity":71,"wind_speed":9,"units":"imperial"}}},
				  "snippet":"It is 54.3 imperial and partly cloudy in Paris."}`),
			Entry("Weather, metric (its prompt states no format: the raw value)", `{"id":"S2","action":"Weather","args":{"location":"Tokyo"}}`,
				"weather", `{"lat":35.6764225,"lng":139.650027,"units":"metric"}`, kuraWeatherResult(18.2, 18.2, "CELSIUS", "Clear"),
				`{"deltaState":{"context":{
					"weather":{"Tokyo":{"location":"Tokyo","temp":18.2,"feels_like":18.2,"summary":"Clear","humidity":71,"wind_speed":9,"units":"metric"}},
					"lastWeather":{"location":"Tokyo","temp":18.2,"feels_like":18.2,"summary":"Clear","humidity":71,"wind_speed":9,"units":"metric"}}},
				  "snippet":"It is 18.2 metric and clear in Tokyo."}`),
			Entry("Weather: the tool's error for missing coordinates", `{"id":"S2","action":"Weather","args":{"location":"Atlantis"}}`,
				"weather", `{"units":"imperial"}`, `{"error": "lat and lng are required"}`,
				`{"deltaState":{"errors":[{"step":"S2","tool":"weather","message":"lat and lng are required"}]},
				  "snippet":"The Weather step failed: lat and lng are required."}`),
			Entry("Transit: the first ride of the first route", `{"id":"S3","action":"Transit","args":{"origin":"Penn Station","destination":"Times Square"}}`,
				"transit_directions", `{"origin_lat":40.7505045,"origin_lng":-73.9934387,"destination_lat":40.7579747,"destination_lng":-73.9855426}`,
				kuraRoutesResult("840s", kuraRide("A", "8 Avenue Express", "34 St-Penn Station", "2025-11-07T13:05:00Z", "Times Sq-42 St", "2025-11-07T13:09:00Z", 1)),
				`{"deltaState":{"context":{"transit":{"duration":840,"departure":"2025-11-07T13:05:00Z","arrival":"2025-11-07T13:09:00Z",
					"line":"A","from":"34 St-Penn Station","to":"Times Sq-42 St","stops":1}}},
				  "snippet":"The A goes from 34 St-Penn Station to Times Sq-42 St in about 14 minutes."}`),
			Entry("Transit: a transfer; a line with a long name only", `{"id":"S3","action":"Transit","args":{"origin":"Penn Station","destination":"Union Square"}}`,
				"transit_directions", `{"origin_lat":40.7505045,"origin_lng":-73.9934387,"destination_lat":40.7358633,"destination_lng":-73.9910835}`,
				kuraRoutesResult("1845s",
					kuraRide("", "Broadway - 7 Avenue Local", "34 St-Penn Station", "2025-11-07T13:05:00Z", "14 St", "2025-11-07T13:10:00Z", 2),
					kuraRide("L", "14 St-Canarsie Local", "14 St", "2025-11-07T13:16:00Z", "Union Sq", "2025-11-07T13:20:00Z", 2)),
				`{"deltaState":{"context":{"transit":{"duration":1845,"departure":"2025-11-07T13:05:00Z","arrival":"2025-11-07T13:20:00Z",
					"line":"Broadway - 7 Avenue Local","from":"34 St-Penn Station","to":"Union Sq","stops":2}}},
				  "snippet":"The Broadway - 7 Avenue Local goes from 34 St-Penn Station to Union Sq in about 31 minutes."}`),
			Entry("Transit: no route", `{"id":"S3","action":"Transit","args":{"origin":"Paris","destination":"Tokyo"}}`,
				"transit_directions", `{"origin_lat":48.8575475,"origin_lng":2.3513765,"destination_lat":35.6764225,"destination_lng":139.650027}`, `{}`,
				`{"deltaState":{"errors":[{"step":"S3","tool":"transit_directions","message":"no transit route found"}]},
				  "snippet":"The Transit step failed: no transit route found."}`),
			Entry("Places: the first five", `{"id":"S2","action":"Places","args":{"query":"coffee","near":"Union Square"}}`,
				"places_search", `{"query":"coffee","lat":40.7358633,"lng":-73.9910835}`, kuraPlacesResult(6),
				`{"deltaState":{"context":{"places_found":[
					{"name":"Blue Bottle Coffee","address":"10 E 14th St, New York, NY 10003, USA","rating":4.6},
					{"name":"Joe Coffee","address":"11 E 14th St, New York, NY 10003, USA","rating":4.4},
					{"name":"Think Coffee","address":"12 E 14th St, New York, NY 10003, USA","rating":4.3},
					{"name":"Irving Farm","address":"13 E 14th St, New York, NY 10003, USA","rating":4.5},
					{"name":"Stumptown","address":"14 E 14th St, New York, NY 10003, USA","rating":4.2}]}},
				  "snippet":"Found 5 places for coffee."}`),
			Entry("Places: Google's error object", `{"id":"S2","action":"Places","args":{"query":"coffee"}}`,
				"places_search", `{"query":"coffee","lat":40.7484405,"lng":-73.9856644}`,
				`{"error": {"code": 403, "message": "API key not valid. Please pass a valid API key.", "status": "PERMISSION_DENIED"}}`,
				`{"deltaState":{"errors":[{"step":"S2","tool":"places_search","message":"API key not valid. Please pass a valid API key."}]},
				  "snippet":"The Places step failed: API key not valid. Please pass a valid API key."}`),
		)

		It("calls no tool for a Conversation step", func() {
			m := chat(c, kuraExecutorRequest(map[string]any{"id": "S1", "action": "Conversation", "args": map[string]any{}}, kuraWorld("hi", nil))).Message
			Expect(m.ToolCalls).To(BeEmpty())
			Expect(m.Content).To(MatchJSON(`{"deltaState":{},"snippet":"Nothing to look up for a conversation."}`))
		})

		It("reports an action it has no tool for", func() {
			m := chat(c, kuraExecutorRequest(map[string]any{"id": "S1", "action": "Teleport", "args": map[string]any{}}, kuraWorld("", nil))).Message
			Expect(m.ToolCalls).To(BeEmpty())
			Expect(m.Content).To(MatchJSON(`{"deltaState":{"errors":[{"step":"S1","tool":"","message":"unknown action \"Teleport\""}]},
				"snippet":"The Teleport step failed: unknown action \"Teleport\"."}`))
		})
	})

	Describe("the synthesizer", func() {
		DescribeTable("writes the answer from the world state, never with coordinates",
			func(query string, context map[string]any, errs []any, answer string) {
				ctx := kuraGeocoded()
				maps.Copy(ctx, context)
				ws := kuraWorld(query, ctx)
				if errs != nil {
					ws["errors"] = errs
				}
				got := chat(c, kuraSynthesizerRequest(query, ws, []string{"A snippet."})).Message.Content
				Expect(got).To(Equal(answer))
				Expect(got).NotTo(MatchRegexp(kuraDecimals.String()))
				Expect(got).NotTo(ContainSubstring("40.748"))
			},
			Entry("feels like differs", "What's the weather in Paris?",
				map[string]any{"weather": map[string]any{"Paris": kuraWeather("Paris", 54.3, 51.8, "Partly cloudy", "imperial")},
					"lastWeather": kuraWeather("Paris", 54.3, 51.8, "Partly cloudy", "imperial")}, nil,
				"In Paris it's 54.3°F and partly cloudy, feels like 51.8°F."),
			Entry("feels like the same to one decimal", "What's the weather in Lima?",
				map[string]any{"weather": map[string]any{"Lima": kuraWeather("Lima", 66.0, 66.04, "Sunny", "imperial")}}, nil,
				"In Lima it's 66.0°F and sunny."),
			Entry("metric", "What's the weather in Tokyo?",
				map[string]any{"weather": map[string]any{"Tokyo": kuraWeather("Tokyo", 18.2, 18.2, "Clear", "metric")}}, nil,
				"In Tokyo it's 18.2°C and clear."),
			Entry("only lastWeather", "What's the weather in Tokyo?",
				map[string]any{"lastWeather": kuraWeather("Tokyo", 18.24, 16.96, "Clear", "metric")}, nil,
				"In Tokyo it's 18.2°C and clear, feels like 17.0°C."),
			Entry("several cities, in the order of the query", "weather in Tokyo, Lima and Paris",
				map[string]any{"weather": map[string]any{
					"Paris": kuraWeather("Paris", 54.3, 51.8, "Partly cloudy", "imperial"),
					"Lima":  kuraWeather("Lima", 66.0, 66.0, "Cloudy", "imperial"),
					"Tokyo": kuraWeather("Tokyo", 61.2, 61.2, "Clear", "imperial")}}, nil,
				"In Tokyo it's 61.2°F and clear. In Lima it's 66.0°F and cloudy. In Paris it's 54.3°F and partly cloudy, feels like 51.8°F."),
			Entry("the current location", "What's the weather here?",
				map[string]any{"weather": map[string]any{"current": kuraWeather("current", 48.2, 44.9, "Light rain", "imperial")}}, nil,
				"Where you are it's 48.2°F and light rain, feels like 44.9°F."),
			Entry("no place found, and the weather it left without coordinates", "What's the weather at 123 Nowhere Lane, Atlantis?", nil,
				[]any{map[string]any{"step": "S1", "tool": "geocode", "message": "no place found for '123 Nowhere Lane, Atlantis'"},
					map[string]any{"step": "S2", "tool": "weather", "message": "lat and lng are required"}},
				"I couldn't find 123 Nowhere Lane, Atlantis. I couldn't complete the weather lookup: lat and lng are required."),
			Entry("an ambiguous address", "What's the weather in Springfield?",
				map[string]any{"candidates": map[string]any{"Springfield": []any{"Springfield, IL, USA", "Springfield, MO, USA", "Springfield, MA, USA"}}},
				[]any{map[string]any{"step": "S1", "tool": "geocode", "message": "'Springfield' is ambiguous: 3 places match"}},
				"Which Springfield do you mean: Springfield, IL, USA, Springfield, MO, USA or Springfield, MA, USA?"),
			Entry("what succeeded, then what failed", "weather in Paris and Tokyo",
				map[string]any{"weather": map[string]any{"Paris": kuraWeather("Paris", 54.3, 51.8, "Partly cloudy", "imperial")}},
				[]any{map[string]any{"step": "S2", "tool": "weather", "message": "Weather API returned HTTP 503."}},
				"In Paris it's 54.3°F and partly cloudy, feels like 51.8°F. I couldn't complete the weather lookup: Weather API returned HTTP 503."),
			Entry("where am I", "where am i",
				map[string]any{"reverse_geocode_result": map[string]any{"formatted_address": "350 5th Ave, New York, NY 10118, USA"}}, nil,
				"You're at 350 5th Ave, New York, NY 10118, USA."),
			Entry("an address that is only coordinates", "where am i",
				map[string]any{"reverse_geocode_result": map[string]any{"formatted_address": "40.7484405,-73.9856644"}}, nil,
				"I couldn't find a street address for where you are."),
			Entry("transit, departure in New York standard time", "How do I get from Penn Station to Times Square tomorrow at 8am?",
				map[string]any{"transit": map[string]any{"duration": 840, "departure": "2025-11-07T13:05:00Z", "arrival": "2025-11-07T13:09:00Z",
					"line": "A", "from": "34 St-Penn Station", "to": "Times Sq-42 St", "stops": 1}}, nil,
				"Take the A from 34 St-Penn Station at 8:05 AM and arrive at Times Sq-42 St about 14 minutes later."),
			Entry("transit, departure in New York daylight time", "How do I get from Penn Station to Union Square at 5:40pm?",
				map[string]any{"transit": map[string]any{"duration": 1845, "departure": "2025-07-01T21:40:00Z", "arrival": "2025-07-01T22:00:00Z",
					"line": "L", "from": "8 Av", "to": "Union Sq", "stops": 3}}, nil,
				"Take the L from 8 Av at 5:40 PM and arrive at Union Sq about 31 minutes later."),
			Entry("places, the top three", "Find coffee near Union Square",
				map[string]any{"places_found": []any{
					map[string]any{"name": "Blue Bottle Coffee", "address": "10 E 14th St", "rating": 4.6},
					map[string]any{"name": "Joe Coffee", "address": "11 E 14th St", "rating": 4.4},
					map[string]any{"name": "Think Coffee", "address": "12 E 14th St", "rating": 4.3},
					map[string]any{"name": "Irving Farm", "address": "13 E 14th St", "rating": 4.5}}}, nil,
				"Nearby: Blue Bottle Coffee (4.6★), Joe Coffee (4.4★), Think Coffee (4.3★)."),
			Entry("no places", "Find a yeti near Union Square",
				map[string]any{"places_found": []any{}}, nil,
				"I couldn't find any matching places nearby."),
			Entry("a greeting", "hi", nil, nil,
				"Hi there, happy to help with transit, places or weather!"),
		)
	})

	Describe("the synthesizer without one of its prompt's instructions", func() {
		// Each entry deletes the lines of the synthesizer's prompt that hold
		// one instruction; the stand-in then does the form's default.
		DescribeTable("does what a weak model does without it",
			func(drop, query string, context map[string]any, with, without string) {
				ctx := kuraGeocoded()
				maps.Copy(ctx, context)
				req := kuraSynthesizerRequest(query, kuraWorld(query, ctx), []string{"A snippet."})
				Expect(chat(c, req).Message.Content).To(Equal(with), "with the prompt as given")
				Expect(chat(c, mutated(req, dropLines(drop))).Message.Content).To(Equal(without), "without %q", drop)
			},
			Entry("the coordinates rule: coordinates shown", "raw coordinates", "where am i",
				map[string]any{"reverse_geocode_result": map[string]any{"formatted_address": "40.7484405,-73.9856644"}},
				"I couldn't find a street address for where you are.",
				"You're at 40.7484405,-73.9856644."),
			Entry("the greeting rule: a plain greeting", "For a greeting", "hi", nil,
				"Hi there, happy to help with transit, places or weather!",
				"Hello! How can I help you today?"),
			Entry("the length rule: a closing offer", "sentences", "What's the weather in Paris?",
				map[string]any{"weather": map[string]any{"Paris": kuraWeather("Paris", 54.3, 51.8, "Partly cloudy", "imperial")}},
				"In Paris it's 54.3°F and partly cloudy, feels like 51.8°F.",
				"In Paris it's 54.3°F and partly cloudy, feels like 51.8°F. Let me know if there is anything else I can help you with."),
			Entry("the format rule: the raw value and the data's unit word", "Format temperatures", "What's the weather in Paris?",
				map[string]any{"weather": map[string]any{"Paris": kuraWeather("Paris", 54.3, 51.8, "Partly cloudy", "imperial")}},
				"In Paris it's 54.3°F and partly cloudy, feels like 51.8°F.",
				"In Paris it's 54.3 imperial and partly cloudy, feels like 51.8 imperial."),
			Entry("the feels-like rule: said though equal", "feels like", "How hot is it in Tokyo?",
				map[string]any{"weather": map[string]any{"Tokyo": kuraWeather("Tokyo", 68.2, 68.2, "Clear", "imperial")}},
				"In Tokyo it's 68.2°F and clear.",
				"In Tokyo it's 68.2°F and clear, feels like 68.2°F."),
		)
	})

	Describe("a whole Vaya turn", func() {
		DescribeTable("plans, executes and answers over either wire format",
			func(gemini bool, query, answer string, tools ...string) {
				model := c
				if gemini {
					tr := &http.Transport{}
					DeferCleanup(tr.CloseIdleConnections)
					model = geminiClient(startStandin(standin.Options{}), &http.Client{Transport: tr})
				}
				got, calls := kuraTurn(model, query)
				Expect(got).To(Equal(answer))
				var called []string
				for _, tc := range calls {
					called = append(called, tc.Name+" "+string(tc.Arguments))
				}
				Expect(called).To(HaveLen(len(tools)))
				for i, t := range tools {
					name, arguments, _ := strings.Cut(t, " ")
					Expect(calls[i].Name).To(Equal(name))
					Expect(calls[i].Arguments).To(MatchJSON(arguments))
				}
			},
			Entry("weather in two cities (OpenAI)", false, "What's the weather in Paris and Tokyo?",
				"In Paris it's 54.3°F and partly cloudy, feels like 51.8°F. In Tokyo it's 61.2°F and clear.",
				`geocode {"address":"Paris"}`, `geocode {"address":"Tokyo"}`,
				`weather {"lat":48.8575475,"lng":2.3513765,"units":"imperial"}`, `weather {"lat":35.6764225,"lng":139.650027,"units":"imperial"}`),
			Entry("a place that does not exist (Gemini)", true, "What's the weather in Paris and Atlantis?",
				"In Paris it's 54.3°F and partly cloudy, feels like 51.8°F. I couldn't find Atlantis. I couldn't complete the weather lookup: lat and lng are required.",
				`geocode {"address":"Paris"}`, `geocode {"address":"Atlantis"}`,
				`weather {"lat":48.8575475,"lng":2.3513765,"units":"imperial"}`, `weather {"units":"imperial"}`),
			Entry("transit tomorrow morning (Gemini)", true, "How do I get from Penn Station to Times Square tomorrow at 8am?",
				"Take the A from 34 St-Penn Station at 8:05 AM and arrive at Times Sq-42 St about 14 minutes later.",
				`geocode {"address":"Penn Station"}`, `geocode {"address":"Times Square"}`,
				`transit_directions {"origin_lat":40.7505045,"origin_lng":-73.9934387,"destination_lat":40.7579747,"destination_lng":-73.9855426,"departure_time":"2025-11-07T08:00:00-05:00"}`),
			Entry("where am I (OpenAI)", false, "Where am I right now?",
				"You're at 350 5th Ave, New York, NY 10118, USA.",
				`geolocate {}`, `reverse_geocode {"lat":40.7484405,"lng":-73.9856644}`),
			Entry("a greeting (Gemini)", true, "hi",
				"Hi there, happy to help with transit, places or weather!"),
		)
	})
})
