package family_test

import (
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/family"
	"github.com/agentreplay/testbed/agents/family/attach"
	"github.com/agentreplay/testbed/agents/llm"
)

// thermostatChart is a create_vega_chart call over the thermostat readings (att-1).
const thermostatChart = `{"spec":"{\"mark\":\"line\",\"encoding\":{\"x\":{\"field\":\"time\",\"type\":\"temporal\"},\"y\":{\"field\":\"temperature\",\"type\":\"quantitative\"}}}","data_attachments":["att-1"],"title":"Thermostat"}`

// delegateThermostat is the default profile's delegation of att-1.
const delegateThermostat = `{"service":"data_visualization","request":"Chart the temperature","attachment_ids":["att-1"]}`

// reminders counts the messages of req that remind the model of its chart.
func reminders(req llm.Request) int {
	n := 0
	for _, m := range req.Messages {
		if strings.Contains(m.Content, reminder) {
			n++
		}
	}
	return n
}

var _ = Describe("delegate_to_service", func() {
	var (
		w          *world
		thermostat agents.Attachment
	)

	BeforeEach(func() {
		w = newWorld()
		thermostat = attachment("attachments/thermostat-small.json", "application/json", "thermostat readings")
	})

	// delegation runs one turn in which the default profile delegates with
	// args and then answers "final"; the data_visualization profile answers
	// with viz. It returns the reply and the delegation's tool message.
	delegation := func(variant map[string]any, args string, viz ...step) (family.Reply, string) {
		f := w.script(roleDefault, call(family.ToolDelegate, args), say("final"))
		w.script(roleViz, viz...)
		reply := ask(w.agent(variant), "the user's own question", thermostat)
		main := f.requests(roleDefault)
		Expect(main).To(HaveLen(2))
		return reply, lastTool(main[1])
	}

	DescribeTable("refuses bad delegations without running the service",
		func(args, want string) {
			reply, tool := delegation(nil, args)
			Expect(tool).To(Equal(want))
			Expect(w.fake.requests(roleViz)).To(BeEmpty())
			Expect(reply.Tools).To(BeEmpty())
			Expect(reply.Text).To(Equal("final"))
			report := w.tracer.Reports(family.ToolDelegate)
			Expect(report).To(HaveLen(1))
			Expect(report[0].Err).To(MatchError(want))
		},
		Entry("an unknown service", `{"service":"charts","request":"Chart it","attachment_ids":["att-1"]}`,
			`Error: unknown service "charts"; the only service is data_visualization`),
		Entry("no service", `{"request":"Chart it","attachment_ids":["att-1"]}`,
			`Error: unknown service ""; the only service is data_visualization`),
		Entry("an unknown attachment id", `{"service":"data_visualization","request":"Chart it","attachment_ids":["att-1","att-7"]}`,
			"Error: Attachment with ID att-7 not found."),
	)

	It("runs data_visualization with its own prompt and tools, and returns its text to the default profile", func() {
		reply, tool := delegation(nil, delegateThermostat, call(family.ToolChart, thermostatChart), say("Your chart has 30 points."))
		Expect(tool).To(Equal("[data_visualization] Your chart has 30 points."))
		Expect(reply.Text).To(Equal("final"))
		Expect(reply.Tools).To(Equal([]string{family.ToolDelegate}))
		Expect(reply.Charts).To(Equal(1))
		Expect(reply.Error).To(BeEmpty())

		main := w.fake.requests(roleDefault)
		Expect(main[0].Messages[0]).To(Equal(llm.Message{Role: llm.RoleSystem,
			Content: prompt("default.md") + "\nThe current time is 2026-03-01T00:00:00Z."}))
		Expect(toolNames(main[0])).To(Equal([]string{family.ToolHistory, family.ToolDelegate, family.ToolJQ}))
		Expect(main[1].Messages).To(HaveLen(4), "system, user, the delegation and its result: nothing of the service's run")

		viz := w.fake.requests(roleViz)
		Expect(viz).To(HaveLen(2))
		for _, r := range viz {
			Expect(toolNames(r)).To(Equal([]string{family.ToolJQ, family.ToolChart}))
		}
		Expect(viz[0].Messages).To(Equal([]llm.Message{
			{Role: llm.RoleSystem, Content: prompt("data_visualization.md")},
			{Role: llm.RoleUser, Content: "Chart the temperature\n\n" + attach.Inject(attach.Attachment{
				ID: "att-1", Name: thermostat.Name, MIME: thermostat.MIME, Description: thermostat.Description, Data: thermostat.Data}, attach.ModeSchema)},
		}))
		for _, r := range viz {
			b, err := json.Marshal(r)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).NotTo(ContainSubstring("the user's own question"))
		}

		Expect(w.tracer.ToolNames()).To(Equal([]string{family.ToolChart, family.ToolDelegate}))
		report := w.tracer.Reports(family.ToolDelegate)
		Expect(report[0].Err).NotTo(HaveOccurred())
		Expect(report[0].Raw).To(Equal(thermostat.Data))
		Expect(report[0].Context).To(Equal(tool))
	})

	It("injects every delegated attachment, in the order given, as the variant's framework would", func() {
		f := w.script(roleDefault,
			call(family.ToolHistory, poolArgs),
			call(family.ToolDelegate, `{"service":"data_visualization","request":"Compare","attachment_ids":["att-2","att-1"]}`),
			say("final"))
		w.script(roleViz, say("nothing to do"))
		ask(w.agent(map[string]any{"attachments": "placeholder", "mandatory": false}), "compare", thermostat)
		Expect(f.requests(roleDefault)).To(HaveLen(3))

		viz := w.fake.requests(roleViz)
		Expect(viz).To(HaveLen(1))
		pool := attach.Attachment{ID: "att-2", Name: "state-history.json", MIME: "application/json",
			Description: "Home Assistant history of sensor.pool_temperature", Data: poolHistory()}
		small := attach.Attachment{ID: "att-1", Name: thermostat.Name, MIME: thermostat.MIME, Description: thermostat.Description, Data: thermostat.Data}
		Expect(userMessages(viz[0])).To(Equal([]string{"Compare\n\n" +
			attach.Inject(pool, attach.ModePlaceholder) + "\n\n" + attach.Inject(small, attach.ModePlaceholder)}))
		Expect(userMessages(viz[0])[0]).To(ContainSubstring("Binary content not accessible to model"))
		Expect(userMessages(viz[0])[0]).To(ContainSubstring(`"hvac_action":"idle"`), "small data stays inline")
	})

	Describe("the mandatory create_vega_chart", func() {
		It("reminds a model that answers without the chart once, then fails the run naming the tool", func() {
			reply, tool := delegation(nil, delegateThermostat, say("Here is a chart of the temperature."), say("I drew it in my head."))
			Expect(tool).To(Equal("[data_visualization failed: mandatory_tool_not_called] The data_visualization service finished without calling create_vega_chart, a mandatory tool, so no chart was produced. Its last words: I drew it in my head."))
			Expect(reply.Charts).To(BeZero())
			Expect(reply.Tools).To(BeEmpty())
			Expect(artifacts(w.tracer)).To(BeEmpty())

			viz := w.fake.requests(roleViz)
			Expect(viz).To(HaveLen(2))
			Expect(reminders(viz[0])).To(BeZero())
			Expect(reminders(viz[1])).To(Equal(1))
			last := viz[1].Messages[len(viz[1].Messages)-1]
			Expect(last.Role).To(Equal(llm.RoleUser))
			Expect(last.Content).To(ContainSubstring("You must call create_vega_chart"))

			report := w.tracer.Reports(family.ToolDelegate)
			Expect(report).To(HaveLen(1))
			Expect(report[0].Err).To(MatchError(ContainSubstring("mandatory_tool_not_called")))
		})

		It("accepts the chart when the reminder works", func() {
			reply, tool := delegation(nil, delegateThermostat,
				say("Done."), call(family.ToolChart, thermostatChart), say("Now it is done."))
			Expect(tool).To(Equal("[data_visualization] Now it is done."))
			Expect(reply.Charts).To(Equal(1))
			viz := w.fake.requests(roleViz)
			Expect(viz).To(HaveLen(3))
			Expect(reminders(viz[2])).To(Equal(1))
			Expect(artifacts(w.tracer)).To(HaveLen(1))
		})

		It("does not count a create_vega_chart call that failed", func() {
			_, tool := delegation(nil, delegateThermostat,
				call(family.ToolChart, `{"spec":"not json","data_attachments":["att-1"]}`), say("Done."), say("Really done."))
			Expect(tool).To(HavePrefix("[data_visualization failed: mandatory_tool_not_called] "))
			viz := w.fake.requests(roleViz)
			Expect(viz).To(HaveLen(3))
			Expect(reminders(viz[2])).To(Equal(1))
		})

		It("reminds only once, even when the model calls other tools in between", func() {
			_, tool := delegation(nil, delegateThermostat,
				say("Done."), call(family.ToolJQ, `{"attachment_id":"att-1","jq_program":"length"}`), say("It has 30 rows."))
			Expect(tool).To(HavePrefix("[data_visualization failed: mandatory_tool_not_called] "))
			Expect(tool).To(HaveSuffix("Its last words: It has 30 rows."))
			viz := w.fake.requests(roleViz)
			Expect(viz).To(HaveLen(3))
			Expect(reminders(viz[2])).To(Equal(1))
		})

		It("lets the service finish without a chart when the variant makes the tool optional", func() {
			reply, tool := delegation(map[string]any{"mandatory": false}, delegateThermostat, say("No chart needed."))
			Expect(tool).To(Equal("[data_visualization] No chart needed."))
			Expect(reply.Tools).To(Equal([]string{family.ToolDelegate}))
			Expect(reply.Charts).To(BeZero())
			viz := w.fake.requests(roleViz)
			Expect(viz).To(HaveLen(1))
			Expect(reminders(viz[0])).To(BeZero())
		})
	})
})
