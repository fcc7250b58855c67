package climate_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/agenttest"
	"github.com/agentreplay/testbed/agents/climate"
)

// ours, none and seed are the suite's three variants (scenarios/climate.yaml).
var (
	ours = map[string]any{"trim": climate.TrimOurs, "top_k": 3}
	none = map[string]any{"trim": climate.TrimNone, "top_k": 5}
	seed = map[string]any{"trim": climate.TrimSeed, "top_k": 3}
)

// callTool has a scripted model call one tool and returns the reply and the
// tracer's report of the call; the model is not the stand-in, so this tests
// the tool code alone.
func callTool(w *world, variant map[string]any, name, arguments string) (climate.Reply, agenttest.ToolReport) {
	w.useModel(callOnce(name, arguments))
	reply := ask(w.agent(variant), "scripted")
	Expect(reply.Text).To(Equal("done"))
	Expect(reply.Tools).To(HaveLen(1))
	reports := w.tracer.Reports("")
	Expect(reports).To(HaveLen(1))
	Expect(reports[0].Name).To(Equal(name))
	Expect(reports[0].Args).To(MatchJSON(arguments))
	// The model is told exactly what the tracer saw.
	reqs := w.model.Requests()
	Expect(reqs).To(HaveLen(2))
	tool := toolMessages(reqs[1])
	Expect(tool).To(HaveLen(1))
	Expect(tool[0].ToolCallID).To(Equal("fake_1"))
	Expect(tool[0].Name).To(Equal(name))
	Expect(tool[0].Content).To(Equal(reports[0].Context))
	return reply, reports[0]
}

type found struct {
	City string
	Year int
}

