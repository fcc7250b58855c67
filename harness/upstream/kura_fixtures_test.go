package upstream_test

import (
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"
	_ "time/tzdata" // America/New_York without the host's zoneinfo

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/upstream"
)

// kuraCall sends a request to the stub the way the Kura agent does: with an
// X-Goog-Api-Key header and, for POST, a JSON body (which no route matches).
// It returns the response and its body.
func kuraCall(base, method, path string, query url.Values, body string) (*http.Response, []byte) {
	target := base + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	req, err := http.NewRequest(method, target, strings.NewReader(body))
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	req.Header.Set("X-Goog-Api-Key", "test-key")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return resp, b
}

// kuraWeatherQuery is the agent's current-conditions query for a point.
func kuraWeatherQuery(lat, lng float64, units string) url.Values {
	return url.Values{"location.latitude": {num(lat)}, "location.longitude": {num(lng)},
		"unitsSystem": {units}, "key": {"test-key"}}
}

// kuraObj and kuraList take a JSON object's member as an object or a list.
func kuraObj(m map[string]any, k string) map[string]any {
	v, ok := m[k].(map[string]any)
	ExpectWithOffset(1, ok).To(BeTrue(), "want %q to be an object, got %#v", k, m[k])
	return v
}

func kuraList(m map[string]any, k string) []any {
	v, ok := m[k].([]any)
	ExpectWithOffset(1, ok).To(BeTrue(), "want %q to be a list, got %#v", k, m[k])
	return v
}

// kuraPolyline decodes a Google encoded polyline into lat/lng pairs.
func kuraPolyline(s string) [][2]float64 {
	var pts [][2]float64
	var lat, lng int
	for i := 0; i < len(s); {
		var d [2]int
		for k := range d {
			shift, res := 0, 0
			for {
				Expect(i).To(BeNumerically("<", len(s)), "truncated polyline")
				b := int(s[i]) - 63
				i++
				res |= (b & 0x1f) << shift
				shift += 5
				if b < 0x20 {
					break
				}
			}
			if res&1 != 0 {
				d[k] = ^(res >> 1)
			} else {
				d[k] = res >> 1
			}
		}
		lat += d[0]
		lng += d[1]
		pts = append(pts, [2]float64{float64(lat) / 1e5, float64(lng) / 1e5})
	}
	return pts
}

// kuraMeters is the great-circle distance between two points.
func kuraMeters(lat1, lng1, lat2, lng2 float64) float64 {
	const r = 6371008.8
	p1, p2 := lat1*math.Pi/180, lat2*math.Pi/180
	dp, dl := p2-p1, (lng2-lng1)*math.Pi/180
	h := math.Sin(dp/2)*math.Sin(dp/2) + math.Cos(p1)*math.Cos(p2)*math.Sin(dl/2)*math.Sin(dl/2)
	return 2 * r * math.Asin(math.Sqrt(h))
}

// kuraSeconds parses a protobuf Duration as JSON writes it ("1845s").
func kuraSeconds(v any) float64 {
	s, ok := v.(string)
	ExpectWithOffset(1, ok).To(BeTrue(), "want a duration string, got %#v", v)
	d, err := time.ParseDuration(s)
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return d.Seconds()
}

// The fields of a current-conditions answer (the real response, minus nothing).
var kuraWeatherFields = []string{"currentTime", "timeZone", "isDaytime", "weatherCondition", "temperature",
	"feelsLikeTemperature", "dewPoint", "heatIndex", "windChill", "relativeHumidity", "uvIndex", "precipitation",
	"thunderstormProbability", "airPressure", "wind", "visibility", "cloudCover", "currentConditionsHistory"}

