package kura_test

import (
	"encoding/json"
	"net/url"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/agenttest"
	"github.com/agentreplay/testbed/agents/kura"
	"github.com/agentreplay/testbed/agents/llm"
)

var _ = Describe("the Maps key", func() {
	It("travels in X-Goog-Api-Key on every Maps call, never in a URL, a model request or a log", func() {
		w := newWorld()
		a := w.agent(nil)
		for _, q := range []string{
			"What's the weather in Paris?",
			"Where am I right now?",
			"How do I get from Times Square, New York to Brooklyn Museum, New York by subway tomorrow at 8am?",
			"Find coffee near Times Square, New York",
		} {
			r := ask(a, q)
			Expect(r.Error).To(BeEmpty(), q)
		}
		Expect(w.tracer.ToolNames()).To(ConsistOf("geocode", "weather", "geolocate", "reverse_geocode",
			"geocode", "geocode", "transit_directions", "geocode", "places_search"))
		hosts := map[string]bool{}
		for _, s := range upstreamRequests(w.transport) {
			hosts[s.Host] = true
			Expect(s.Header.Get("X-Goog-Api-Key")).To(Equal(mapsKey), s.URL)
			Expect(s.URL).NotTo(ContainSubstring(mapsKey))
			Expect(s.Query).NotTo(HaveKey("key"), s.URL)
		}
		Expect(hosts).To(HaveLen(5))
		for _, s := range w.transport.Requests(geminiHost) {
			Expect(s.URL).NotTo(ContainSubstring("test-key"), "the model key travels in a header too")
			Expect(string(s.Body)).NotTo(ContainSubstring(mapsKey))
		}
		for _, r := range w.logs.all() {
			Expect(asJSON(r.Attrs)).NotTo(ContainSubstring(mapsKey))
		}
	})

	DescribeTable("is required: New names the variable",
		func(secrets map[string]string) {
			w := newWorld()
			w.secrets = secrets
			_, err := kura.New(w.config(nil))
			Expect(err).To(MatchError(ContainSubstring("GOOGLE_API_KEY is required")))
		},
		Entry("no secrets", nil),
		Entry("another key only", map[string]string{"GEMINI_API_KEY": "x"}),
		Entry("an empty key", map[string]string{kura.KeyMaps: ""}),
	)

	It("is the one key Info names", func() {
		Expect(kura.Info().Keys).To(Equal([]string{kura.KeyMaps}))
	})
})

