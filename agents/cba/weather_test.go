package cba_test

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/agenttest"
)

var _ = Describe("weather and climate through the fixtures", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	It("reports the current weather for Nairobi from its fixture", func() {
		r := w.tool(cfgMinimal, "get_current_weather", `{"city":"Nairobi"}`)
		Expect(r.Err).NotTo(HaveOccurred())
		Expect(r.Context).To(Equal("Current Weather for Nairobi, Kenya:\n" +
			"- Conditions: Partly cloudy\n" +
			"- Temperature: 24.6°C\n" +
			"- Feels Like: 23.9°C\n" +
			"- Humidity: 41%\n" +
			"- Wind: 14.8 km/h from 68°\n" +
			"- Precipitation: 0.0 mm"))
		Expect(r.Raw).To(Equal(fixture("current/nairobi.json")))

		geo := w.transport.Requests(geocodingHost)
		Expect(geo).To(HaveLen(1))
		Expect(geo[0].Path).To(Equal("/v1/search"))
		Expect(geo[0].Query).To(HaveKeyWithValue("name", []string{"Nairobi"}))
		Expect(geo[0].Query).To(HaveKeyWithValue("count", []string{"1"}))
		Expect(geo[0].Query).To(HaveKeyWithValue("language", []string{"en"}))
		Expect(geo[0].Query).To(HaveKeyWithValue("format", []string{"json"}))
		now := w.transport.Requests(forecastHost)
		Expect(now).To(HaveLen(1))
		Expect(now[0].Path).To(Equal("/v1/forecast"))
		Expect(now[0].Query).To(HaveKeyWithValue("latitude", []string{"-1.28333"}))
		Expect(now[0].Query).To(HaveKeyWithValue("longitude", []string{"36.81667"}))
		Expect(now[0].Query).To(HaveKeyWithValue("current", []string{"temperature_2m,relative_humidity_2m,apparent_temperature,precipitation,weather_code,wind_speed_10m,wind_direction_10m"}))
		Expect(now[0].Query).To(HaveKeyWithValue("timezone", []string{"auto"}))
	})

	DescribeTable("reports the README's current conditions for each place",
		func(city, want string) {
			r := w.tool(cfgMinimal, "get_current_weather", fmt.Sprintf(`{"city":%q}`, city))
			Expect(r.Err).NotTo(HaveOccurred())
			Expect(r.Context).To(ContainSubstring(want))
		},
		Entry("N'Djamena, with its apostrophe", "N'Djamena", "Current Weather for N'Djamena, Chad:\n- Conditions: Clear sky\n- Temperature: 33.8°C\n- Feels Like: 31.2°C\n- Humidity: 12%\n- Wind: 17.3 km/h"),
		Entry("Lima", "Lima", "Current Weather for Lima, Peru:\n- Conditions: Overcast\n- Temperature: 20.9°C\n- Feels Like: 22.4°C\n- Humidity: 86%\n- Wind: 7.6 km/h"),
		Entry("Kisumu", "Kisumu", "- Conditions: Slight rain showers\n- Temperature: 27.4°C\n- Feels Like: 29.8°C\n- Humidity: 63%\n- Wind: 9.4 km/h"),
		Entry("Kisumu's rain", "Kisumu", "- Precipitation: 0.6 mm"),
		Entry("Ouagadougou", "Ouagadougou", "Current Weather for Ouagadougou, Burkina Faso:\n- Conditions: Mainly clear\n- Temperature: 31.2°C"),
		Entry("Iowa City", "Iowa City", "Current Weather for Iowa City, United States:\n- Conditions: Slight rain\n- Temperature: 3.7°C\n- Feels Like: -0.6°C\n- Humidity: 92%\n- Wind: 21.6 km/h"),
	)

	It("escapes the apostrophe of N'Djamena on the wire", func() {
		w.tool(cfgMinimal, "get_current_weather", `{"city":"N'Djamena"}`)
		geo := w.transport.Requests(geocodingHost)
		Expect(geo).To(HaveLen(1))
		Expect(geo[0].RawQuery).To(ContainSubstring("name=N%27Djamena"))
	})

	It("gives one forecast line per day, as many days as asked", func() {
		r := w.tool(cfgFull, "get_weather_forecast", `{"city":"Lima","days":5}`)
		Expect(r.Err).NotTo(HaveOccurred())
		Expect(lines(r.Context)).To(Equal([]string{
			"Forecast for Lima, Peru:",
			"- 2025-03-14: Overcast, 20.8–27.3°C, 0.0 mm, wind up to 15 km/h",
			"- 2025-03-15: Partly cloudy, 21.0–27.8°C, 0.0 mm, wind up to 16 km/h",
			"- 2025-03-16: Mainly clear, 21.2–28.1°C, 0.0 mm, wind up to 17 km/h",
			"- 2025-03-17: Light drizzle, 20.9–26.4°C, 0.1 mm, wind up to 14 km/h",
			"- 2025-03-18: Overcast, 20.6–26.9°C, 0.0 mm, wind up to 15 km/h",
		}))
		Expect(r.Raw).To(Equal(fixture("forecast/lima.json")))
		fc := w.transport.Requests(forecastHost)
		Expect(fc).To(HaveLen(1))
		Expect(fc[0].Query).To(HaveKeyWithValue("daily", []string{"weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,wind_speed_10m_max"}))
		Expect(fc[0].Query).To(HaveKeyWithValue("forecast_days", []string{"7"}))
	})

	DescribeTable("forecasts 7 days unless 1 to 7 are asked",
		func(arguments string, days int) {
			r := w.tool(cfgFull, "get_weather_forecast", arguments)
			Expect(r.Err).NotTo(HaveOccurred())
			Expect(lines(r.Context)).To(HaveLen(1 + days))
		},
		Entry("no days", `{"city":"Nairobi"}`, 7),
		Entry("one day", `{"city":"Nairobi","days":1}`, 1),
		Entry("seven days", `{"city":"Nairobi","days":7}`, 7),
		Entry("zero days", `{"city":"Nairobi","days":0}`, 7),
		Entry("ten days", `{"city":"Nairobi","days":10}`, 7),
	)

	It("names the wettest Nairobi day as the README does", func() {
		r := w.tool(cfgFull, "get_weather_forecast", `{"city":"Nairobi"}`)
		Expect(r.Context).To(ContainSubstring("- 2025-03-19: Thunderstorm, 15.0–24.1°C, 12.6 mm, wind up to 27 km/h"))
	})

	It("answers a place without a forecast fixture with the upstream's status", func() {
		r := w.tool(cfgFull, "get_weather_forecast", `{"city":"Kisumu"}`)
		Expect(r.Err).To(MatchError(HavePrefix("forecast returned HTTP 404")))
		Expect(r.Context).To(HavePrefix("Error: forecast returned HTTP 404"))
	})

	// normalRow is one month of a climate table.
	type normalRow struct {
		month               string
		mean, max, min, pre float64
	}
	rowRe := regexp.MustCompile(`^(\w{3}) \| (-?\d+\.\d)°C \| (-?\d+\.\d)°C \| (-?\d+\.\d)°C \| (\d+)$`)
	parseNormals := func(table string) []normalRow {
		ls := lines(table)
		Expect(ls[1]).To(Equal("Month | Avg Temp | Avg Max | Avg Min | Precip (mm/month)"))
		var out []normalRow
		for _, l := range ls[2:] {
			m := rowRe.FindStringSubmatch(l)
			Expect(m).NotTo(BeNil(), "row %q", l)
			f := func(s string) float64 {
				v, err := strconv.ParseFloat(s, 64)
				Expect(err).NotTo(HaveOccurred())
				return v
			}
			out = append(out, normalRow{m[1], f(m[2]), f(m[3]), f(m[4]), f(m[5])})
		}
		return out
	}

	// README.md's monthly normals: mean, max, min °C and precipitation mm.
	ndjamena := []normalRow{
		{"Jan", 24.8, 32.8, 16.8, 0.0}, {"Feb", 27.4, 35.3, 19.5, 0.0}, {"Mar", 30.7, 38.2, 23.2, 1.5},
		{"Apr", 32.9, 39.8, 26.0, 8.5}, {"May", 32.8, 39.0, 26.5, 34.8}, {"Jun", 30.7, 36.0, 25.4, 59.8},
		{"Jul", 28.0, 32.1, 23.9, 151.0}, {"Aug", 26.7, 30.4, 23.1, 202.5}, {"Sep", 27.6, 32.1, 23.1, 96.2},
		{"Oct", 28.7, 35.0, 22.3, 16.4}, {"Nov", 27.2, 35.0, 19.3, 0.6}, {"Dec", 25.2, 33.2, 17.2, 0.0},
	}
	nairobi := []normalRow{
		{"Jan", 19.7, 25.8, 13.5, 42.6}, {"Feb", 20.1, 26.5, 13.8, 45.7}, {"Mar", 20.4, 26.0, 14.8, 96.0},
		{"Apr", 19.8, 24.2, 15.3, 181.8}, {"May", 18.6, 22.9, 14.4, 132.6}, {"Jun", 17.5, 22.4, 12.6, 34.7},
		{"Jul", 16.9, 22.0, 11.9, 23.1}, {"Aug", 17.3, 22.7, 11.9, 19.8}, {"Sep", 18.6, 24.5, 12.7, 29.6},
		{"Oct", 19.5, 25.1, 13.8, 59.6}, {"Nov", 19.1, 23.6, 14.5, 125.8}, {"Dec", 19.0, 24.1, 13.8, 80.7},
	}

	DescribeTable("aggregates thirty years of days into the README's twelve monthly normals",
		func(city, file, title string, want []normalRow) {
			r := w.tool(cfgMinimal, "get_climate_data", fmt.Sprintf(`{"city":%q}`, city))
			Expect(r.Err).NotTo(HaveOccurred())
			Expect(lines(r.Context)[0]).To(Equal(title))
			got := parseNormals(r.Context)
			Expect(got).To(HaveLen(12))
			for i, g := range got {
				e := want[i]
				Expect(g.month).To(Equal(e.month))
				Expect(g.mean).To(BeNumerically("~", e.mean, 0.051), "%s mean", e.month)
				Expect(g.max).To(BeNumerically("~", e.max, 0.051), "%s max", e.month)
				Expect(g.min).To(BeNumerically("~", e.min, 0.051), "%s min", e.month)
				Expect(g.pre).To(BeNumerically("~", e.pre, 0.51), "%s precipitation", e.month)
			}

			// the tracer gets the whole upstream answer, the model a short table
			Expect(r.Raw).To(Equal(fixture(file)))
			Expect(len(r.Raw)).To(BeNumerically(">", 300_000))
			Expect(len(r.Context)).To(BeNumerically("<", 1000))
			Expect(float64(len(r.Context)) / float64(len(r.Raw))).To(BeNumerically("<", 0.05))

			cl := w.transport.Requests(climateHost)
			Expect(cl).To(HaveLen(1))
			Expect(cl[0].Path).To(Equal("/v1/climate"))
			Expect(cl[0].Query).To(HaveKeyWithValue("start_date", []string{"1991-01-01"}))
			Expect(cl[0].Query).To(HaveKeyWithValue("end_date", []string{"2020-12-31"}))
			Expect(cl[0].Query).To(HaveKeyWithValue("models", []string{"EC_Earth3P_HR"}))
			Expect(cl[0].Query).To(HaveKeyWithValue("daily", []string{"temperature_2m_mean,temperature_2m_max,temperature_2m_min,precipitation_sum"}))
		},
		Entry("N'Djamena", "N'Djamena", "climate/ndjamena.json", "Climate Normals for N'Djamena, Chad (1991-2020):", ndjamena),
		Entry("Nairobi", "Nairobi", "climate/nairobi.json", "Climate Normals for Nairobi, Kenya (1991-2020):", nairobi),
	)

	It("gives the same normals to the scenarios of a run that share one table per answer and place", func() {
		alone := map[string]string{}
		for _, city := range []string{"Nairobi", "N'Djamena"} {
			w = newWorld()
			alone[city] = w.tool(cfgMinimal, "get_climate_data", fmt.Sprintf(`{"city":%q}`, city)).Context
		}
		Expect(alone["Nairobi"]).NotTo(Equal(alone["N'Djamena"]))
		cache := &agents.Cache{}
		for range 2 {
			for _, city := range []string{"Nairobi", "N'Djamena"} {
				w = newWorld()
				w.cache = cache
				Expect(w.tool(cfgMinimal, "get_climate_data", fmt.Sprintf(`{"city":%q}`, city)).Context).To(Equal(alone[city]))
			}
		}
	})

	It("sums N'Djamena's months to the README's yearly precipitation", func() {
		r := w.tool(cfgMinimal, "get_climate_data", `{"city":"N'Djamena"}`)
		total := 0.0
		wettest := normalRow{}
		for _, row := range parseNormals(r.Context) {
			total += row.pre
			if row.pre > wettest.pre {
				wettest = row
			}
		}
		// twelve rounded months: within 6 mm of 571.3
		Expect(total).To(BeNumerically("~", 571.3, 6))
		Expect(wettest.month).To(Equal("Aug"))
	})

	It("survives a climate answer whose series are shorter than its days", Label("bug"), func() {
		// a truncated or partial upstream answer must give an error or a
		// smaller table, not crash the agent
		srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
			rw.Header().Set("Content-Type", "application/json")
			fmt.Fprint(rw, `{"daily":{"time":["1991-01-01","1991-01-02"],"temperature_2m_mean":[20.0,21.0],"temperature_2m_max":[25.0],"temperature_2m_min":[15.0],"precipitation_sum":[1.0]}}`)
		}))
		DeferCleanup(srv.Close)
		w.transport.Route(climateHost, agenttest.HostOf(srv.URL))
		var r agenttest.ToolReport
		Expect(func() { r = w.tool(cfgMinimal, "get_climate_data", `{"city":"Nairobi"}`) }).NotTo(Panic())
		Expect(r.Context).To(Or(HavePrefix("Climate Normals for Nairobi"), HavePrefix("Error: ")))
	})
})