var _ = Describe("the Kura fixtures", Label("fixtures"), func() {
	const routesFile = "../../fixtures/kura/routes.yaml"
	var (
		rs  *upstream.Routes
		srv *upstream.Server
	)

	BeforeEach(func() {
		var err error
		rs, err = upstream.Load(routesFile)
		Expect(err).NotTo(HaveOccurred())
		srv, err = upstream.Start(rs)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(srv.Close)
	})

	geocode := func(address string) (*http.Response, map[string]any) {
		resp, body := kuraCall(srv.URL(), http.MethodGet, "/maps/api/geocode/json",
			url.Values{"address": {address}, "key": {"test-key"}}, "")
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "%s", body)
		return resp, decode(body)
	}

	It("answers every route with its status, modelled latency and a JSON body", func() {
		latency := map[string]string{
			"/maps/api/geocode/json":       "120ms",
			"/geolocation/v1/geolocate":    "90ms",
			"/v1/currentConditions:lookup": "180ms",
			"/directions/v2:computeRoutes": "450ms",
			"/v1/places:searchText":        "300ms",
		}
		Expect(rs.Routes).To(HaveLen(19))
		for _, r := range rs.Routes {
			By(r.Method + " " + r.Path + " " + r.File)
			q := url.Values{"key": {"test-key"}}
			for k, v := range r.Query {
				q.Set(k, v)
			}
			if r.Path == "/v1/currentConditions:lookup" && r.Query["unitsSystem"] == "" {
				q.Set("unitsSystem", "IMPERIAL")
			}
			body := ""
			if r.Method == http.MethodPost {
				body = "{}"
			}
			resp, b := kuraCall(srv.URL(), r.Method, r.Path, q, body)
			Expect(resp.StatusCode).To(Equal(r.Status))
			Expect(resp.Header.Get("Content-Type")).To(Equal("application/json"))
			want := latency[r.Path]
			switch {
			case r.Status != http.StatusOK:
				want = "60ms"
			case r.Query["latlng"] != "":
				want = "110ms"
			}
			Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal(want))
			Expect(json.Valid(b)).To(BeTrue())
		}
	})

	DescribeTable("geocodes an address in the real shape, and its point has weather",
		func(address, formatted string, lat, lng float64, types []string, weatherStatus int) {
			resp, m := geocode(address)
			Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("120ms"))
			Expect(keysOf(m)).To(Equal([]string{"results", "status"}))
			Expect(m["status"]).To(Equal("OK"))
			results := kuraList(m, "results")
			Expect(results).To(HaveLen(1))
			r := results[0].(map[string]any)
			Expect(r).To(HaveKey("address_components"))
			Expect(r["formatted_address"]).To(Equal(formatted))
			Expect(r["place_id"]).To(MatchRegexp(`^ChIJ[A-Za-z0-9_-]{23}$`))
			Expect(r["types"]).To(ConsistOf(kuraAny(types)...))
			geom := kuraObj(r, "geometry")
			Expect(geom["location_type"]).To(BeElementOf("ROOFTOP", "GEOMETRIC_CENTER", "APPROXIMATE"))
			loc := kuraObj(geom, "location")
			Expect(keysOf(loc)).To(Equal([]string{"lat", "lng"}))
			Expect(loc["lat"]).To(Equal(lat))
			Expect(loc["lng"]).To(Equal(lng))
			vp := kuraObj(geom, "viewport")
			ne, sw := kuraObj(vp, "northeast"), kuraObj(vp, "southwest")
			Expect(ne["lat"]).To(BeNumerically(">", lat))
			Expect(sw["lng"]).To(BeNumerically("<", lng))
			for _, c := range kuraList(r, "address_components") {
				Expect(keysOf(c.(map[string]any))).To(Equal([]string{"long_name", "short_name", "types"}))
			}

			// the agent's next call: the geocoded numbers, written by FormatFloat
			if weatherStatus == 0 {
				return
			}
			wresp, wbody := kuraCall(srv.URL(), http.MethodGet, "/v1/currentConditions:lookup",
				kuraWeatherQuery(loc["lat"].(float64), loc["lng"].(float64), "IMPERIAL"), "")
			Expect(wresp.StatusCode).To(Equal(weatherStatus), "%s", wbody)
		},
		Entry("Paris", "Paris", "Paris, France", 48.8566, 2.3522, []string{"locality", "political"}, 200),
		Entry("Tokyo", "Tokyo", "Tokyo, Japan", 35.6762, 139.6503, []string{"administrative_area_level_1", "political"}, 200),
		Entry("Lima", "Lima", "Lima, Peru", -12.0464, -77.0428, []string{"locality", "political"}, 200),
		Entry("Times Square", "Times Square, New York", "Times Square, Manhattan, NY 10036, USA", 40.758, -73.9855,
			[]string{"establishment", "point_of_interest", "tourist_attraction"}, 200),
		Entry("Brooklyn Museum (no weather route)", "Brooklyn Museum, New York", "200 Eastern Pkwy, Brooklyn, NY 11238, USA",
			40.6712, -73.9636, []string{"establishment", "museum", "point_of_interest", "tourist_attraction"}, 404),
		Entry("Reykjavik: spelt with its accent, and its weather fails", "Reykjavik", "Reykjavík, Iceland", 64.1466, -21.9426,
			[]string{"locality", "political"}, 500),
	)

	It("answers Springfield with three results", func() {
		_, m := geocode("Springfield")
		Expect(m["status"]).To(Equal("OK"))
		results := kuraList(m, "results")
		Expect(results).To(HaveLen(3))
		var names []string
		ids := map[string]bool{}
		for _, x := range results {
			r := x.(map[string]any)
			names = append(names, r["formatted_address"].(string))
			ids[r["place_id"].(string)] = true
			Expect(r["types"]).To(ConsistOf("locality", "political"))
		}
		Expect(names).To(Equal([]string{"Springfield, IL, USA", "Springfield, MA, USA", "Springfield, MO, USA"}))
		Expect(ids).To(HaveLen(3))
		loc := kuraObj(kuraObj(results[2].(map[string]any), "geometry"), "location")
		Expect(num(loc["lat"].(float64)) + "," + num(loc["lng"].(float64))).To(Equal("37.2089,-93.2923"))
	})

	It("answers an address that does not exist with ZERO_RESULTS", func() {
		resp, m := geocode("123 Nowhere Lane, Atlantis")
		Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("120ms"))
		Expect(m).To(Equal(map[string]any{"results": []any{}, "status": "ZERO_RESULTS"}))
	})

	It("does not answer an address it was not told about", func() {
		resp, body := kuraCall(srv.URL(), http.MethodGet, "/maps/api/geocode/json", url.Values{"address": {"paris"}}, "")
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		Expect(string(body)).To(ContainSubstring("fixtures/kura/routes.yaml"))
	})

	It("geolocates the user at Times Square, reverse-geocodes and weathers that point", func() {
		resp, body := kuraCall(srv.URL(), http.MethodPost, "/geolocation/v1/geolocate", nil, `{"considerIp": true}`)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("90ms"))
		m := decode(body)
		Expect(m).To(Equal(map[string]any{"location": map[string]any{"lat": 40.758, "lng": -73.9855}, "accuracy": 35.0}))
		loc := kuraObj(m, "location")
		lat, lng := loc["lat"].(float64), loc["lng"].(float64)

		// latlng is matched decoded, so "%2C" for the comma is fine
		resp, body = kuraCall(srv.URL(), http.MethodGet, "/maps/api/geocode/json",
			url.Values{"latlng": {num(lat) + "," + num(lng)}}, "")
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("110ms"))
		rev := decode(body)
		Expect(rev["status"]).To(Equal("OK"))
		results := kuraList(rev, "results")
		Expect(results).To(HaveLen(8))
		var names []string
		for _, x := range results {
			names = append(names, x.(map[string]any)["formatted_address"].(string))
		}
		Expect(names).To(Equal([]string{"Times Square, Manhattan, NY 10036, USA", "1560 Broadway, New York, NY 10036, USA",
			"Midtown Manhattan, New York, NY, USA", "New York, NY 10036, USA", "Manhattan, New York, NY, USA",
			"New York, NY, USA", "New York, USA", "United States"}))
		_, fwd := geocode("Times Square, New York")
		Expect(results[0]).To(Equal(kuraList(fwd, "results")[0]), "the same place both ways")

		resp, body = kuraCall(srv.URL(), http.MethodGet, "/v1/currentConditions:lookup", kuraWeatherQuery(lat, lng, "IMPERIAL"), "")
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(kuraObj(decode(body), "temperature")["degrees"]).To(Equal(77.1))

		// another point has no reverse geocoding
		resp, _ = kuraCall(srv.URL(), http.MethodGet, "/maps/api/geocode/json", url.Values{"latlng": {"40.7580,-73.9855"}}, "")
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
	})

	DescribeTable("answers current conditions in the real shape",
		func(lat, lng float64, units, tz, condition string, temp, feels float64, daytime bool) {
			resp, body := kuraCall(srv.URL(), http.MethodGet, "/v1/currentConditions:lookup", kuraWeatherQuery(lat, lng, units), "")
			Expect(resp.StatusCode).To(Equal(http.StatusOK), "%s", body)
			Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("180ms"))
			m := decode(body)
			Expect(keysOf(m)).To(Equal(sorted(kuraWeatherFields...)))
			Expect(m["currentTime"]).To(Equal("2025-09-20T11:45:12.318044719Z"))
			Expect(kuraObj(m, "timeZone")).To(Equal(map[string]any{"id": tz}))
			Expect(m["isDaytime"]).To(Equal(daytime))

			wc := kuraObj(m, "weatherCondition")
			Expect(keysOf(wc)).To(Equal([]string{"description", "iconBaseUri", "type"}))
			Expect(wc["iconBaseUri"]).To(HavePrefix("https://maps.gstatic.com/weather/v1/"))
			Expect(wc["type"]).To(Equal(condition))
			Expect(keysOf(kuraObj(wc, "description"))).To(Equal([]string{"languageCode", "text"}))

			tempUnit, speedUnit, distUnit, qpfUnit := "FAHRENHEIT", "MILES_PER_HOUR", "MILES", "INCHES"
			if units == "METRIC" {
				tempUnit, speedUnit, distUnit, qpfUnit = "CELSIUS", "KILOMETERS_PER_HOUR", "KILOMETERS", "MILLIMETERS"
			}
			for _, k := range []string{"temperature", "feelsLikeTemperature", "dewPoint", "heatIndex", "windChill"} {
				t := kuraObj(m, k)
				Expect(keysOf(t)).To(Equal([]string{"degrees", "unit"}), k)
				Expect(t["unit"]).To(Equal(tempUnit), k)
			}
			Expect(kuraObj(m, "temperature")["degrees"]).To(Equal(temp))
			Expect(kuraObj(m, "feelsLikeTemperature")["degrees"]).To(Equal(feels))

			p := kuraObj(m, "precipitation")
			Expect(keysOf(kuraObj(p, "probability"))).To(Equal([]string{"percent", "type"}))
			Expect(kuraObj(p, "qpf")["unit"]).To(Equal(qpfUnit))
			Expect(keysOf(kuraObj(m, "airPressure"))).To(Equal([]string{"meanSeaLevelMillibars"}))
			w := kuraObj(m, "wind")
			Expect(keysOf(kuraObj(w, "direction"))).To(Equal([]string{"cardinal", "degrees"}))
			Expect(kuraObj(w, "speed")["unit"]).To(Equal(speedUnit))
			Expect(kuraObj(w, "gust")["unit"]).To(Equal(speedUnit))
			Expect(kuraObj(m, "visibility")["unit"]).To(Equal(distUnit))
			for _, k := range []string{"relativeHumidity", "uvIndex", "thunderstormProbability", "cloudCover"} {
				Expect(m[k]).To(BeNumerically(">=", 0), k)
				Expect(m[k]).To(BeNumerically("<=", 100), k)
			}
		},
		Entry("Paris: feels colder", 48.8566, 2.3522, "IMPERIAL", "Europe/Paris", "PARTLY_CLOUDY", 54.3, 51.8, true),
		Entry("Paris, metric", 48.8566, 2.3522, "METRIC", "Europe/Paris", "PARTLY_CLOUDY", 12.4, 11.0, true),
		Entry("Tokyo: feels the same", 35.6762, 139.6503, "IMPERIAL", "Asia/Tokyo", "CLOUDY", 68.2, 68.2, false),
		Entry("Lima: feels warmer", -12.0464, -77.0428, "IMPERIAL", "America/Lima", "MOSTLY_CLOUDY", 71.6, 73.0, true),
		Entry("Times Square: feels the same", 40.758, -73.9855, "IMPERIAL", "America/New_York", "CLEAR", 77.1, 77.1, true),
	)

	It("fails Reykjavík's weather with Google's error body, in both unit systems", func() {
		for _, units := range []string{"IMPERIAL", "METRIC"} {
			resp, body := kuraCall(srv.URL(), http.MethodGet, "/v1/currentConditions:lookup", kuraWeatherQuery(64.1466, -21.9426, units), "")
			Expect(resp.StatusCode).To(Equal(http.StatusInternalServerError))
			Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("60ms"))
			Expect(decode(body)).To(Equal(map[string]any{"error": map[string]any{
				"code": 500.0, "message": "Internal error encountered.", "status": "INTERNAL"}}))
		}
	})

	It("has no metric weather but Paris's, and no weather without unitsSystem", func() {
		resp, _ := kuraCall(srv.URL(), http.MethodGet, "/v1/currentConditions:lookup", kuraWeatherQuery(35.6762, 139.6503, "METRIC"), "")
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		q := kuraWeatherQuery(48.8566, 2.3522, "IMPERIAL")
		q.Del("unitsSystem")
		resp, body := kuraCall(srv.URL(), http.MethodGet, "/v1/currentConditions:lookup", q, "")
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		Expect(string(body)).To(ContainSubstring("unitsSystem=IMPERIAL (missing)"))
	})

	It("routes Times Square to the Brooklyn Museum by the 2 train", func() {
		resp, body := kuraCall(srv.URL(), http.MethodPost, "/directions/v2:computeRoutes", nil,
			`{"origin":{"address":"Times Square, New York"},"destination":{"address":"Brooklyn Museum, New York"},"travelMode":"TRANSIT"}`)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("450ms"))
		m := decode(body)
		Expect(keysOf(m)).To(Equal([]string{"routes"}))
		routes := kuraList(m, "routes")
		Expect(routes).To(HaveLen(1))
		route := routes[0].(map[string]any)
		Expect(route["duration"]).To(Equal("1845s"))
		Expect(route["distanceMeters"]).To(Equal(12450.0))
		Expect(kuraObj(route, "polyline")).To(HaveKey("encodedPolyline"))
		lv := kuraObj(route, "localizedValues")
		Expect(kuraObj(lv, "duration")["text"]).To(Equal("31 mins"))
		Expect(kuraObj(lv, "distance")["text"]).To(Equal("7.7 mi"))
		Expect(kuraObj(lv, "transitFare")["text"]).To(Equal("$2.90"))

		legs := kuraList(route, "legs")
		Expect(legs).To(HaveLen(1))
		leg := legs[0].(map[string]any)
		Expect(leg["duration"]).To(Equal("1845s"))
		steps := kuraList(leg, "steps")
		var modes []string
		meters, seconds := 0.0, 0.0
		for _, x := range steps {
			s := x.(map[string]any)
			modes = append(modes, s["travelMode"].(string))
			meters += s["distanceMeters"].(float64)
			seconds += kuraSeconds(s["staticDuration"])
			Expect(kuraObj(s, "navigationInstruction")["instructions"]).NotTo(BeEmpty())
			Expect(kuraObj(kuraObj(s, "startLocation"), "latLng")).To(HaveKey("latitude"))
			pts := kuraPolyline(kuraObj(s, "polyline")["encodedPolyline"].(string))
			start := kuraObj(kuraObj(s, "startLocation"), "latLng")
			end := kuraObj(kuraObj(s, "endLocation"), "latLng")
			Expect(kuraMeters(pts[0][0], pts[0][1], start["latitude"].(float64), start["longitude"].(float64))).To(BeNumerically("<", 5))
			last := pts[len(pts)-1]
			Expect(kuraMeters(last[0], last[1], end["latitude"].(float64), end["longitude"].(float64))).To(BeNumerically("<", 5))
		}
		Expect(modes).To(Equal([]string{"WALK", "TRANSIT", "WALK"}))
		Expect(meters).To(Equal(route["distanceMeters"]))
		Expect(seconds).To(BeNumerically("<=", kuraSeconds(route["duration"])))
		Expect(steps[0].(map[string]any)).NotTo(HaveKey("transitDetails"))
		Expect(steps[2].(map[string]any)).NotTo(HaveKey("transitDetails"))

		transit := steps[1].(map[string]any)
		Expect(kuraObj(transit, "navigationInstruction")["instructions"]).To(Equal("Subway towards Flatbush Av-Brooklyn College"))
		td := kuraObj(transit, "transitDetails")
		Expect(td["headsign"]).To(Equal("Flatbush Av-Brooklyn College"))
		Expect(td["stopCount"]).To(Equal(14.0))
		sd := kuraObj(td, "stopDetails")
		Expect(kuraObj(sd, "departureStop")["name"]).To(Equal("Times Sq-42 St"))
		Expect(kuraObj(sd, "arrivalStop")["name"]).To(Equal("Eastern Pkwy-Brooklyn Museum"))
		dep, err := time.Parse(time.RFC3339, sd["departureTime"].(string))
		Expect(err).NotTo(HaveOccurred())
		arr, err := time.Parse(time.RFC3339, sd["arrivalTime"].(string))
		Expect(err).NotTo(HaveOccurred())
		ny, err := time.LoadLocation("America/New_York")
		Expect(err).NotTo(HaveOccurred())
		Expect(dep.In(ny).Format("2006-01-02 15:04")).To(Equal("2025-09-20 08:04"))
		Expect(arr.In(ny).Format("15:04")).To(Equal("08:27"))
		Expect(arr.Sub(dep).Seconds()).To(Equal(kuraSeconds(transit["staticDuration"])))
		tlv := kuraObj(td, "localizedValues")
		Expect(kuraObj(kuraObj(tlv, "departureTime"), "time")["text"]).To(Equal("8:04 AM"))
		Expect(kuraObj(tlv, "departureTime")["timeZone"]).To(Equal("America/New_York"))
		Expect(kuraObj(kuraObj(tlv, "arrivalTime"), "time")["text"]).To(Equal("8:27 AM"))
		line := kuraObj(td, "transitLine")
		Expect(line["name"]).To(Equal("7 Avenue Express"))
		Expect(line["nameShort"]).To(Equal("2"))
		Expect(kuraObj(line, "vehicle")["type"]).To(Equal("SUBWAY"))
		Expect(kuraObj(kuraObj(line, "vehicle"), "name")["text"]).To(Equal("Subway"))
		Expect(kuraList(line, "agencies")).To(HaveLen(1))
	})

	It("finds five coffee shops near Times Square, in relevance order", func() {
		resp, body := kuraCall(srv.URL(), http.MethodPost, "/v1/places:searchText", nil, `{"textQuery":"coffee near Times Square"}`)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("300ms"))
		m := decode(body)
		Expect(keysOf(m)).To(Equal([]string{"places"}))
		type shop struct {
			Name   string
			Rating float64
			Count  float64
		}
		var got []shop
		for _, x := range kuraList(m, "places") {
			p := x.(map[string]any)
			Expect(p["id"]).To(MatchRegexp(`^ChIJ[A-Za-z0-9_-]{23}$`))
			Expect(p["name"]).To(Equal("places/" + p["id"].(string)))
			dn := kuraObj(p, "displayName")
			Expect(keysOf(dn)).To(Equal([]string{"languageCode", "text"}))
			Expect(p["formattedAddress"]).To(HaveSuffix("New York, NY 10036, USA"))
			loc := kuraObj(p, "location")
			Expect(keysOf(loc)).To(Equal([]string{"latitude", "longitude"}))
			Expect(kuraMeters(40.758, -73.9855, loc["latitude"].(float64), loc["longitude"].(float64))).To(BeNumerically("<", 400))
			Expect(p["types"]).To(ContainElement("coffee_shop"))
			got = append(got, shop{dn["text"].(string), p["rating"].(float64), p["userRatingCount"].(float64)})
		}
		Expect(got).To(Equal([]shop{
			{"Bean & Broadway Coffee", 4.6, 1284},
			{"Forty-Fourth Street Roasters", 4.4, 562},
			{"Marquee Espresso Bar", 4.7, 2093},
			{"Duffy Square Café", 4.2, 318},
			{"Eighth Avenue Coffee Co.", 4.5, 907},
		}))
	})
})

// kuraAny turns strings into the []any that ConsistOf wants for a JSON list.
func kuraAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
