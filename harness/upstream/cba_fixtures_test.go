package upstream_test

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/upstream"
)

// cbaPlace is one place of fixtures/cba/README.md: the coordinates as they
// appear in URLs, the current temperature and the 0-30 cm mean SOC in g/kg
// (0 where SoilGrids has no answer).
type cbaPlace struct {
	name, country, lat, lon string
	tempC, soc              float64
}

var cbaPlaces = []cbaPlace{
	{"Nairobi", "Kenya", "-1.28333", "36.81667", 24.6, 26.7},
	{"N'Djamena", "Chad", "12.10672", "15.0444", 33.8, 6.2},
	{"Lima", "Peru", "-12.04318", "-77.02824", 20.9, 0},
	{"Kisumu", "Kenya", "-0.10221", "34.76171", 27.4, 0},
	{"Ouagadougou", "Burkina Faso", "12.36566", "-1.53388", 31.2, 4.9},
	{"Iowa City", "United States", "41.66113", "-91.53017", 3.7, 29.9},
}

// The CBA agent's requests, parameters in its order.
const (
	cbaCurrent = "temperature_2m,relative_humidity_2m,apparent_temperature,precipitation,weather_code,wind_speed_10m,wind_direction_10m"
	cbaDaily   = "weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,wind_speed_10m_max"
	cbaNormals = "temperature_2m_mean,temperature_2m_max,temperature_2m_min,precipitation_sum"
)

func cbaGeocodeQuery(name string) string {
	return "/v1/search?name=" + url.QueryEscape(name) + "&count=1&language=en&format=json"
}

func cbaCurrentQuery(lat, lon string) string {
	return "/v1/forecast?latitude=" + lat + "&longitude=" + lon + "&current=" + cbaCurrent + "&timezone=auto"
}

func cbaForecastQuery(lat, lon string) string {
	return "/v1/forecast?latitude=" + lat + "&longitude=" + lon + "&daily=" + cbaDaily + "&forecast_days=7&timezone=auto"
}

func cbaClimateQuery(lat, lon string) string {
	return "/v1/climate?latitude=" + lat + "&longitude=" + lon +
		"&start_date=1991-01-01&end_date=2020-12-31&models=EC_Earth3P_HR&daily=" + cbaNormals
}

func cbaSoilQuery(lat, lon string) string {
	q := "/soilgrids/v2.0/properties/query?lon=" + lon + "&lat=" + lat
	for _, p := range []string{"soc", "clay", "sand", "phh2o", "bdod", "nitrogen"} {
		q += "&property=" + p
	}
	return q + "&depth=0-5cm&depth=5-15cm&depth=15-30cm&value=mean"
}

// cbaCSV reads one of the knowledge-base files as a header and rows of named cells.
func cbaCSV(name string) ([]string, []map[string]string) {
	f, err := os.Open("../../fixtures/cba/kb/" + name)
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	ExpectWithOffset(1, len(recs)).To(BeNumerically(">", 1))
	var rows []map[string]string
	for _, rec := range recs[1:] {
		row := map[string]string{}
		for i, h := range recs[0] {
			row[h] = rec[i]
		}
		rows = append(rows, row)
	}
	return recs[0], rows
}

