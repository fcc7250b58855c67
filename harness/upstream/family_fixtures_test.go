package upstream_test

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/upstream"
)

// haState is one row of a Home Assistant REST history answer.
type haState struct {
	EntityID    string         `json:"entity_id"`
	State       string         `json:"state"`
	Attributes  map[string]any `json:"attributes"`
	LastChanged string         `json:"last_changed"`
	LastUpdated string         `json:"last_updated"`
}

// The windows the family assistant scenarios ask for; the clock is haNow.
const (
	haNow     = "2026-03-01T00:00:00+00:00"
	haPoolIDs = "sensor.pool_temperature"
	haAllIDs  = "sensor.pool_temperature,sensor.living_room_temperature,sensor.outdoor_temperature,sensor.pool_ph"
)

// haHistory asks the stub for a history the way the agent does: the start time
// is a path segment escaped with url.PathEscape, the rest a url.Values query.
func haHistory(base, start, end, ids string) (*http.Response, []byte) {
	q := url.Values{"end_time": {end}, "filter_entity_id": {ids}}
	return haGet(base, "/api/history/period/"+url.PathEscape(start)+"?"+q.Encode())
}

func haGet(base, target string) (*http.Response, []byte) {
	req, err := http.NewRequest(http.MethodGet, base+target, nil)
	ExpectWithOffset(2, err).NotTo(HaveOccurred())
	req.Header.Set("Authorization", "Bearer ha-token")
	resp, err := http.DefaultClient.Do(req)
	ExpectWithOffset(2, err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	ExpectWithOffset(2, err).NotTo(HaveOccurred())
	return resp, body
}

// haLists decodes a history answer, checking that every row has exactly the
// keys of the real recordings.
func haLists(body []byte) [][]haState {
	var raw [][]map[string]json.RawMessage
	ExpectWithOffset(1, json.Unmarshal(body, &raw)).To(Succeed())
	for _, l := range raw {
		for _, row := range l {
			keys := make([]string, 0, len(row))
			for k := range row {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			ExpectWithOffset(1, keys).To(Equal([]string{"attributes", "entity_id", "last_changed", "last_updated", "state"}))
		}
	}
	var lists [][]haState
	ExpectWithOffset(1, json.Unmarshal(body, &lists)).To(Succeed())
	return lists
}

// haSummary is what the README says about one entity's list.
type haSummary struct {
	Entity            string
	States, Numeric   int
	Other             map[string]int
	First, Last       string
	Min, Max          float64
	FirstSt, LastSt   string
	Unit, DeviceClass string
}

// summarize checks one entity's list (one entity, time order, the start state
// stamped with the window's start, the rest inside the window with
// microseconds, last_updated equal to last_changed) and sums it up.
func summarize(rows []haState, start, end string) haSummary {
	Expect(rows).NotTo(BeEmpty())
	t0, err := time.Parse(time.RFC3339, start)
	Expect(err).NotTo(HaveOccurred())
	t1, err := time.Parse(time.RFC3339, end)
	Expect(err).NotTo(HaveOccurred())
	s := haSummary{Entity: rows[0].EntityID, States: len(rows), Other: map[string]int{},
		First: rows[0].LastChanged, Last: rows[len(rows)-1].LastChanged,
		FirstSt: rows[0].State, LastSt: rows[len(rows)-1].State, Min: 1e9, Max: -1e9}
	s.Unit, _ = rows[0].Attributes["unit_of_measurement"].(string)
	s.DeviceClass, _ = rows[0].Attributes["device_class"].(string)
	Expect(rows[0].LastChanged).To(Equal(start), "the state in effect at the start is stamped with the start")
	prev := t0
	for i, r := range rows {
		Expect(r.EntityID).To(Equal(s.Entity))
		Expect(r.LastUpdated).To(Equal(r.LastChanged))
		Expect(r.Attributes).To(HaveKey("friendly_name"))
		at, err := time.Parse(time.RFC3339Nano, r.LastChanged)
		Expect(err).NotTo(HaveOccurred())
		if i > 0 {
			Expect(r.LastChanged).To(MatchRegexp(`^2026-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$`))
			Expect(at.After(prev)).To(BeTrue(), "row %d is not after row %d", i, i-1)
			Expect(r.State).NotTo(Equal(rows[i-1].State), "row %d repeats the state", i)
		}
		Expect(at.Before(t1)).To(BeTrue())
		prev = at
		if v, err := strconv.ParseFloat(r.State, 64); err == nil {
			s.Numeric++
			s.Min, s.Max = min(s.Min, v), max(s.Max, v)
		} else {
			s.Other[r.State]++
		}
	}
	return s
}

var _ = Describe("the family assistant fixtures", Label("fixtures"), func() {
	const routesFile = "../../fixtures/family/routes.yaml"
	var srv *upstream.Server

	BeforeEach(func() {
		rs, err := upstream.Load(routesFile)
		Expect(err).NotTo(HaveOccurred())
		srv, err = upstream.Start(rs)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(srv.Close)
	})

	pool5d := func() ([]byte, []haState) {
		resp, body := haHistory(srv.URL(), "2026-02-24T00:00:00+00:00", haNow, haPoolIDs)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Header.Get("Content-Type")).To(Equal("application/json"))
		Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("250ms"))
		lists := haLists(body)
		Expect(lists).To(HaveLen(1))
		return body, lists[0]
	}

	It("serves 5 days of pool temperature: 367 states, about 199 KB", func() {
		body, rows := pool5d()
		Expect(len(body)).To(BeNumerically(">=", 190_000))
		Expect(len(body)).To(BeNumerically("<=", 210_000))
		Expect(body).To(HaveLen(199_141), "the README's size")
		s := summarize(rows, "2026-02-24T00:00:00+00:00", haNow)
		Expect(s).To(Equal(haSummary{Entity: "sensor.pool_temperature", States: 367, Numeric: 360,
			Other: map[string]int{"unavailable": 4, "unknown": 3},
			First: "2026-02-24T00:00:00+00:00", Last: "2026-02-28T23:42:30.507847+00:00",
			Min: 24.2, Max: 28.7, FirstSt: "25.8", LastSt: "25.6", Unit: "°C", DeviceClass: "temperature"}))
		for _, r := range rows {
			Expect(r.Attributes).To(HaveKeyWithValue("friendly_name", "Pool temperature"))
			Expect(r.Attributes).To(HaveKeyWithValue("state_class", "measurement"))
			if r.State == "unavailable" {
				// an unavailable entity keeps only its fixed attributes
				Expect(r.Attributes).NotTo(HaveKey("signal_strength"))
			} else {
				Expect(r.Attributes).To(HaveKey("signal_strength"))
				Expect(r.Attributes).To(HaveKeyWithValue("pump", BeElementOf("running", "off")))
			}
		}
	})

	It("serves 24 hours of living room temperature small enough to inline", func() {
		resp, body := haHistory(srv.URL(), "2026-02-28T00:00:00+00:00", haNow, "sensor.living_room_temperature")
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("250ms"))
		Expect(body).To(HaveLen(9_869))
		Expect(len(body)).To(BeNumerically("<", 10*1024))
		lists := haLists(body)
		Expect(lists).To(HaveLen(1))
		s := summarize(lists[0], "2026-02-28T00:00:00+00:00", haNow)
		Expect(s).To(Equal(haSummary{Entity: "sensor.living_room_temperature", States: 40, Numeric: 40,
			Other: map[string]int{}, First: "2026-02-28T00:00:00+00:00", Last: "2026-02-28T23:26:45.154207+00:00",
			Min: 21.2, Max: 24.2, FirstSt: "22.5", LastSt: "22.5", Unit: "°C"}))
	})

	DescribeTable("answers an empty list where Home Assistant has nothing",
		func(start, end, ids string) {
			resp, body := haHistory(srv.URL(), start, end, ids)
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			Expect(resp.Header.Get("Content-Type")).To(Equal("application/json"))
			Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("40ms"))
			Expect(string(body)).To(Equal("[]"))
			Expect(haLists(body)).To(BeEmpty())
		},
		Entry("pool temperature in early January", "2026-01-01T00:00:00+00:00", "2026-01-06T00:00:00+00:00", haPoolIDs),
		Entry("an entity it does not have", "2026-02-24T00:00:00+00:00", haNow, "sensor.garage_temperature"),
	)

	It("serves 7 days of four sensors as four lists in the order asked for", func() {
		resp, body := haHistory(srv.URL(), "2026-02-22T00:00:00+00:00", haNow, haAllIDs)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("400ms"))
		Expect(len(body)).To(BeNumerically(">", 300_000))
		Expect(body).To(HaveLen(634_029))
		lists := haLists(body)
		Expect(lists).To(HaveLen(4))
		var got []haSummary
		for _, l := range lists {
			got = append(got, summarize(l, "2026-02-22T00:00:00+00:00", haNow))
		}
		Expect(got).To(Equal([]haSummary{
			{Entity: "sensor.pool_temperature", States: 514, Numeric: 506,
				Other: map[string]int{"unavailable": 5, "unknown": 3},
				First: "2026-02-22T00:00:00+00:00", Last: "2026-02-28T23:42:30.507847+00:00",
				Min: 24.2, Max: 28.7, FirstSt: "25.6", LastSt: "25.6", Unit: "°C", DeviceClass: "temperature"},
			{Entity: "sensor.living_room_temperature", States: 281, Numeric: 281, Other: map[string]int{},
				First: "2026-02-22T00:00:00+00:00", Last: "2026-02-28T23:26:45.154207+00:00",
				Min: 21.1, Max: 24.2, FirstSt: "22.4", LastSt: "22.5", Unit: "°C"},
			{Entity: "sensor.outdoor_temperature", States: 656, Numeric: 655, Other: map[string]int{"unavailable": 1},
				First: "2026-02-22T00:00:00+00:00", Last: "2026-02-28T23:47:52.843223+00:00",
				Min: 17.2, Max: 32.4, FirstSt: "26.7", LastSt: "25.1", Unit: "°C", DeviceClass: "temperature"},
			{Entity: "sensor.pool_ph", States: 252, Numeric: 252, Other: map[string]int{},
				First: "2026-02-22T00:00:00+00:00", Last: "2026-02-28T23:29:05.585654+00:00",
				Min: 7.24, Max: 7.49, FirstSt: "7.33", LastSt: "7.44", DeviceClass: "ph"},
		}))

		// the week's pool list agrees with the 5-day answer after its start state
		_, five := pool5d()
		var after []haState
		for _, r := range lists[0] {
			if r.LastChanged > "2026-02-24T00:00:00+00:00" {
				after = append(after, r)
			}
		}
		Expect(after).To(Equal(five[1:]))
	})

	It("matches the start time however the path escapes it, but only in +00:00 form", func() {
		q := url.Values{"end_time": {haNow}, "filter_entity_id": {haPoolIDs}}.Encode()
		resp, body := haGet(srv.URL(), "/api/history/period/2026-02-24T00%3A00%3A00%2B00%3A00?"+q)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(body).To(HaveLen(199_141))

		resp, body = haGet(srv.URL(), "/api/history/period/2026-02-24T00:00:00Z?"+q)
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		Expect(string(body)).To(ContainSubstring("no route in " + routesFile + " matches; add one"))
	})

	It("wants the entity ids in the order of the route", func() {
		resp, _ := haHistory(srv.URL(), "2026-02-22T00:00:00+00:00", haNow,
			"sensor.living_room_temperature,sensor.pool_temperature,sensor.outdoor_temperature,sensor.pool_ph")
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		resp, body := haHistory(srv.URL(), "2026-02-24T00:00:00+00:00", "2026-03-01T00:00:00Z", haPoolIDs)
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		Expect(string(body)).To(ContainSubstring("end_time=2026-03-01T00:00:00+00:00 (got 2026-03-01T00:00:00Z)"))
	})

	Describe("the attachments", func() {
		const dir = "../../fixtures/family/attachments"
		read := func(name string) []byte {
			b, err := os.ReadFile(filepath.Join(dir, name))
			Expect(err).NotTo(HaveOccurred())
			return b
		}
		readCSV := func(name string) [][]string {
			recs, err := csv.NewReader(strings.NewReader(string(read(name)))).ReadAll()
			Expect(err).NotTo(HaveOccurred())
			return recs
		}

		It("has a small thermostat export of 30 readings", func() {
			b := read("thermostat-small.json")
			Expect(b).To(HaveLen(3_306))
			var rows []map[string]any
			Expect(json.Unmarshal(b, &rows)).To(Succeed())
			Expect(rows).To(HaveLen(30))
			Expect(keysOf(rows[0])).To(Equal([]string{"humidity", "hvac_action", "setpoint", "temperature", "time"}))
			Expect(rows[0]["time"]).To(Equal("2026-02-28T00:00:00+00:00"))
			Expect(rows[29]["time"]).To(Equal("2026-02-28T23:12:00+00:00"))
		})

		It("has energy usage below and above 10 KiB", func() {
			b := read("energy-usage.csv")
			Expect(b).To(HaveLen(1_394))
			recs := readCSV("energy-usage.csv")
			Expect(recs).To(HaveLen(1 + 60))
			Expect(recs[0]).To(Equal([]string{"date", "kwh", "cost"}))
			Expect(recs[1][0]).To(Equal("2025-12-31"))
			Expect(recs[60][0]).To(Equal("2026-02-28"))

			b = read("energy-usage-large.csv")
			Expect(b).To(HaveLen(29_501))
			recs = readCSV("energy-usage-large.csv")
			Expect(recs).To(HaveLen(1 + 900))
			Expect(recs[0]).To(Equal([]string{"date", "kwh", "cost", "tariff", "note"}))
			Expect(recs[1][0]).To(Equal("2023-09-13"))
			Expect(recs[900][0]).To(Equal("2026-02-28"))
			notes := 0
			for _, r := range recs[1:] {
				Expect(r[3]).To(BeElementOf("flat", "time-of-use", "ev-saver"))
				if r[4] != "" {
					notes++
				}
			}
			Expect(notes).To(Equal(24))
			// the small file is the last 60 days of the large one
			small := readCSV("energy-usage.csv")
			for i, r := range recs[len(recs)-60:] {
				Expect(small[1+i]).To(Equal(r[:3]))
			}
		})

		It("has a large JSON export cut off inside an object", func() {
			b := read("broken-large.json")
			Expect(b).To(HaveLen(15_929))
			Expect(json.Valid(b)).To(BeFalse())
			Expect(string(b)).To(HaveSuffix(`"temperature": 2`))
		})

		It("has a long plain-text maintenance log", func() {
			b := read("notes.txt")
			Expect(b).To(HaveLen(11_027))
			Expect(strings.Count(string(b), "\n")).To(Equal(195))
			Expect(string(b)).To(HavePrefix("HOUSEHOLD MAINTENANCE LOG\n"))
		})
	})
})
