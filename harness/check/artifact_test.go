package check_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/check"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/trace"
)

func toolEvent(name string) trace.Event {
	return trace.Event{Kind: trace.KindTool, Tool: &trace.ToolCall{Name: name}}
}

func chartEvent(spec string) trace.Event {
	return trace.Event{Kind: trace.KindNote, Note: &trace.Note{Key: agents.NoteArtifact,
		Value: agents.Artifact{Kind: "vega-lite", Spec: json.RawMessage(spec)}}}
}

func one(exp scenario.Expect, events ...trace.Event) (pass bool, detail string) {
	cs := check.Turn(0, exp, agents.Reply{}, events, nil)
	Expect(cs).To(HaveLen(1))
	return cs[0].Pass, cs[0].Detail
}

const lineSpec = `{"mark":{"type":"line"},"encoding":{"x":{"field":"time","type":"temporal"},"y":{"field":"temperature","type":"quantitative"}},"data":{"values":[{"time":1,"temperature":2},{"time":2,"temperature":3}]}}`

var _ = Describe("must_call", func() {
	DescribeTable("passes when every named tool ran",
		func(want []string, ran []string, pass bool, detail string) {
			var ev []trace.Event
			for _, r := range ran {
				ev = append(ev, toolEvent(r))
			}
			ok, d := one(scenario.Expect{MustCall: want}, ev...)
			Expect(ok).To(Equal(pass))
			Expect(d).To(Equal(detail))
		},
		Entry("among others", []string{"create_vega_chart"}, []string{"jq_query", "create_vega_chart"}, true, ""),
		Entry("missing", []string{"create_vega_chart", "jq_query"}, []string{"jq_query"}, false, "must call create_vega_chart, but executed [jq_query]"),
		Entry("nothing ran", []string{"create_vega_chart"}, nil, false, "must call create_vega_chart, but executed no tools"),
	)
})

var _ = Describe("chart", func() {
	DescribeTable("checks the last vega-lite artifact",
		func(want scenario.ChartExpect, events []trace.Event, pass bool, detail string) {
			ok, d := one(scenario.Expect{Chart: &want}, events...)
			Expect(ok).To(Equal(pass))
			Expect(d).To(Equal(detail))
		},
		Entry("mark, fields and values match", scenario.ChartExpect{Mark: "line", Fields: []string{"time", "temperature"}, Values: intp(2)},
			[]trace.Event{chartEvent(lineSpec)}, true, ""),
		Entry("a string mark", scenario.ChartExpect{Mark: "bar"}, []trace.Event{chartEvent(`{"mark":"bar"}`)}, true, ""),
		Entry("every difference is named", scenario.ChartExpect{Mark: "bar", Fields: []string{"state"}, Values: intp(367)},
			[]trace.Event{chartEvent(lineSpec)}, false,
			`mark "line", want "bar"; encoding lacks field "state" (has [temperature, time]); 2 data values, want 367`),
		Entry("no chart when one is wanted", scenario.ChartExpect{Mark: "line"}, nil, false,
			"want a chart, but the agent produced no vega-lite artifact"),
		Entry("none wanted and none made", scenario.ChartExpect{None: true}, nil, true, ""),
		Entry("none wanted but one made", scenario.ChartExpect{None: true}, []trace.Event{chartEvent(lineSpec)}, false, "want no chart, got 1"),
		Entry("a spec that is not an object", scenario.ChartExpect{Mark: "line"}, []trace.Event{chartEvent(`[1]`)}, false,
			"the chart spec is not a JSON object: json: cannot unmarshal array into Go value of type check.vegaSpec"),
	)

	It("reads artifacts kept as JSON, as the runner keeps notes", func() {
		spec := `{"mark":"line","title":"<Pool> & spa","data":{"values":[{"t":1},{"t":2}]}}`
		b, _ := json.Marshal(agents.Artifact{Kind: "vega-lite", Spec: json.RawMessage(spec)})
		ev := []trace.Event{{Kind: trace.KindNote, Note: &trace.Note{Key: agents.NoteArtifact, Value: json.RawMessage(b)}}}
		Expect(check.Artifacts(ev)).To(HaveLen(1))
		ok, _ := one(scenario.Expect{Chart: &scenario.ChartExpect{Mark: "line", Values: intp(2)}}, ev...)
		Expect(ok).To(BeTrue())
		ev[0].Note.Value = json.RawMessage(`{"kind":"vega-lite","spec":`)
		Expect(check.Artifacts(ev)).To(BeEmpty())
	})

	It("reads artifacts after a JSON round trip", func() {
		var v any
		b, _ := json.Marshal(agents.Artifact{Kind: "vega-lite", Spec: json.RawMessage(lineSpec)})
		Expect(json.Unmarshal(b, &v)).To(Succeed())
		ev := []trace.Event{{Kind: trace.KindNote, Note: &trace.Note{Key: agents.NoteArtifact, Value: v}}}
		Expect(check.Artifacts(ev)).To(HaveLen(1))
		ok, _ := one(scenario.Expect{Chart: &scenario.ChartExpect{Values: intp(2)}}, ev...)
		Expect(ok).To(BeTrue())
	})
})