var _ = Describe("city_inventory_search", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	DescribeTable("matches city names literally and case-insensitively, newest first",
		func(variant map[string]any, arguments string, want []found) {
			reply, rep := callTool(w, variant, climate.ToolCitySearch, arguments)
			Expect(reply.Tools[0].Success).To(BeTrue())
			Expect(rep.Err).NotTo(HaveOccurred())
			Expect(rep.Raw).To(Equal(fixture("inventories/user-inventories.json")))
			var got []found
			for _, inv := range listed(decodeEnvelope(rep.Context)) {
				got = append(got, found{inv.City.Name, inv.Year})
			}
			if len(want) == 0 {
				Expect(got).To(BeEmpty())
				Expect(rep.Context).To(Equal(`{"success":true,"data":{"data":[]}}`))
				return
			}
			Expect(got).To(Equal(want))
		},
		Entry("odd casing", ours, `{"city_name":"nEw YoRk"}`,
			[]found{{"New York", 2023}, {"New York", 2022}, {"New York", 2021}}),
		Entry("odd casing, untrimmed", none, `{"city_name":"nEw YoRk"}`,
			[]found{{"New York", 2023}, {"New York", 2022}, {"New York", 2021}}),
		Entry("a part of the name", ours, `{"city_name":"york"}`,
			[]found{{"New York", 2023}, {"New York", 2022}, {"New York", 2021}}),
		Entry("surrounding spaces", ours, `{"city_name":"  new york  "}`,
			[]found{{"New York", 2023}, {"New York", 2022}, {"New York", 2021}}),
		Entry("two cities that differ only in case", ours, `{"city_name":"Santa Fe"}`,
			[]found{{"Santa Fe", 2023}, {"SANTA FE", 2022}}),
		Entry("accents, upper case", ours, `{"city_name":"SÃO PAULO"}`, []found{{"São Paulo", 2022}}),
		Entry("with a year", ours, `{"city_name":"NEW YORK","year":2022}`, []found{{"New York", 2022}}),
		Entry("with a null year", ours, `{"city_name":"new york","year":null}`,
			[]found{{"New York", 2023}, {"New York", 2022}, {"New York", 2021}}),
		Entry("with a year the city has no inventory for", ours, `{"city_name":"New York","year":2030}`, nil),
		Entry("regex metacharacters in the name", ours, `{"city_name":"Washington (D.C.)"}`, []found{{"Washington (D.C.)", 2023}}),
		Entry(`".*" is not a pattern`, ours, `{"city_name":".*"}`, nil),
		Entry(`"[" is not a pattern`, ours, `{"city_name":"["}`, nil),
		Entry(`"(" is not a pattern: it matches the one name holding a parenthesis`, ours, `{"city_name":"("}`,
			[]found{{"Washington (D.C.)", 2023}}),
		Entry(`"D.C" does not match "Oslo" through its dot`, ours, `{"city_name":"D.C"}`, []found{{"Washington (D.C.)", 2023}}),
		Entry("an unknown city", ours, `{"city_name":"Nairobi"}`, nil),
		Entry("every regex metacharacter at once", ours, `{"city_name":".*[(?<x>)]+{2}|^$\\"}`, nil),
		Entry("100 KB of name", ours, `{"city_name":"`+strings.Repeat("New York ", 100<<10/9)+`"}`, nil),
		Entry("a Latin-1 byte in the name: U+FFFD matches no city", ours, "{\"city_name\":\"S\xe3o Paulo\"}", nil),
		Entry("a valid part around invalid bytes", ours, "{\"city_name\":\"\xff\xfeOslo\"}", nil),
		Entry("a NUL in the name", ours, `{"city_name":"Oslo\u0000"}`, nil),
	)

	It("trims the matches with trim ours and keeps their raw shape with trim none", func() {
		_, rep := callTool(w, ours, climate.ToolCitySearch, `{"city_name":"Oslo"}`)
		Expect(rep.Context).NotTo(ContainSubstring("cityId"))
		Expect(rep.Context).NotTo(ContainSubstring("publishedAt"))
		Expect(rep.Context).To(ContainSubstring(idOslo))

		w = newWorld()
		_, rep = callTool(w, none, climate.ToolCitySearch, `{"city_name":"Oslo"}`)
		Expect(rep.Context).To(ContainSubstring("cityId"))
		Expect(rep.Context).To(ContainSubstring("publishedAt"))
		Expect(listed(decodeEnvelope(rep.Context))).To(HaveLen(1))
	})

	DescribeTable("refuses a call without a city name, before calling CityCatalyst",
		func(arguments string) {
			reply, rep := callTool(w, ours, climate.ToolCitySearch, arguments)
			Expect(reply.Tools[0].Success).To(BeFalse())
			Expect(reply.Tools[0].ErrorCode).To(Equal("invalid_arguments"))
			env := decodeEnvelope(rep.Context)
			Expect(env.Success).To(BeFalse())
			Expect(env.ErrorCode).To(Equal("invalid_arguments"))
			Expect(env.Error).To(ContainSubstring("city_name"))
			Expect(rep.Err).To(HaveOccurred())
			Expect(w.transport.Requests(ccHost)).To(BeEmpty())
		},
		Entry("no arguments", `{}`),
		Entry("an empty name", `{"city_name":""}`),
		Entry("a blank name", `{"city_name":"   "}`),
		Entry("a number", `{"city_name":42}`),
		Entry("only a year", `{"year":2023}`),
	)
})

