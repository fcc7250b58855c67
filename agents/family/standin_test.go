package family_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/family"
)

// With the stand-in model (harness/standin) and the Home Assistant stub
// serving fixtures/family/routes.yaml.
var _ = Describe("End to end with the stand-in", Label("standin"), func() {
	const poolChart = "Make me a chart of the pool temperature over the last 5 days"

	var w *world

	BeforeEach(func() { w = newWorld() })

	// modelBodies returns the size of every request body the model host got.
	modelBodies := func() []int {
		var out []int
		for _, s := range w.transport.Requests(modelHost) {
			Expect(s.Path).To(Equal("/v1/chat/completions"))
			out = append(out, len(s.Body))
		}
		return out
	}

	It("charts the pool's 5 days in schema mode without the data in any request", func() {
		reply := ask(w.agent(map[string]any{"attachments": "schema"}), poolChart)
		Expect(reply.Error).To(BeEmpty())
		Expect(reply.Text).To(ContainSubstring("360 data points"))
		Expect(reply.Charts).To(Equal(1))
		Expect(w.tracer.ToolNames()).To(Equal([]string{family.ToolHistory, family.ToolJQ, family.ToolChart, family.ToolDelegate}))

		arts := artifacts(w.tracer)
		Expect(arts).To(HaveLen(1))
		Expect(arts[0].Kind).To(Equal("vega-lite"))
		s := decodeSpec(arts[0])
		Expect(s.Data.Values).To(HaveLen(360))
		Expect(s.Encoding).To(HaveKey("x"))
		Expect(s.Encoding["x"]).To(HaveKeyWithValue("field", "time"))
		Expect(s.Encoding["y"]).To(HaveKeyWithValue("field", "temperature"))

		Expect(w.transport.Requests(haHost)).To(HaveLen(1))
		bodies := modelBodies()
		Expect(bodies).To(HaveLen(6), "default: download, delegate; data_visualization: jq, chart, text; default: text")
		Expect(len(poolHistory())).To(BeNumerically(">", 190_000))
		for _, n := range bodies {
			Expect(n).To(BeNumerically("<", 20_000), "the largest request is far below the 199 KB attachment")
		}
		for _, s := range w.transport.Requests(modelHost) {
			Expect(string(s.Body)).NotTo(ContainSubstring(poolMinAt))
		}
	})

	It("puts the raw history into a request in inline mode", func() {
		reply := ask(w.agent(map[string]any{"attachments": "inline"}), poolChart)
		Expect(reply.Text).To(ContainSubstring("360 data points"))
		Expect(artifacts(w.tracer)).To(HaveLen(1))
		Expect(decodeSpec(artifacts(w.tracer)[0]).Data.Values).To(HaveLen(360))

		Expect(modelBodies()).To(ContainElement(BeNumerically(">", len(poolHistory()))))
		found := false
		for _, s := range w.transport.Requests(modelHost) {
			found = found || strings.Contains(string(s.Body), poolMinAt)
		}
		Expect(found).To(BeTrue(), "some request holds the raw readings")
	})

	It("fails the chart clearly in placeholder mode", func() {
		reply := ask(w.agent(map[string]any{"attachments": "placeholder"}), poolChart)
		Expect(reply.Text).To(ContainSubstring("could not make the chart"))
		Expect(reply.Text).To(ContainSubstring("create_vega_chart, a mandatory tool"))
		Expect(reply.Charts).To(BeZero())
		Expect(artifacts(w.tracer)).To(BeEmpty())
		Expect(w.tracer.ToolNames()).To(Equal([]string{family.ToolHistory, family.ToolDelegate}))
	})

	It("counts the pool's readings with jq_query", func() {
		reply := ask(w.agent(nil), "How many pool temperature readings were recorded in the last 5 days?")
		Expect(reply.Text).To(ContainSubstring("The answer is 367."))
		Expect(reply.Tools).To(Equal([]string{family.ToolHistory, family.ToolJQ}))
	})
})
