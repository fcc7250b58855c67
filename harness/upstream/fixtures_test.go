package upstream_test

import (
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/upstream"
)

// ghrsstRow is one row of a GHRSST REST answer; land cells have nil values.
type ghrsstRow struct {
	Lon        float64  `json:"lon"`
	Lat        float64  `json:"lat"`
	Date       string   `json:"date"`
	SST        *float64 `json:"sst"`
	SSTAnomaly *float64 `json:"sst_anomaly"`
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// sample is the stride the GHRSST fixture MCP server asks for: about 400
// rows per box.
func sample(lon0, lat0, lon1, lat1 float64) int {
	cells := math.Round((lon1-lon0)/0.01) * math.Round((lat1-lat0)/0.01)
	return int(math.Ceil(math.Sqrt(cells / 400)))
}

// bboxQuery and pointQuery build the REST requests of the GHRSST fixture
// MCP server's tools, as the real tools send them (start, no end).
func bboxQuery(lon0, lat0, lon1, lat1 float64, date string) string {
	return "/api/ghrsst?lon0=" + num(lon0) + "&lat0=" + num(lat0) + "&lon1=" + num(lon1) + "&lat1=" + num(lat1) +
		"&start=" + date + "&append=sst,sst_anomaly&sample=" + strconv.Itoa(sample(lon0, lat0, lon1, lat1))
}

func pointQuery(lon, lat float64, date string) string {
	return "/api/ghrsst?lon0=" + num(lon) + "&lat0=" + num(lat) + "&start=" + date + "&append=sst,sst_anomaly"
}

func fetch(base, target string) (*http.Response, []byte) {
	resp, err := http.Get(base + target)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return resp, body
}

func meanOf(rows []ghrsstRow) (sst, anom float64, n int) {
	for _, r := range rows {
		if r.SST == nil {
			continue
		}
		sst += *r.SST
		anom += *r.SSTAnomaly
		n++
	}
	return sst / float64(n), anom / float64(n), n
}

var _ = Describe("the ODBchat fixtures", Label("fixtures"), func() {
	const routesFile = "../../fixtures/odbchat/routes.yaml"
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

	It("serves the Taiwan box for today as the agent asks for it", func() {
		resp, body := fetch(srv.URL(), bboxQuery(118, 20, 123.5, 26.5, "2025-11-06"))
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Header.Get("Content-Type")).To(Equal("application/json"))
		Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("140ms"))
		Expect(resp.Header.Get("X-Stride")).To(Equal("30"))

		var rows []ghrsstRow
		Expect(json.Unmarshal(body, &rows)).To(Succeed())
		Expect(rows).To(HaveLen(418))
		Expect(resp.Header.Get("X-Served-Rows")).To(Equal("418"))
		Expect(rows[0]).To(Equal(ghrsstRow{Lon: 118, Lat: 20, Date: "2025-11-06", SST: rows[0].SST, SSTAnomaly: rows[0].SSTAnomaly}))

		sst, anom, n := meanOf(rows)
		Expect(n).To(Equal(418 - 62)) // land cells are present, with nulls
		Expect(strconv.FormatFloat(sst, 'f', 2, 64)).To(Equal("26.40"))
		Expect(strconv.FormatFloat(anom, 'f', 2, 64)).To(Equal("0.21"))
	})

	It("serves a point on land as one row without values", func() {
		resp, body := fetch(srv.URL(), pointQuery(119.6, 23.6, "2025-11-06"))
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("90ms"))
		var rows []ghrsstRow
		Expect(json.Unmarshal(body, &rows)).To(Succeed())
		Expect(rows).To(Equal([]ghrsstRow{{Lon: 119.6, Lat: 23.6, Date: "2025-11-06"}}))
	})

	It("serves a point at sea with values", func() {
		resp, body := fetch(srv.URL(), pointQuery(121.7, 24, "2025-11-06"))
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		var rows []ghrsstRow
		Expect(json.Unmarshal(body, &rows)).To(Succeed())
		Expect(rows).To(HaveLen(1))
		Expect(rows[0].SST).NotTo(BeNil())
		Expect(*rows[0].SST).To(BeNumerically("~", 26.65, 0.001))
	})

	DescribeTable("serves the upstream's errors as text",
		func(target string, status int, body string) {
			resp, got := fetch(srv.URL(), target)
			Expect(resp.StatusCode).To(Equal(status))
			Expect(resp.Header.Get("Content-Type")).To(Equal("text/plain; charset=utf-8"))
			Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("60ms"))
			Expect(string(got)).To(Equal(body))
		},
		Entry("Hawai‘i today is not in yet", bboxQuery(-162.5, 18.5, -153.5, 23, "2025-11-06"),
			400, "Data not exist, available date is 2002-06-01/2025-11-05."),
		Entry("before the record", bboxQuery(118, 20, 123.5, 26.5, "1990-01-01"),
			400, "Data not exist, available date is 2002-06-01/2025-11-06."),
		Entry("too many points", bboxQuery(122, 24, 122.5, 24.5, "2025-11-06"),
			400, "Too many points (36000001). Increase 'sample' or shrink bbox (limit 1,000,000)."),
		Entry("no dates at all", pointQuery(130.5, 30.2, "2025-11-06"), 503, "No available dates."),
	)

	It("answers a request it has no fixture for with a 404", func() {
		resp, body := fetch(srv.URL(), pointQuery(121.7, 24, "2025-11-03"))
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		Expect(string(body)).To(ContainSubstring("no route in " + routesFile + " matches; add one"))
	})

	It("has, for every box it answers, the rows the agent's sample implies", func() {
		boxes := 0
		for _, r := range rs.Routes {
			if r.Status != http.StatusOK || r.Query["lon1"] == "" {
				continue
			}
			boxes++
			By(r.File)
			f := func(k string) float64 {
				v, err := strconv.ParseFloat(r.Query[k], 64)
				Expect(err).NotTo(HaveOccurred())
				return v
			}
			lon0, lat0, lon1, lat1 := f("lon0"), f("lat0"), f("lon1"), f("lat1")
			n := sample(lon0, lat0, lon1, lat1)
			Expect(r.Query["sample"]).To(Equal(strconv.Itoa(n)))
			Expect(r.Headers["X-Stride"]).To(Equal(strconv.Itoa(n)))

			q := url.Values{}
			for k, v := range r.Query {
				q.Set(k, v)
			}
			resp, body := fetch(srv.URL(), r.Path+"?"+q.Encode())
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			var rows []ghrsstRow
			Expect(json.Unmarshal(body, &rows)).To(Succeed())
			nx := int(math.Round((lon1-lon0)/0.01))/n + 1
			ny := int(math.Round((lat1-lat0)/0.01))/n + 1
			Expect(rows).To(HaveLen(nx * ny))
			Expect(r.Headers["X-Served-Rows"]).To(Equal(strconv.Itoa(nx * ny)))
			last := rows[len(rows)-1]
			Expect(last.Lon).To(BeNumerically("<=", lon1))
			Expect(last.Lat).To(BeNumerically("<=", lat1))
			_, _, sea := meanOf(rows)
			Expect(sea).To(BeNumerically(">", len(rows)/2))
			for _, row := range rows {
				Expect(row.Date).To(Equal(r.Query["start"]))
				Expect(row.SST == nil).To(Equal(row.SSTAnomaly == nil))
			}
		}
		Expect(boxes).To(Equal(10))
	})
})