var _ = Describe("the other tools", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	It("lists every inventory, newest first, with trim ours", func() {
		_, rep := callTool(w, ours, climate.ToolUserInventories, `{}`)
		invs := listed(decodeEnvelope(rep.Context))
		Expect(invs).To(HaveLen(13))
		for i := 1; i < len(invs); i++ {
			Expect(invs[i-1].Year).To(BeNumerically(">=", invs[i].Year))
		}
		Expect(rep.Context).NotTo(ContainSubstring("totalCountryEmissions"))
	})

	It("lists every inventory as served with trim none", func() {
		_, rep := callTool(w, none, climate.ToolUserInventories, `{}`)
		env := decodeEnvelope(rep.Context)
		Expect(env.Success).To(BeTrue())
		Expect(env.Data).To(MatchJSON(fixture("inventories/user-inventories.json")))
	})

	DescribeTable("get_inventory: the tracer gets the upstream body, the context depends on the trim",
		func(variant map[string]any, shape bool) {
			_, rep := callTool(w, variant, climate.ToolInventory, `{"inventory_id":"`+idNewYork2023+`"}`)
			Expect(rep.Raw).To(Equal(fixture("inventory/new-york-2023.json")))
			env := decodeEnvelope(rep.Context)
			Expect(env.Success).To(BeTrue())
			var d struct {
				Data map[string]any `json:"data"`
			}
			Expect(json.Unmarshal(env.Data, &d)).To(Succeed())
			Expect(d.Data).To(HaveKeyWithValue("inventoryId", idNewYork2023))
			Expect(d.Data).To(HaveKeyWithValue("year", 2023.0))
			city, _ := d.Data["city"].(map[string]any)
			Expect(city).To(HaveKeyWithValue("name", "New York"))
			if shape {
				Expect(city).To(HaveKey("shape"))
				Expect(city).To(HaveKey("project"))
				Expect(env.Data).To(MatchJSON(rep.Raw))
				return
			}
			Expect(rep.Context).NotTo(ContainSubstring(`"shape"`))
			Expect(rep.Context).NotTo(ContainSubstring(`"project"`))
			Expect(rep.Context).NotTo(ContainSubstring(`"created"`))
			Expect(d.Data).To(HaveKeyWithValue("organizationName", "Municipal Climate Alliance"))
			Expect(len(rep.Context)).To(BeNumerically("<", len(rep.Raw)/20))
		},
		Entry("trim none keeps the shape", none, true),
		Entry("trim ours drops it", ours, false),
		Entry("trim seed drops it like ours", seed, false),
	)

	type sources struct {
		Data  []map[string]any `json:"data"`
		Count *float64         `json:"count"`
	}

	DescribeTable("get_all_datasources: the context depends on the trim",
		func(variant map[string]any, id, file string, check func(ctx string, s sources)) {
			_, rep := callTool(w, variant, climate.ToolDatasources, `{"inventory_id":"`+id+`"}`)
			Expect(rep.Raw).To(Equal(fixture(file)))
			Expect(w.transport.Requests(ccHost)[0].Path).To(Equal("/api/v1/datasource/" + id + "/"))
			env := decodeEnvelope(rep.Context)
			Expect(env.Success).To(BeTrue())
			var s sources
			Expect(json.Unmarshal(env.Data, &s)).To(Succeed())
			check(rep.Context, s)
		},
		Entry("Rio, trim seed: the seed trimmer sees no sources in the real shape", seed, idRio, "datasource/rio-de-janeiro-2023.json",
			func(ctx string, _ sources) {
				Expect(ctx).To(Equal(`{"success":true,"data":{"data":[]}}`))
			}),
		Entry("Rio, trim ours: 26 trimmed sources", ours, idRio, "datasource/rio-de-janeiro-2023.json",
			func(ctx string, s sources) {
				Expect(s.Count).NotTo(BeNil())
				Expect(*s.Count).To(Equal(26.0))
				Expect(s.Data).To(HaveLen(26))
				Expect(s.Data[0]).To(HaveKeyWithValue("datasourceName", "GEA-res-fuel-v2024"))
				Expect(ctx).NotTo(ContainSubstring("removedSources"))
				Expect(ctx).NotTo(ContainSubstring(`"records"`))
				Expect(ctx).NotTo(ContainSubstring("datasourceId"))
			}),
		Entry("Rio, trim none: the body as served", none, idRio, "datasource/rio-de-janeiro-2023.json",
			func(ctx string, s sources) {
				Expect(s.Count).To(BeNil())
				Expect(s.Data).To(HaveLen(26))
				Expect(ctx).To(ContainSubstring("removedSources"))
				Expect(ctx).To(ContainSubstring("failedSources"))
			}),
		Entry("New York 2023, trim ours: 31", ours, idNewYork2023, "datasource/new-york-2023.json",
			func(_ string, s sources) {
				Expect(*s.Count).To(Equal(31.0))
				Expect(s.Data).To(HaveLen(31))
			}),
		Entry("Tokyo 2020, trim ours: none", ours, idTokyo, "datasource/tokyo-2020.json",
			func(_ string, s sources) {
				Expect(*s.Count).To(Equal(0.0))
				Expect(s.Data).To(BeEmpty())
			}),
	)

	It("gives every variant the same results when a run's agents share one decoding of each answer", func() {
		calls := []struct{ name, args string }{
			{climate.ToolUserInventories, `{}`},
			{climate.ToolCitySearch, `{"city_name":"new york"}`},
			{climate.ToolInventory, `{"inventory_id":"` + idNewYork2023 + `"}`},
			{climate.ToolDatasources, `{"inventory_id":"` + idRio + `"}`},
		}
		alone := map[string]string{}
		for _, v := range []map[string]any{none, ours, seed} {
			for _, c := range calls {
				w = newWorld()
				_, rep := callTool(w, v, c.name, c.args)
				alone[fmt.Sprint(v["trim"], c.name)] = rep.Context
			}
		}
		cache := &agents.Cache{}
		for range 2 {
			for _, v := range []map[string]any{none, ours, seed} {
				for _, c := range calls {
					w = newWorld()
					w.cache = cache
					_, rep := callTool(w, v, c.name, c.args)
					Expect(rep.Context).To(Equal(alone[fmt.Sprint(v["trim"], c.name)]), "%v %s", v["trim"], c.name)
				}
			}
		}
	})

	It("makes the trimmed Rio data sources much smaller than the raw ones", func() {
		_, trimmed := callTool(w, ours, climate.ToolDatasources, `{"inventory_id":"`+idRio+`"}`)
		w = newWorld()
		_, raw := callTool(w, none, climate.ToolDatasources, `{"inventory_id":"`+idRio+`"}`)
		Expect(len(trimmed.Context)).To(BeNumerically("<", len(raw.Context)/5))
	})

	DescribeTable("refuses a call without an inventory id, before calling CityCatalyst",
		func(name, arguments string) {
			reply, rep := callTool(w, ours, name, arguments)
			Expect(reply.Tools[0].ErrorCode).To(Equal("invalid_arguments"))
			Expect(decodeEnvelope(rep.Context).Error).To(ContainSubstring("inventory_id"))
			Expect(w.transport.Requests(ccHost)).To(BeEmpty())
		},
		Entry("get_inventory, none", climate.ToolInventory, `{}`),
		Entry("get_inventory, blank", climate.ToolInventory, `{"inventory_id":" "}`),
		Entry("get_all_datasources, none", climate.ToolDatasources, `{}`),
	)

	It("escapes an inventory id into one path segment", func() {
		_, rep := callTool(w, ours, climate.ToolInventory, `{"inventory_id":"../user/inventories"}`)
		Expect(decodeEnvelope(rep.Context).ErrorCode).To(Equal("cc_error"))
		reqs := w.transport.Requests(ccHost)
		Expect(reqs).To(HaveLen(1))
		Expect(reqs[0].EscapedPath).To(Equal("/api/v1/inventory/..%2Fuser%2Finventories"))
		Expect(reqs[0].Method).To(Equal(http.MethodGet))
	})

	It("answers an unknown tool with invalid_arguments", func() {
		reply, rep := callTool(w, ours, "delete_inventory", `{"inventory_id":"`+idRio+`"}`)
		Expect(reply.Tools[0].Success).To(BeFalse())
		Expect(reply.Tools[0].ErrorCode).To(Equal("invalid_arguments"))
		Expect(decodeEnvelope(rep.Context).Error).To(ContainSubstring(`unknown tool "delete_inventory"`))
		Expect(w.transport.Requests(ccHost)).To(BeEmpty())
	})

	It("notes the first tool of a turn as its route", func() {
		callTool(w, ours, climate.ToolCitySearch, `{"city_name":"Oslo"}`)
		Expect(w.tracer.Noted(agents.NoteRoute)).To(Equal([]any{agents.Route{Mode: "tool", Tool: climate.ToolCitySearch}}))
		Expect(w.tracer.Noted(agents.NoteTurn)).To(Equal([]any{0}))
	})
})