var _ = Describe("soil through the fixtures", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	It("asks SoilGrids for the six properties at the three depths", func() {
		w.tool(cfgMinimal, "get_soil_properties", `{"location":"Nairobi"}`)
		sg := w.transport.Requests(soilHost)
		Expect(sg).To(HaveLen(1))
		Expect(sg[0].Path).To(Equal("/soilgrids/v2.0/properties/query"))
		Expect(sg[0].Query["property"]).To(Equal([]string{"soc", "clay", "sand", "phh2o", "bdod", "nitrogen"}))
		Expect(sg[0].Query["depth"]).To(Equal([]string{"0-5cm", "5-15cm", "15-30cm"}))
		Expect(sg[0].Query).To(HaveKeyWithValue("value", []string{"mean"}))
		Expect(sg[0].Query).To(HaveKeyWithValue("lon", []string{"36.81667"}))
		Expect(sg[0].Query).To(HaveKeyWithValue("lat", []string{"-1.28333"}))
	})

	It("gives the default properties for 0-30 cm", func() {
		r := w.tool(cfgMinimal, "get_soil_properties", `{"location":"Nairobi"}`)
		Expect(r.Err).NotTo(HaveOccurred())
		Expect(lines(r.Context)).To(Equal([]string{
			"Soil properties for Nairobi, Kenya (0-30cm, SoilGrids mean):",
			"- soc: 26.70 g/kg",
			"- clay: 48.07 %",
			"- sand: 23.10 %",
			"- phh2o: 6.30 pH",
		}))
		Expect(r.Raw).To(Equal(fixture("soil/nairobi.json")))
	})

	// The README's SoilGrids table: mapped values at 0-5, 5-15 and 15-30 cm,
	// the layer's d_factor, and the 0-30 cm value it gives.
	valueRe := regexp.MustCompile(`(?m)^- (\w+): (-?\d+\.\d\d) (\S+)$`)
	DescribeTable("divides by each layer's d_factor and takes 0-30 cm as the mean of the three depths",
		func(place, prop, unit string, dFactor float64, mapped [3]float64, readme float64) {
			args := fmt.Sprintf(`{"location":%q,"properties":%q}`, place, prop)
			exact := (mapped[0] + mapped[1] + mapped[2]) / 3 / dFactor
			Expect(exact).To(BeNumerically("~", readme, 0.05), "the README's rounding")

			r := w.tool(cfgMinimal, "get_soil_properties", args)
			Expect(r.Err).NotTo(HaveOccurred())
			m := valueRe.FindStringSubmatch(r.Context)
			Expect(m).NotTo(BeNil(), r.Context)
			Expect(m[1]).To(Equal(prop))
			Expect(m[2]).To(Equal(fmt.Sprintf("%.2f", exact)))
			Expect(m[3]).To(Equal(unit))

			for i, depth := range []string{"0-5cm", "5-15cm", "15-30cm"} {
				r := w.tool(cfgMinimal, "get_soil_properties", fmt.Sprintf(`{"location":%q,"properties":%q,"depth":%q}`, place, prop, depth))
				Expect(r.Context).To(ContainSubstring(fmt.Sprintf("(%s, SoilGrids mean)", depth)))
				Expect(r.Context).To(ContainSubstring(fmt.Sprintf("- %s: %.2f %s", prop, mapped[i]/dFactor, unit)))
			}
		},
		Entry("Nairobi soc", "Nairobi", "soc", "g/kg", 10.0, [3]float64{312, 268, 221}, 26.7),
		Entry("Nairobi clay", "Nairobi", "clay", "%", 10.0, [3]float64{452, 481, 509}, 48.1),
		Entry("Nairobi bdod", "Nairobi", "bdod", "kg/dm³", 100.0, [3]float64{112, 118, 124}, 1.18),
		Entry("Nairobi nitrogen", "Nairobi", "nitrogen", "g/kg", 100.0, [3]float64{262, 214, 170}, 2.15),
		Entry("N'Djamena soc", "N'Djamena", "soc", "g/kg", 10.0, [3]float64{74, 61, 51}, 6.2),
		Entry("N'Djamena phh2o", "N'Djamena", "phh2o", "pH", 10.0, [3]float64{68, 69, 71}, 6.93),
		Entry("N'Djamena sand", "N'Djamena", "sand", "%", 10.0, [3]float64{621, 594, 563}, 59.3),
		Entry("Iowa City soc", "Iowa City", "soc", "g/kg", 10.0, [3]float64{352, 301, 244}, 29.9),
		Entry("Iowa City bdod", "Iowa City", "bdod", "kg/dm³", 100.0, [3]float64{128, 133, 139}, 1.33),
		Entry("Ouagadougou clay", "Ouagadougou", "clay", "%", 10.0, [3]float64{112, 146, 213}, 15.7),
		Entry("Ouagadougou nitrogen", "Ouagadougou", "nitrogen", "g/kg", 100.0, [3]float64{55, 44, 38}, 0.46),
	)

	It("says no data for a depth or property it does not have", func() {
		r := w.tool(cfgMinimal, "get_soil_properties", `{"location":"Nairobi","properties":"soc, cec","depth":"30-60cm"}`)
		Expect(r.Err).NotTo(HaveOccurred())
		Expect(lines(r.Context)[1:]).To(Equal([]string{"- soc: no data", "- cec: no data"}))
	})

	// carbonRe reads the soil carbon line.
	carbonRe := regexp.MustCompile(`^Soil organic carbon for (.+) \(0-30 cm\): (\d+\.\d) g/kg; carbon stock about (\d+) t C/ha \(bulk density (\d+\.\d\d) kg/dm³\)\.$`)
	DescribeTable("gives SOC and the stock SOC × bulk density × 30 cm × 0.1 in t C/ha",
		func(place, name string, soc, bdod [3]float64, readmeSOC float64) {
			socMean := (soc[0] + soc[1] + soc[2]) / 3 / 10
			bdMean := (bdod[0] + bdod[1] + bdod[2]) / 3 / 100
			Expect(socMean).To(BeNumerically("~", readmeSOC, 0.05))

			r := w.tool(cfgMinimal, "get_soil_carbon", fmt.Sprintf(`{"location":%q}`, place))
			Expect(r.Err).NotTo(HaveOccurred())
			m := carbonRe.FindStringSubmatch(r.Context)
			Expect(m).NotTo(BeNil(), r.Context)
			Expect(m[1]).To(Equal(name))
			Expect(m[2]).To(Equal(fmt.Sprintf("%.1f", readmeSOC)))
			Expect(m[3]).To(Equal(strconv.Itoa(int(math.Round(socMean * bdMean * 30 * 0.1)))))
			Expect(m[4]).To(Equal(fmt.Sprintf("%.2f", bdMean)))
		},
		Entry("Nairobi: 26.7 g/kg × 1.18 × 3 ≈ 95", "Nairobi", "Nairobi, Kenya", [3]float64{312, 268, 221}, [3]float64{112, 118, 124}, 26.7),
		Entry("N'Djamena", "N'Djamena", "N'Djamena, Chad", [3]float64{74, 61, 51}, [3]float64{141, 146, 149}, 6.2),
		Entry("Iowa City", "Iowa City", "Iowa City, United States", [3]float64{352, 301, 244}, [3]float64{128, 133, 139}, 29.9),
		Entry("Ouagadougou", "Ouagadougou", "Ouagadougou, Burkina Faso", [3]float64{59, 47, 41}, [3]float64{147, 151, 153}, 4.9),
	)

	It("gives Nairobi's stock as 95 t C/ha", func() {
		r := w.tool(cfgMinimal, "get_soil_carbon", `{"location":"Nairobi"}`)
		Expect(r.Context).To(Equal("Soil organic carbon for Nairobi, Kenya (0-30 cm): 26.7 g/kg; carbon stock about 95 t C/ha (bulk density 1.18 kg/dm³)."))
	})
})