var _ = Describe("the CBA indicators fixtures", Label("fixtures"), func() {
	const routesFile = "../../fixtures/cba/routes.yaml"
	var srv *upstream.Server

	BeforeEach(func() {
		rs, err := upstream.Load(routesFile)
		Expect(err).NotTo(HaveOccurred())
		srv, err = upstream.Start(rs)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(srv.Close)
	})

	// geocode returns the place's coordinates as the agent writes them into URLs.
	geocode := func(p cbaPlace) (lat, lon string) {
		resp, body := fetch(srv.URL(), cbaGeocodeQuery(p.name))
		ExpectWithOffset(1, resp.StatusCode).To(Equal(http.StatusOK))
		ExpectWithOffset(1, resp.Header.Get(upstream.LatencyHeader)).To(Equal("80ms"))
		m := decode(body)
		ExpectWithOffset(1, keysOf(m)).To(Equal([]string{"generationtime_ms", "results"}))
		results := m["results"].([]any)
		ExpectWithOffset(1, results).To(HaveLen(1))
		r := results[0].(map[string]any)
		ExpectWithOffset(1, keysOf(r)).To(Equal(sorted("id", "name", "latitude", "longitude", "elevation",
			"feature_code", "country_code", "country", "timezone", "admin1")))
		ExpectWithOffset(1, r["name"]).To(Equal(p.name))
		ExpectWithOffset(1, r["country"]).To(Equal(p.country))
		return num(r["latitude"].(float64)), num(r["longitude"].(float64))
	}

	It("geocodes every place to the README's coordinates", func() {
		for _, p := range cbaPlaces {
			By(p.name)
			lat, lon := geocode(p)
			Expect(lat).To(Equal(p.lat))
			Expect(lon).To(Equal(p.lon))
		}
	})

	It("answers an unknown place without a results key", func() {
		resp, body := fetch(srv.URL(), cbaGeocodeQuery("Atlantis"))
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("80ms"))
		Expect(decode(body)).To(Equal(map[string]any{"generationtime_ms": 0.4}))
	})

	It("serves the current weather of every place in the real shape", func() {
		for _, p := range cbaPlaces {
			By(p.name)
			lat, lon := geocode(p)
			resp, body := fetch(srv.URL(), cbaCurrentQuery(lat, lon))
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("150ms"))
			m := decode(body)
			Expect(keysOf(m)).To(Equal(sorted("latitude", "longitude", "generationtime_ms", "utc_offset_seconds",
				"timezone", "timezone_abbreviation", "elevation", "current_units", "current")))
			fields := sorted(append(strings.Split(cbaCurrent, ","), "time", "interval")...)
			units := m["current_units"].(map[string]any)
			Expect(keysOf(units)).To(Equal(fields))
			Expect(units).To(HaveKeyWithValue("temperature_2m", "°C"))
			cur := m["current"].(map[string]any)
			Expect(keysOf(cur)).To(Equal(fields))
			Expect(cur["time"]).To(MatchRegexp(`^2025-03-1[34]T\d\d:00$`))
			Expect(cur["interval"]).To(Equal(900.0))
			Expect(cur["temperature_2m"]).To(Equal(p.tempC))
			Expect(cur["relative_humidity_2m"]).To(BeNumerically("<=", 100))
		}
	})

	It("does not answer the current weather of Atlantis", func() {
		resp, _ := fetch(srv.URL(), cbaCurrentQuery("0", "0"))
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
	})

	It("serves a 7-day forecast for Nairobi, N'Djamena and Lima only", func() {
		for _, p := range cbaPlaces {
			By(p.name)
			lat, lon := geocode(p)
			resp, body := fetch(srv.URL(), cbaForecastQuery(lat, lon))
			switch p.name {
			case "Nairobi", "N'Djamena", "Lima":
			default:
				Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
				continue
			}
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("150ms"))
			m := decode(body)
			Expect(m).NotTo(HaveKey("current"))
			fields := sorted(append(strings.Split(cbaDaily, ","), "time")...)
			Expect(keysOf(m["daily_units"].(map[string]any))).To(Equal(fields))
			daily := m["daily"].(map[string]any)
			Expect(keysOf(daily)).To(Equal(fields))
			for _, k := range fields {
				Expect(daily[k]).To(HaveLen(7), k)
			}
			Expect(daily["time"].([]any)[0]).To(Equal("2025-03-14"))
			Expect(daily["time"].([]any)[6]).To(Equal("2025-03-20"))
			for i, hi := range daily["temperature_2m_max"].([]any) {
				Expect(hi).To(BeNumerically(">", daily["temperature_2m_min"].([]any)[i]))
			}
		}
	})

	DescribeTable("serves 30 years of daily climate",
		func(name string, annualMM, meanC float64) {
			var p cbaPlace
			for _, q := range cbaPlaces {
				if q.name == name {
					p = q
				}
			}
			lat, lon := geocode(p)
			resp, body := fetch(srv.URL(), cbaClimateQuery(lat, lon))
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("600ms"))
			Expect(len(body)).To(BeNumerically("~", 350_000, 50_000))
			m := decode(body)
			fields := sorted(append(strings.Split(cbaNormals, ","), "time")...)
			Expect(keysOf(m["daily_units"].(map[string]any))).To(Equal(fields))
			var daily map[string][]json.RawMessage
			raw, err := json.Marshal(m["daily"])
			Expect(err).NotTo(HaveOccurred())
			Expect(json.Unmarshal(raw, &daily)).To(Succeed())
			Expect(keysOf(m["daily"].(map[string]any))).To(Equal(fields))
			for _, k := range fields {
				Expect(daily[k]).To(HaveLen(10_958), k)
			}
			Expect(string(daily["time"][0])).To(Equal(`"1991-01-01"`))
			Expect(string(daily["time"][10_957])).To(Equal(`"2020-12-31"`))

			values := func(k string) []float64 {
				out := make([]float64, len(daily[k]))
				for i, r := range daily[k] {
					Expect(json.Unmarshal(r, &out[i])).To(Succeed())
				}
				return out
			}
			mean, hi, lo, pr := values("temperature_2m_mean"), values("temperature_2m_max"),
				values("temperature_2m_min"), values("precipitation_sum")
			sumT, sumP := 0.0, 0.0
			for i := range mean {
				Expect(hi[i]).To(BeNumerically(">", lo[i]))
				Expect(mean[i]).To(BeNumerically("~", (hi[i]+lo[i])/2, 0.11))
				Expect(pr[i]).To(BeNumerically(">=", 0))
				sumT += mean[i]
				sumP += pr[i]
			}
			Expect(math.Round(sumP/30*10)/10).To(Equal(annualMM), "the README's annual precipitation")
			Expect(math.Round(sumT/float64(len(mean))*100)/100).To(Equal(meanC), "the README's mean temperature")
		},
		Entry("Nairobi", "Nairobi", 871.9, 18.86),
		Entry("N'Djamena", "N'Djamena", 571.3, 28.56),
	)

	It("serves SoilGrids layers for four places and a 503 for Kisumu", func() {
		want := map[string][3]any{ // d_factor, mapped_units, target_units
			"soc": {10.0, "dg/kg", "g/kg"}, "clay": {10.0, "g/kg", "%"}, "sand": {10.0, "g/kg", "%"},
			"phh2o": {10.0, "pH*10", "-"}, "bdod": {100.0, "cg/cm³", "kg/dm³"}, "nitrogen": {100.0, "cg/kg", "g/kg"},
		}
		for _, p := range cbaPlaces {
			By(p.name)
			lat, lon := geocode(p)
			resp, body := fetch(srv.URL(), cbaSoilQuery(lat, lon))
			switch p.name {
			case "Kisumu":
				Expect(resp.StatusCode).To(Equal(http.StatusServiceUnavailable))
				Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("60ms"))
				Expect(decode(body)).To(Equal(map[string]any{"detail": "Service temporarily unavailable"}))
				continue
			case "Lima":
				Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
				continue
			}
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("900ms"))
			m := decode(body)
			Expect(keysOf(m)).To(Equal([]string{"geometry", "properties", "query_time_s", "type"}))
			Expect(m["type"]).To(Equal("Feature"))
			coords := m["geometry"].(map[string]any)["coordinates"].([]any)
			Expect([]string{num(coords[0].(float64)), num(coords[1].(float64))}).To(Equal([]string{lon, lat}))
			layers := m["properties"].(map[string]any)["layers"].([]any)
			Expect(layers).To(HaveLen(6))
			soc := 0.0
			for _, l := range layers {
				layer := l.(map[string]any)
				name := layer["name"].(string)
				Expect(want).To(HaveKey(name))
				um := layer["unit_measure"].(map[string]any)
				Expect([3]any{um["d_factor"], um["mapped_units"], um["target_units"]}).To(Equal(want[name]), name)
				depths := layer["depths"].([]any)
				Expect(depths).To(HaveLen(3), name)
				for i, label := range []string{"0-5cm", "5-15cm", "15-30cm"} {
					d := depths[i].(map[string]any)
					Expect(d["label"]).To(Equal(label))
					Expect(d["range"]).To(HaveKeyWithValue("unit_depth", "cm"))
					mean := d["values"].(map[string]any)["mean"].(float64)
					Expect(mean).To(BeNumerically(">", 0))
					if name == "soc" {
						soc += mean / um["d_factor"].(float64) / 3
					}
				}
			}
			Expect(soc).To(BeNumerically("~", p.soc, 1e-9), "the README's 0-30 cm SOC")
		}
	})

	It("holds a knowledge base with the workbook's column structure", func() {
		principles := []string{"p1_natural_environment", "p2_social_wellbeing", "p3_economic_prosperity",
			"p4_diversity", "p5_connectivity", "p6_adaptive_capacity", "p7_harmony"}
		head, inds := cbaCSV("indicators.csv")
		Expect(head).To(Equal(append(append([]string{"id", "component", "class", "indicator", "unit",
			"field_methods", "lab_methods", "remote_sensing", "participatory", "audits"}, principles...), "criteria")))
		Expect(len(inds)).To(BeNumerically(">=", 45))

		_, crit := cbaCSV("principles.csv")
		Expect(crit).To(HaveLen(22))
		criteria := map[string]bool{}
		for _, c := range crit {
			criteria[c["criterion_id"]] = true
		}

		classes := map[string]int{}
		for i, r := range inds {
			Expect(r["id"]).To(Equal(strconv.Itoa(i + 1)))
			Expect(r["component"]).To(BeElementOf("Biotic", "Abiotic", "Socio-economic"))
			classes[r["class"]]++
			for _, k := range append([]string{"field_methods", "lab_methods", "remote_sensing", "participatory", "audits"}, principles...) {
				Expect(r[k]).To(BeElementOf("x", "(x)", ""), k)
			}
			for _, c := range strings.Split(r["criteria"], ";") {
				Expect(criteria).To(HaveKey(c), r["id"])
				Expect(r[principles[c[0]-'1']]).NotTo(BeEmpty(), "indicator %s: criterion %s without its principle", r["id"], c)
			}
		}
		Expect(len(classes)).To(BeNumerically(">=", 12))

		head, methods := cbaCSV("methods.csv")
		Expect(head).To(Equal([]string{"id", "indicator_id", "method_general", "method_specific", "accuracy",
			"ease_of_use", "cost", "notes", "doi"}))
		Expect(len(methods)).To(BeNumerically(">=", 130))
		per := map[string]int{}
		for i, m := range methods {
			Expect(m["id"]).To(Equal(strconv.Itoa(i + 1)))
			Expect(m["accuracy"]).To(BeElementOf("High", "Medium-High", "Medium", "Low"))
			Expect(m["ease_of_use"]).To(BeElementOf("High", "Medium", "Low"))
			Expect(m["cost"]).To(BeElementOf("High", "Medium", "Low"))
			per[m["indicator_id"]]++
		}
		Expect(per).To(HaveLen(len(inds)))
		for id, n := range per {
			Expect(n).To(BeNumerically(">=", 2), id)
			Expect(n).To(BeNumerically("<=", 5), id)
		}
	})
})
