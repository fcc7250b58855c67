package family_test

import (
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/family"
)

// vegaSpec is a Vega-Lite spec without data, as a JSON string.
func vegaSpec(mark, x, y string) string {
	return jsonArgs(map[string]any{"mark": mark, "encoding": map[string]any{
		"x": map[string]any{"field": x, "type": "temporal"},
		"y": map[string]any{"field": y, "type": "quantitative"},
	}})
}

// chartSpec is the part of a charted spec the specs read.
type chartSpec struct {
	Schema   string                    `json:"$schema"`
	Title    string                    `json:"title"`
	Mark     any                       `json:"mark"`
	Encoding map[string]map[string]any `json:"encoding"`
	Data     struct {
		Values []map[string]any `json:"values"`
	} `json:"data"`
}

func decodeSpec(a agents.Artifact) chartSpec {
	var s chartSpec
	Expect(json.Unmarshal(a.Spec, &s)).To(Succeed(), "artifact spec %s", a.Spec)
	return s
}

var _ = Describe("create_vega_chart", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	// chart has the data_visualization profile call create_vega_chart once
	// with args over the user's attachments (delegated in order), and
	// returns the tool message it read next.
	chart := func(args map[string]any, atts ...agents.Attachment) string {
		var ids []string
		for i := range atts {
			ids = append(ids, "att-"+string(rune('1'+i)))
		}
		w.script(roleDefault, call(family.ToolDelegate, jsonArgs(map[string]any{
			"service": "data_visualization", "request": "Chart it", "attachment_ids": ids})), say("final"))
		f := w.script(roleViz, call(family.ToolChart, jsonArgs(args)), say("charted"))
		ask(w.agent(map[string]any{"mandatory": false}), "Chart it", atts...)
		viz := f.requests(roleViz)
		Expect(viz).To(HaveLen(2))
		tool := lastTool(viz[1])
		reports := w.tracer.Reports(family.ToolChart)
		Expect(reports).To(HaveLen(1))
		Expect(reports[0].Context).To(Equal(tool))
		msgs := toolMessages(viz[1])
		Expect(reports[0].ID).To(Equal(msgs[len(msgs)-1].ToolCallID), "the report names the model's call it ran")
		return tool
	}

	thermostat := func() agents.Attachment {
		return attachment("attachments/thermostat-small.json", "application/json", "thermostat readings")
	}
	energy := func(mime string) agents.Attachment {
		return attachment("attachments/energy-usage.csv", mime, "daily energy use")
	}

	It("injects a JSON attachment through a jq program", func() {
		tool := chart(map[string]any{"spec": vegaSpec("line", "time", "temperature"), "title": "Thermostat",
			"data_attachments": []any{map[string]any{"id": "att-1", "jq": "map({time, temperature})"}}}, thermostat())
		Expect(tool).To(Equal(`Chart created: "Thermostat", a line chart of 30 data points.`))

		arts := artifacts(w.tracer)
		Expect(arts).To(HaveLen(1))
		s := decodeSpec(arts[0])
		Expect(s.Data.Values).To(HaveLen(30))
		Expect(s.Data.Values[0]).To(Equal(map[string]any{"time": "2026-02-28T00:00:00+00:00", "temperature": 22.5}))
		Expect(s.Data.Values[1]).To(Equal(map[string]any{"time": "2026-02-28T00:48:00+00:00", "temperature": 22.9}))
		Expect(w.tracer.Reports(family.ToolChart)[0].Raw).To(Equal(thermostat().Data))
	})

	It("injects a JSON list of records as it is", func() {
		tool := chart(map[string]any{"spec": vegaSpec("line", "time", "humidity"), "data_attachments": []any{"att-1"}}, thermostat())
		Expect(tool).To(Equal(`Chart created: "", a line chart of 30 data points.`))
		s := decodeSpec(artifacts(w.tracer)[0])
		Expect(s.Data.Values).To(HaveLen(30))
		Expect(s.Data.Values[0]).To(Equal(map[string]any{"time": "2026-02-28T00:00:00+00:00", "temperature": 22.5,
			"setpoint": 23.0, "humidity": 47.0, "hvac_action": "idle"}))
	})

	It("injects a CSV attachment with its numbers parsed", func() {
		tool := chart(map[string]any{"spec": vegaSpec("bar", "date", "kwh"), "data_attachments": []any{"att-1"}, "title": "kWh"}, energy("text/csv"))
		Expect(tool).To(Equal(`Chart created: "kWh", a bar chart of 60 data points.`))
		s := decodeSpec(artifacts(w.tracer)[0])
		Expect(s.Data.Values).To(HaveLen(60))
		Expect(s.Data.Values[0]).To(Equal(map[string]any{"date": "2025-12-31", "kwh": 36.58, "cost": 12.58}))
		sum := 0.0
		for _, v := range s.Data.Values {
			Expect(v["kwh"]).To(BeAssignableToTypeOf(0.0))
			sum += v["kwh"].(float64)
		}
		Expect(sum).To(BeNumerically("~", 2077.21, 0.005))
	})

	It("keeps quoted commas and empty cells of a large CSV", func() {
		large := attachment("attachments/energy-usage-large.csv", "text/csv", "")
		chart(map[string]any{"spec": vegaSpec("bar", "date", "kwh"), "data_attachments": []any{"att-1"}}, large)
		s := decodeSpec(artifacts(w.tracer)[0])
		Expect(s.Data.Values).To(HaveLen(900))
		Expect(s.Data.Values).To(ContainElement(HaveKeyWithValue("note", "heatwave, AC all day")))
		Expect(s.Data.Values[0]).To(HaveKeyWithValue("note", ""))
		Expect(s.Data.Values[0]).To(HaveKeyWithValue("tariff", "flat"))
	})

	It("injects inline data", func() {
		data := []map[string]any{{"day": "2026-02-27", "kwh": 3.5}, {"day": "2026-02-28", "kwh": 4.0}}
		tool := chart(map[string]any{"spec": vegaSpec("bar", "day", "kwh"), "data": data, "title": "Two days"})
		Expect(tool).To(Equal(`Chart created: "Two days", a bar chart of 2 data points.`))
		s := decodeSpec(artifacts(w.tracer)[0])
		Expect(s.Data.Values).To(Equal(data))
	})

	It("reports the full spec as a vega-lite artifact with its title", func() {
		spec := `{"mark":{"type":"point","tooltip":true},"encoding":{"x":{"field":"time","type":"temporal"},"y":{"field":"temperature","type":"quantitative"}},"width":400}`
		tool := chart(map[string]any{"spec": spec, "data_attachments": []any{"att-1"}, "title": "Indoor"}, thermostat())
		Expect(tool).To(Equal(`Chart created: "Indoor", a point chart of 30 data points.`))

		arts := artifacts(w.tracer)
		Expect(arts).To(HaveLen(1))
		Expect(arts[0].Kind).To(Equal("vega-lite"))
		Expect(arts[0].Title).To(Equal("Indoor"))
		var full map[string]any
		Expect(json.Unmarshal(arts[0].Spec, &full)).To(Succeed())
		Expect(full).To(HaveKeyWithValue("title", "Indoor"))
		Expect(full).To(HaveKeyWithValue("width", 400.0))
		Expect(full).To(HaveKeyWithValue("$schema", "https://vega.github.io/schema/vega-lite/v5.json"))
		Expect(full).To(HaveKeyWithValue("mark", map[string]any{"type": "point", "tooltip": true}))
		Expect(decodeSpec(arts[0]).Data.Values).To(HaveLen(30))
	})

	It("keeps a spec's own $schema and title when no title is given", func() {
		spec := `{"$schema":"https://vega.github.io/schema/vega-lite/v6.json","title":"Mine","mark":"line","encoding":{"x":{"field":"time"}}}`
		chart(map[string]any{"spec": spec, "data_attachments": []any{"att-1"}}, thermostat())
		s := decodeSpec(artifacts(w.tracer)[0])
		Expect(s.Schema).To(Equal("https://vega.github.io/schema/vega-lite/v6.json"))
		Expect(s.Title).To(Equal("Mine"))
	})

	DescribeTable("answers a chart it cannot make with an error text, and reports no artifact",
		func(args map[string]any, want OmegaMatcher) {
			tool := chart(args, thermostat(), energy("text/csv"))
			Expect(tool).To(want)
			Expect(tool).To(HavePrefix("Error: "))
			Expect(artifacts(w.tracer)).To(BeEmpty())
			// The trace keeps the error's first 300 characters.
			reported := w.tracer.Reports(family.ToolChart)[0].Err
			Expect(reported).To(HaveOccurred())
			Expect(tool).To(HavePrefix(strings.TrimSuffix(reported.Error(), "…")))
		},
		Entry("a field the data does not have",
			map[string]any{"spec": vegaSpec("line", "time", "temp"), "data_attachments": []any{"att-1"}},
			Equal(`Error: the encoding names field "temp", which is not in the data (fields: humidity, hvac_action, setpoint, temperature, time)`)),
		Entry("a field only the other attachment's rows lack",
			map[string]any{"spec": vegaSpec("bar", "date", "kwh"), "data_attachments": []any{map[string]any{"id": "att-1", "jq": "map({time})"}}},
			Equal(`Error: the encoding names field "date", which is not in the data (fields: time)`)),
		Entry("a spec that is not JSON",
			map[string]any{"spec": "mark: line", "data_attachments": []any{"att-1"}},
			Equal("Error: spec is not a JSON object: give the Vega-Lite spec as a JSON string")),
		Entry("a spec that is JSON null",
			map[string]any{"spec": "null", "data_attachments": []any{"att-1"}},
			Equal("Error: spec is not a JSON object: give the Vega-Lite spec as a JSON string")),
		Entry("a spec that is a JSON list",
			map[string]any{"spec": "[]", "data_attachments": []any{"att-1"}},
			Equal("Error: spec is not a JSON object: give the Vega-Lite spec as a JSON string")),
		Entry("an unknown attachment",
			map[string]any{"spec": vegaSpec("line", "time", "temperature"), "data_attachments": []any{"att-9"}},
			Equal("Error: Attachment with ID att-9 not found.")),
		Entry("no data at all",
			map[string]any{"spec": vegaSpec("line", "time", "temperature")},
			HavePrefix("Error: the chart has no data: ")),
		Entry("a jq program that does not parse",
			map[string]any{"spec": vegaSpec("line", "time", "temperature"), "data_attachments": []any{map[string]any{"id": "att-1", "jq": "map("}}},
			HavePrefix("Error: attachment att-1: Invalid jq query. ")),
		Entry("a mark Vega-Lite does not have, with where and why",
			map[string]any{"spec": vegaSpec("lines", "time", "temperature"), "data_attachments": []any{"att-1"}},
			And(HavePrefix("Error: the spec is not valid Vega-Lite (checked against the v5.23.0 schema): at /mark: "), ContainSubstring("'line'"),
				HaveSuffix("; fix the spec and call create_vega_chart again"))),
		Entry("a property Vega-Lite does not have",
			map[string]any{"spec": `{"mark": "line", "colour": "red", "encoding": {"x": {"field": "time", "type": "temporal"}}}`, "data_attachments": []any{"att-1"}},
			ContainSubstring("at /: additional properties 'colour' not allowed")),
		Entry("a spec rejected in two places, named in the order of their paths whatever the order the validator met them", MustPassRepeatedly(10),
			map[string]any{"spec": `{"mark": {"type": "rule", "size": "big"}, "encoding": {"x": {"field": "time", "type": "temporal"}}}`, "data_attachments": []any{"att-1"}},
			ContainSubstring("checked against the v5.23.0 schema): at /mark/size: got string, want number; at /mark/type: value must be one of 'boxplot', 'errorbar', 'errorband'; fix")),
		Entry("an encoding type Vega-Lite does not have",
			map[string]any{"spec": `{"mark": "line", "encoding": {"x": {"field": "time", "type": "time"}}}`, "data_attachments": []any{"att-1"}},
			ContainSubstring("at /encoding/x/type: ")),
		Entry("a jq program that does not yield records",
			map[string]any{"spec": vegaSpec("line", "time", "temperature"), "data_attachments": []any{map[string]any{"id": "att-1", "jq": "length"}}},
			HavePrefix("Error: attachment att-1: the data is not a list of records")),
	)

	It("charts the pool's 360 numeric readings without the model ever seeing one", func() {
		f := w.script(roleDefault,
			call(family.ToolHistory, poolArgs),
			call(family.ToolDelegate, `{"service":"data_visualization","request":"Chart the pool temperature","attachment_ids":["att-1"]}`),
			say("Here is your chart."))
		w.script(roleViz,
			call(family.ToolJQ, `{"attachment_id":"att-1","jq_program":"[.entities[0].states[0].last_changed, .entities[0].states[-1].last_changed]"}`),
			call(family.ToolChart, jsonArgs(map[string]any{"spec": vegaSpec("line", "time", "temperature"), "title": "Pool temperature",
				"data_attachments": []any{map[string]any{"id": "att-1", "jq": poolProgram}}})),
			say("A line chart of 360 data points."))
		reply := ask(w.agent(map[string]any{"attachments": "schema"}), "Chart the pool")
		Expect(reply.Charts).To(Equal(1))

		viz := f.requests(roleViz)
		Expect(viz).To(HaveLen(3))
		Expect(lastTool(viz[1])).To(Equal(`["2026-02-24T00:00:00+00:00","2026-02-28T23:42:30.507847+00:00"]`))
		Expect(lastTool(viz[2])).To(Equal(`Chart created: "Pool temperature", a line chart of 360 data points.`))

		arts := artifacts(w.tracer)
		Expect(arts).To(HaveLen(1))
		s := decodeSpec(arts[0])
		Expect(s.Data.Values).To(HaveLen(360))
		Expect(s.Data.Values).To(ContainElement(Equal(map[string]any{"time": poolMinAt, "temperature": 24.2})))
		Expect(string(arts[0].Spec)).To(ContainSubstring(poolMinAt))

		all := f.requests("")
		Expect(all).To(HaveLen(6))
		for _, r := range all {
			b, err := json.Marshal(r)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).NotTo(ContainSubstring(poolMinAt), "a %s request holds a reading", r.Role)
			Expect(string(b)).NotTo(ContainSubstring("2026-02-24T05:29:45.230075"), "a %s request holds a reading", r.Role)
		}
	})

	// Regressions: chart.go once compared att.MIME == "text/csv" exactly and
	// turned "NaN"/"inf" cells into floats that json.Marshal refuses.
	DescribeTable("charts every CSV the attach package shows as CSV",
		func(mime string) {
			tool := chart(map[string]any{"spec": vegaSpec("bar", "date", "kwh"), "data_attachments": []any{"att-1"}}, energy(mime))
			Expect(tool).To(Equal(`Chart created: "", a bar chart of 60 data points.`))
		},
		Entry("with parameters", "text/csv; charset=utf-8"),
		Entry("in capitals", "Text/CSV"),
		// attach.kindOf (attach/inject.go) treats application/csv as CSV, so
		// the model is shown a CSV, but recordsOf (chart.go:105) only parses
		// text/csv and reads application/csv as JSON: the chart fails with
		// "the data is not a list of records". Fix: decide CSV in recordsOf
		// as attach does (media type text/csv or application/csv).
		Entry("as application/csv", "application/csv"),
	)

	It("keeps a cell that reads NaN or Inf as text, not as a number JSON cannot hold", func() {
		csv := agents.Attachment{Name: "readings.csv", MIME: "text/csv",
			Data: []byte("date,kwh,note\n2026-02-27,3.5,NaN\n2026-02-28,4.0,inf\n")}
		tool := chart(map[string]any{"spec": vegaSpec("bar", "date", "kwh"), "data_attachments": []any{"att-1"}}, csv)
		Expect(tool).To(Equal(`Chart created: "", a bar chart of 2 data points.`))
		Expect(decodeSpec(artifacts(w.tracer)[0]).Data.Values).To(Equal([]map[string]any{
			{"date": "2026-02-27", "kwh": 3.5, "note": "NaN"},
			{"date": "2026-02-28", "kwh": 4.0, "note": "inf"},
		}))
	})
})