var _ = Describe("upstream failures", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	DescribeTable("an unknown place is not found, and nothing else is asked",
		func(variant map[string]any, name, arguments string) {
			r := w.tool(variant, name, arguments)
			Expect(r.Err).To(MatchError("Could not find location: Atlantis"))
			Expect(r.Context).To(Equal("Error: Could not find location: Atlantis"))
			Expect(w.transport.Requests(geocodingHost)).To(HaveLen(1))
			Expect(w.transport.Requests(forecastHost)).To(BeEmpty())
			Expect(w.transport.Requests(climateHost)).To(BeEmpty())
			Expect(w.transport.Requests(soilHost)).To(BeEmpty())
		},
		Entry("current weather", cfgMinimal, "get_current_weather", `{"city":"Atlantis"}`),
		Entry("forecast", cfgFull, "get_weather_forecast", `{"city":"Atlantis"}`),
		Entry("climate", cfgMinimal, "get_climate_data", `{"city":"Atlantis"}`),
		Entry("soil properties", cfgMinimal, "get_soil_properties", `{"location":"Atlantis"}`),
		Entry("soil carbon", cfgMinimal, "get_soil_carbon", `{"location":"Atlantis"}`),
	)

	It("asks for a place name before calling anything", func() {
		r := w.tool(cfgMinimal, "get_current_weather", `{}`)
		Expect(r.Err).To(MatchError("a place name is required"))
		Expect(w.transport.Requests(geocodingHost)).To(BeEmpty())
	})

	DescribeTable("SoilGrids' 503 for Kisumu is an error naming HTTP 503, with the raw answer",
		func(name string) {
			r := w.tool(cfgMinimal, name, `{"location":"Kisumu"}`)
			Expect(r.Err).To(HaveOccurred())
			Expect(r.Err.Error()).To(ContainSubstring("HTTP 503"))
			Expect(r.Context).To(Equal(`Error: soilgrids returned HTTP 503: {"detail":"Service temporarily unavailable"}`))
			Expect(r.Context).NotTo(ContainSubstring("g/kg"))
			Expect(r.Raw).To(Equal(fixture("errors/soil-unavailable.json")))
		},
		Entry("soil carbon", "get_soil_carbon"),
		Entry("soil properties", "get_soil_properties"),
	)

	It("reports an upstream that does not answer", func() {
		srv := httptest.NewServer(http.NotFoundHandler())
		addr := srv.URL
		srv.Close()
		w.transport.Route(soilHost, agenttest.HostOf(addr))
		r := w.tool(cfgMinimal, "get_soil_carbon", `{"location":"Nairobi"}`)
		Expect(r.Err).To(MatchError("soilgrids did not answer"))
	})

	It("reports a SoilGrids answer without layers", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(rw, `{"type":"Feature","properties":{"layers":[]}}`)
		}))
		DeferCleanup(srv.Close)
		w.transport.Route(soilHost, agenttest.HostOf(srv.URL))
		r := w.tool(cfgMinimal, "get_soil_carbon", `{"location":"Nairobi"}`)
		Expect(r.Err).To(MatchError("SoilGrids answered without soil layers"))
		Expect(string(r.Raw)).To(ContainSubstring(`"layers":[]`))
	})

	It("tells the user through the stand-in, with the status and no made-up value", func() {
		reply := ask(w.agent(cfgFull), "What is the soil carbon stock in Kisumu?")
		Expect(reply.Tools).To(Equal([]string{"get_soil_carbon"}))
		Expect(reply.Text).To(ContainSubstring("could not get that"))
		Expect(reply.Text).To(ContainSubstring("503"))
		Expect(reply.Text).NotTo(ContainSubstring("g/kg"))
		Expect(strings.Count(reply.Text, "\n")).To(BeNumerically("<", 3))
	})
})