var _ = Describe("tools", func() {
	var w *world
	BeforeEach(func() { w = newWorld() })

	// oneCall runs a one-step plan whose executor calls tool with args and
	// returns the tool result the executor was shown.
	oneCall := func(action, tool, args string) string {
		GinkgoHelper()
		w.script("planner", text(`{"steps": [{"id": "S1", "action": "`+action+`"}]}`))
		w.script("executor", executor(map[string]stepScript{
			"S1": {calls: []llm.ToolCall{call(tool, args)}, output: `{"deltaState": {}, "snippet": "done"}`},
		}))
		r := ask(w.agent(nil), "Please look something up for me now.")
		Expect(r.Error).To(BeEmpty())
		exec := w.model.ofRole("executor")
		Expect(exec).To(HaveLen(2))
		m, ok := toolResult(exec[1].Request)
		Expect(ok).To(BeTrue())
		Expect(m.Name).To(Equal(tool))
		if reports := w.tracer.Reports(""); len(reports) > 0 {
			Expect(reports[len(reports)-1].ID).To(Equal(m.ToolCallID), "the report names the model's call it ran")
		}
		return m.Content
	}

	DescribeTable("refuse to guess a missing argument: the model sees the error and nothing is sent",
		func(action, tool, args, message string) {
			result := oneCall(action, tool, args)
			Expect(result).To(MatchJSON(asJSON(map[string]string{"error": message})))
			Expect(upstreamRequests(w.transport)).To(BeEmpty())
			reports := w.tracer.Reports("")
			Expect(reports).To(HaveLen(1))
			Expect(reports[0].Err).To(MatchError(message))
			Expect(reports[0].Context).To(Equal(result))
		},
		Entry("weather without lat and lng", "Weather", "weather", `{"units": "imperial"}`, "missing required argument lat, lng"),
		Entry("weather without lng", "Weather", "weather", `{"lat": 48.8566}`, "missing required argument lng"),
		Entry("weather with a lat that is not a number", "Weather", "weather", `{"lat": "48.8566", "lng": 2.3522}`, "missing required argument lat"),
		Entry("geocode without an address", "Geocode", "geocode", `{"address": "  "}`, "missing required argument address"),
		Entry("reverse_geocode without coordinates", "ReverseGeocode", "reverse_geocode", `{}`, "missing required argument lat, lng"),
		Entry("transit_directions without a destination", "Transit", "transit_directions", `{"origin_lat": 40.758, "origin_lng": -73.9855}`,
			"missing required argument destination_lat, destination_lng"),
		Entry("places_search without a query", "Places", "places_search", `{"lat": 40.758, "lng": -73.9855}`, "missing required argument query"),
		Entry("an unknown tool", "Weather", "forecast", `{}`, `unknown tool "forecast"`),
	)

	DescribeTable("weather asks for the units the call names",
		func(args, units string) {
			oneCall("Weather", "weather", args)
			reqs := w.transport.Requests(weatherHost)
			Expect(reqs).To(HaveLen(1))
			Expect(reqs[0].Path).To(Equal("/v1/currentConditions:lookup"))
			Expect(reqs[0].Query).To(Equal(url.Values{"location.latitude": {"48.8566"}, "location.longitude": {"2.3522"}, "unitsSystem": {units}}))
		},
		Entry("imperial", `{"lat": 48.8566, "lng": 2.3522, "units": "imperial"}`, "IMPERIAL"),
		Entry("metric", `{"lat": 48.8566, "lng": 2.3522, "units": "metric"}`, "METRIC"),
		Entry("METRIC in capitals", `{"lat": 48.8566, "lng": 2.3522, "units": "METRIC"}`, "METRIC"),
		Entry("no units", `{"lat": 48.8566, "lng": 2.3522}`, "IMPERIAL"),
	)

	It("gives the model an upstream error as {error} with the API and status", func() {
		result := oneCall("Weather", "weather", `{"lat": 64.1466, "lng": -21.9426, "units": "imperial"}`)
		Expect(result).To(MatchJSON(`{"error": "weather API returned HTTP 500"}`))
		reports := w.tracer.Reports("")
		Expect(reports).To(HaveLen(1))
		Expect(string(reports[0].Raw)).To(ContainSubstring("Internal error encountered."), "the trace keeps the upstream body")
	})

	It("gives the model the raw API answer of a 200", func() {
		result := oneCall("Geocode", "geocode", `{"address": "Tokyo"}`)
		Expect(at(fromJSON(result), "results")).To(HaveLen(1))
		Expect(w.transport.Requests(mapsHost)[0].Query).To(Equal(url.Values{"address": {"Tokyo"}}))
		Expect(w.tracer.Reports("")[0].Raw).To(MatchJSON(result))
	})

	It("calls the Upstreams the config names instead of Google's hosts", func() {
		stub := agenttest.HostOf(w.stubURL)
		w.transport.Route(stub, stub)
		w.upstreams = map[string]string{"maps": w.stubURL + "/"}
		oneCall("Geocode", "geocode", `{"address": "Tokyo"}`)
		Expect(w.transport.Requests(mapsHost)).To(BeEmpty())
		reqs := w.transport.Requests(stub)
		Expect(reqs).To(HaveLen(1))
		Expect(reqs[0].URL).To(Equal(w.stubURL + "/maps/api/geocode/json?address=Tokyo"))
		Expect(w.tracer.Reports("")[0].Err).NotTo(HaveOccurred())
	})

	It("posts a TRANSIT route request with the geocoded coordinates and the departure time (stand-in end to end)", func() {
		r := ask(w.agent(nil), "How do I get from Times Square, New York to Brooklyn Museum, New York by subway tomorrow at 8am?")
		Expect(r.Error).To(BeEmpty())
		reqs := w.transport.Requests(routesHost)
		Expect(reqs).To(HaveLen(1))
		Expect(reqs[0].Method).To(Equal("POST"))
		Expect(reqs[0].Path).To(Equal("/directions/v2:computeRoutes"))
		Expect(reqs[0].Header.Get("Content-Type")).To(Equal("application/json"))
		Expect(reqs[0].Header.Get("X-Goog-FieldMask")).To(ContainSubstring("routes.legs.steps"))
		Expect(reqs[0].Body).To(MatchJSON(`{
			"origin": {"location": {"latLng": {"latitude": 40.758, "longitude": -73.9855}}},
			"destination": {"location": {"latLng": {"latitude": 40.6712, "longitude": -73.9636}}},
			"travelMode": "TRANSIT",
			"departureTime": "2025-09-20T08:00:00-04:00"
		}`))
		Expect(r.Text).To(ContainSubstring("Take the 2 from Times Sq-42 St at 8:04 AM"))
		Expect(r.Text).To(ContainSubstring("Eastern Pkwy-Brooklyn Museum"))
		Expect(r.Text).NotTo(MatchRegexp(coordinate))
	})

	It("sends the geolocation, reverse-geocoding and places requests as the APIs expect (stand-in end to end)", func() {
		a := w.agent(nil)
		Expect(ask(a, "Where am I right now?").Text).To(Equal("You're at Times Square, Manhattan, NY 10036, USA."))
		Expect(ask(a, "Find coffee near Times Square, New York").Text).To(ContainSubstring("Bean & Broadway Coffee (4.6★)"))

		geo := w.transport.Requests(geolocationHost)
		Expect(geo).To(HaveLen(1))
		Expect(geo[0].Body).To(MatchJSON(`{"considerIp": true}`))
		var reverse []url.Values
		for _, s := range w.transport.Requests(mapsHost) {
			if s.Query.Has("latlng") {
				reverse = append(reverse, s.Query)
			}
		}
		Expect(reverse).To(Equal([]url.Values{{"latlng": {"40.758,-73.9855"}}}))
		places := w.transport.Requests(placesHost)
		Expect(places).To(HaveLen(1))
		Expect(places[0].Body).To(MatchJSON(`{"textQuery": "coffee",
			"locationBias": {"circle": {"center": {"latitude": 40.758, "longitude": -73.9855}, "radius": 1000}}}`))
		Expect(places[0].Header.Get("X-Goog-FieldMask")).To(ContainSubstring("places.displayName"))
	})

	It("fails the step when the executor calls two tools at once, runs neither, and keeps the cause", func() {
		w.script("planner", text(twoStepPlan))
		w.script("executor", executor(map[string]stepScript{
			"S1": {calls: []llm.ToolCall{call("geocode", `{"address": "Paris"}`), call("weather", `{"lat": 48.8566, "lng": 2.3522}`)}},
		}))
		r := ask(w.agent(nil), "What's the weather in Paris?")
		const cause = "step S1 (Geocode): executor called 2 tools for one step; it must call exactly one"
		Expect(r.Text).To(Equal("I couldn't complete that request. Please try again in a moment."))
		Expect(r.Error).To(Equal(cause))
		Expect(w.tracer.Noted("error")).To(Equal([]any{cause}))
		Expect(w.logs.withMessage("turn failed")[0].Attrs["error"]).To(Equal(cause))
		Expect(w.tracer.Reports("")).To(BeEmpty())
		Expect(upstreamRequests(w.transport)).To(BeEmpty())
		Expect(w.model.roles()).To(Equal([]string{"planner", "executor"}))
	})

	It("offers the executor the six tools with object schemas, and the planner and synthesizer none", func() {
		w.script("planner", text(twoStepPlan))
		w.script("executor", parisExecutor())
		ask(w.agent(nil), "What's the weather in Paris?")
		var names []string
		for _, t := range w.model.ofRole("executor")[0].Request.Tools {
			names = append(names, t.Name)
			var schema map[string]any
			Expect(json.Unmarshal(t.Parameters, &schema)).To(Succeed(), t.Name)
			Expect(schema["type"]).To(Equal("object"))
			Expect(strings.TrimSpace(t.Description)).NotTo(BeEmpty())
		}
		Expect(names).To(Equal([]string{"geocode", "reverse_geocode", "geolocate", "weather", "transit_directions", "places_search"}))
		Expect(w.model.ofRole("planner")[0].Request.Tools).To(BeEmpty())
		Expect(w.model.ofRole("planner")[0].Request.Output).To(Equal(llm.OutputJSON))
		Expect(w.model.ofRole("synthesizer")[0].Request.Tools).To(BeEmpty())
	})
})
