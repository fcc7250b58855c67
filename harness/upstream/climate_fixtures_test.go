package upstream_test

import (
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/upstream"
)

// The inventories the Climate Advisor scenarios name; README.md lists them all.
const (
	osloID    = "4701cd10-470a-526d-a771-c9e03a1b189f"
	limaID    = "532804f9-4d68-5a1c-9f67-8f23386237d9"
	newYorkID = "384a3c8f-0234-5f82-a359-8677faa4a4f4"
)

// call sends a request to the stub with the agent's start token unless
// headers give another Authorization, and returns the decoded JSON body.
func call(base, method, target, body string, headers ...string) (*http.Response, []byte) {
	req, err := http.NewRequest(method, base+target, strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Authorization", "Bearer tok-start")
	req.Header.Set("X-Service-Name", "climate-advisor")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return resp, b
}

func decode(b []byte) map[string]any {
	var m map[string]any
	Expect(json.Unmarshal(b, &m)).To(Succeed())
	return m
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sorted returns its arguments sorted, to compare with keysOf.
func sorted(ks ...string) []string {
	sort.Strings(ks)
	return ks
}

var inventoryColumns = []string{"inventoryId", "inventoryName", "year", "totalEmissions", "cityId",
	"totalCountryEmissions", "isPublic", "publishedAt", "inventoryType", "globalWarmingPotentialType",
	"created", "lastUpdated", "city"}

// number parses one of the Global API's numbers, which it sends as strings.
func number(v any) float64 {
	s, ok := v.(string)
	ExpectWithOffset(1, ok).To(BeTrue(), "want a number as a string, got %#v", v)
	f, err := strconv.ParseFloat(s, 64)
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return f
}

// coordinates counts the points of a GeoJSON MultiPolygon and checks that
// every ring is closed.
func coordinates(shape map[string]any) int {
	Expect(shape["type"]).To(Equal("MultiPolygon"))
	n := 0
	for _, poly := range shape["coordinates"].([]any) {
		for _, ring := range poly.([]any) {
			pts := ring.([]any)
			Expect(len(pts)).To(BeNumerically(">=", 4))
			Expect(pts[0]).To(Equal(pts[len(pts)-1]))
			n += len(pts)
		}
	}
	return n
}

var _ = Describe("the Climate Advisor fixtures", Label("fixtures"), func() {
	const routesFile = "../../fixtures/climate/routes.yaml"
	var srv *upstream.Server

	BeforeEach(func() {
		rs, err := upstream.Load(routesFile)
		Expect(err).NotTo(HaveOccurred())
		srv, err = upstream.Start(rs)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(srv.Close)
	})

	listing := func() []any {
		resp, body := call(srv.URL(), http.MethodGet, "/api/v1/user/inventories/", "")
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Header.Get("Content-Type")).To(Equal("application/json"))
		Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("180ms"))
		m := decode(body)
		Expect(keysOf(m)).To(Equal([]string{"data"}))
		return m["data"].([]any)
	}

	It("lists the user's inventories with the real columns and the name traps", func() {
		rows := listing()
		Expect(rows).To(HaveLen(13))
		names := map[string][]float64{}
		ids := map[string]bool{}
		for _, r := range rows {
			inv := r.(map[string]any)
			Expect(keysOf(inv)).To(Equal(sorted(inventoryColumns...)))
			Expect(inv["inventoryType"]).To(BeElementOf("gpc_basic", "gpc_basic_plus"))
			Expect(inv["globalWarmingPotentialType"]).To(BeElementOf("ar5", "ar6"))
			Expect(inv["created"]).To(MatchRegexp(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`))
			city := inv["city"].(map[string]any)
			Expect(keysOf(city)).To(Equal([]string{"locode", "name"}))
			names[city["name"].(string)] = append(names[city["name"].(string)], inv["year"].(float64))
			ids[inv["inventoryId"].(string)] = true
		}
		Expect(ids).To(HaveLen(13))
		Expect(names).To(HaveKeyWithValue("New York", ConsistOf(2021.0, 2022.0, 2023.0)))
		Expect(names).To(HaveKey("Santa Fe"))
		Expect(names).To(HaveKey("SANTA FE"))
		Expect(names).To(HaveKey("São Paulo"))
		Expect(names).To(HaveKey("Washington (D.C.)"))
		Expect(ids).To(HaveKey(osloID))
		Expect(ids).To(HaveKey(limaID))
	})

	It("serves every listed inventory with its city, shape, project and organization", func() {
		for _, r := range listing() {
			row := r.(map[string]any)
			id := row["inventoryId"].(string)
			By(id)
			resp, body := call(srv.URL(), http.MethodGet, "/api/v1/inventory/"+id, "", "Authorization", "Bearer tok-fresh1")
			if id == limaID {
				Expect(resp.StatusCode).To(Equal(http.StatusInternalServerError))
				continue
			}
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("220ms"))
			Expect(len(body)).To(BeNumerically(">=", 50_000))
			Expect(len(body)).To(BeNumerically("<=", 150_000))
			inv := decode(body)["data"].(map[string]any)
			Expect(keysOf(inv)).To(Equal(sorted(inventoryColumns...)))
			for _, k := range []string{"inventoryId", "inventoryName", "year", "inventoryType", "globalWarmingPotentialType", "cityId"} {
				Expect(inv[k]).To(Equal(row[k]), k)
			}
			Expect(inv["totalEmissions"]).To(BeNumerically(">", 1e6))

			city := inv["city"].(map[string]any)
			Expect(keysOf(city)).To(Equal(sorted("cityId", "locode", "name", "shape", "country", "region",
				"countryLocode", "regionLocode", "area", "created", "lastUpdated", "projectId", "project")))
			listed := row["city"].(map[string]any)
			Expect(city["name"]).To(Equal(listed["name"]))
			Expect(city["locode"]).To(Equal(listed["locode"]))
			Expect(city["cityId"]).To(Equal(inv["cityId"]))
			Expect(coordinates(city["shape"].(map[string]any))).To(BeNumerically("~", 4000, 2000))

			project := city["project"].(map[string]any)
			Expect(keysOf(project)).To(Equal(sorted("projectId", "name", "cityCountLimit", "description",
				"organizationId", "created", "lastUpdated", "organization")))
			Expect(project["projectId"]).To(Equal(city["projectId"]))
			org := project["organization"].(map[string]any)
			Expect(keysOf(org)).To(Equal(sorted("organizationId", "name", "contactEmail", "created",
				"lastUpdated", "themeId", "logoUrl", "active")))
			Expect(org["organizationId"]).To(Equal(project["organizationId"]))
		}
	})

	It("refuses Oslo with the start token and serves it with the refreshed one", func() {
		resp, body := call(srv.URL(), http.MethodGet, "/api/v1/inventory/"+osloID, "")
		Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized))
		Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("60ms"))
		Expect(decode(body)).To(Equal(map[string]any{"error": "token expired"}))

		resp, body = call(srv.URL(), http.MethodPost, "/api/v1/internal/ca/user-token", `{"user_id": "user-123"}`,
			"X-CA-Service-Key", "test-key")
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("120ms"))
		Expect(decode(body)).To(Equal(map[string]any{"access_token": "tok-fresh1", "expires_in": 3600.0}))

		resp, body = call(srv.URL(), http.MethodGet, "/api/v1/inventory/"+osloID, "", "Authorization", "Bearer tok-fresh1")
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(decode(body)["data"]).To(HaveKeyWithValue("inventoryName", "Oslo 2021"))

		resp, body = call(srv.URL(), http.MethodGet, "/api/v1/inventory/"+osloID, "", "Authorization", "Bearer tok-other")
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		Expect(string(body)).To(ContainSubstring("wants header Authorization: Bearer tok-start (got another value)"))
		Expect(string(body)).NotTo(ContainSubstring("tok-other"))
	})

	It("answers Lima 2022 with an upstream error", func() {
		resp, body := call(srv.URL(), http.MethodGet, "/api/v1/inventory/"+limaID, "")
		Expect(resp.StatusCode).To(Equal(http.StatusInternalServerError))
		Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("60ms"))
		Expect(decode(body)).To(Equal(map[string]any{"error": "internal error"}))
	})

	It("keeps the trailing slash of the data source route", func() {
		resp, _ := call(srv.URL(), http.MethodGet, "/api/v1/datasource/"+newYorkID, "")
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
	})

	DescribeTable("serves the data sources of an inventory in the real envelope",
		func(id string, ok, removed, failed int, co2eq float64) {
			resp, body := call(srv.URL(), http.MethodGet, "/api/v1/datasource/"+id+"/", "")
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			Expect(resp.Header.Get(upstream.LatencyHeader)).To(Equal("900ms"))
			if ok > 0 {
				Expect(len(body)).To(BeNumerically("~", 325_000, 175_000))
			}
			m := decode(body)
			Expect(keysOf(m)).To(Equal([]string{"data", "failedSources", "removedSources"}))
			Expect(m["data"]).To(HaveLen(ok))
			Expect(m["removedSources"]).To(HaveLen(removed))
			Expect(m["failedSources"]).To(HaveLen(failed))

			sum, notation := 0.0, 0
			for _, e := range m["data"].([]any) {
				entry := e.(map[string]any)
				Expect(keysOf(entry)).To(Equal([]string{"data", "source"}))
				src := entry["source"].(map[string]any)
				Expect(src["datasetName"]).To(HaveKeyWithValue("en", Not(BeEmpty())))
				Expect(src["datasetDescription"]).To(HaveKeyWithValue("en", Not(BeEmpty())))
				Expect(src["retrievalMethod"]).To(BeElementOf("global_api", "global_api_downscaled_by_population",
					"global_api_downscaled_by_region_population"))
				Expect(src).To(HaveKey("inventoryValues"))
				Expect(src["scopes"]).NotTo(BeEmpty())
				Expect(src["publisher"]).To(HaveKey("name"))
				Expect(src["subSector"]).To(HaveKey("referenceNumber"))

				d := entry["data"].(map[string]any)
				Expect(keysOf(d)).To(Equal([]string{"issue", "records", "scaleFactor", "totals"}))
				Expect(d["scaleFactor"]).To(BeNumerically(">", 0))
				em := d["totals"].(map[string]any)["emissions"].(map[string]any)
				Expect(keysOf(em)).To(Equal(sorted("co2_mass", "co2_co2eq", "ch4_mass", "ch4_co2eq_100yr",
					"ch4_co2eq_20yr", "n2o_mass", "n2o_co2eq_100yr", "n2o_co2eq_20yr", "co2eq_100yr", "co2eq_20yr", "gpc_quality")))
				total := number(em["co2eq_100yr"])
				sum += total
				records := d["records"].([]any)
				if d["issue"] != nil {
					Expect(d["issue"]).To(Equal("notation key NE: not estimated"))
					Expect(records).To(BeEmpty())
					Expect(total).To(BeZero())
					notation++
					continue
				}
				Expect(len(records)).To(BeNumerically("~", 22, 17))
				Expect(number(em["co2_co2eq"]) + number(em["ch4_co2eq_100yr"]) + number(em["n2o_co2eq_100yr"])).To(Equal(total))
				fromRecords := 0.0
				for _, rec := range records {
					r := rec.(map[string]any)
					Expect(r).To(HaveKey("methodology_name"))
					Expect(r).To(HaveKey("emissions_geometry"))
					Expect(r).To(HaveKey("activity_subcategory_type"))
					for _, g := range r["gases"].([]any) {
						fromRecords += number(g.(map[string]any)["emissions_value_100yr"])
					}
				}
				Expect(fromRecords).To(Equal(total))
			}
			Expect(sum).To(Equal(co2eq), "the README's sum")
			if ok > 0 {
				Expect(notation).To(Equal(2))
			}
			for _, e := range m["removedSources"].([]any) {
				Expect(e).To(HaveKeyWithValue("reason", Not(BeEmpty())))
				Expect(e).To(HaveKey("source"))
			}
			for _, e := range m["failedSources"].([]any) {
				Expect(e).To(HaveKeyWithValue("error", Not(BeEmpty())))
				Expect(e).To(HaveKey("source"))
			}
		},
		Entry("New York 2023", newYorkID, 31, 6, 4, 207_035_012.0),
		Entry("Rio de Janeiro 2023", "fed7e8c8-46a4-5164-95b3-c2141d343eaf", 26, 5, 3, 142_584_344.0),
		Entry("São Paulo 2022", "8aa4a811-1de8-52f6-8142-d9ccda81159a", 22, 7, 5, 26_568_310.0),
		Entry("Cape Town 2023", "4847be5c-bddb-530e-8d7e-eed6f70312eb", 30, 4, 2, 77_555_242.0),
		Entry("Tokyo 2020: every source removed or failed", "b1ba9d2d-9197-5a62-a24e-1bf8744b5cce", 0, 9, 7, 0.0),
	)
})
