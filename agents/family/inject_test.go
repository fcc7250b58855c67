package family_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/family"
	"github.com/agentreplay/testbed/agents/family/attach"
	"github.com/agentreplay/testbed/agents/llm"
)

var _ = Describe("Attachment injection", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	poolAttachment := func() attach.Attachment {
		return attach.Attachment{ID: "att-1", Name: "state-history.json", MIME: "application/json",
			Description: "Home Assistant history of sensor.pool_temperature", Data: poolHistory()}
	}

	DescribeTable("puts the downloaded history after the tool message as the variant's framework would",
		func(mode attach.Mode, check func(injected string)) {
			f := w.script(roleDefault, call(family.ToolHistory, poolArgs), say("done"))
			ask(w.agent(map[string]any{"attachments": string(mode)}), "pool history")

			reqs := f.requests(roleDefault)
			Expect(reqs).To(HaveLen(2))
			tool := lastTool(reqs[1])
			Expect(tool).To(HaveSuffix("saved as attachment att-1.\n[File content in following message]"))
			after := afterLastTool(reqs[1])
			Expect(after).To(HaveLen(1))
			Expect(after[0].Role).To(Equal(llm.RoleUser))
			Expect(after[0].Content).To(Equal(attach.Inject(poolAttachment(), mode)))
			check(after[0].Content)

			report := w.tracer.Reports(family.ToolHistory)
			Expect(report).To(HaveLen(1))
			Expect(report[0].Context).To(Equal(tool + "\n" + after[0].Content))
		},
		Entry("schema: the JSON Schema and the jq hint, no readings", attach.ModeSchema, func(s string) {
			Expect(s).To(HavePrefix("[System: Large data attachment from previous tool response]\n"))
			Expect(s).To(ContainSubstring("[Attachment ID: att-1]"))
			Expect(s).To(ContainSubstring("Data structure (JSON Schema):"))
			Expect(s).To(ContainSubstring(`"last_changed"`))
			Expect(s).To(ContainSubstring("Use the 'jq_query' tool"))
			Expect(s).NotTo(ContainSubstring(poolMinAt))
			Expect(len(s)).To(BeNumerically("<", 10*1024))
		}),
		Entry("inline: the whole JSON", attach.ModeInline, func(s string) {
			Expect(s).To(HaveSuffix("\n" + string(poolHistory())))
			Expect(s).To(ContainSubstring(poolMinAt))
		}),
		Entry("placeholder: neither shape nor data", attach.ModePlaceholder, func(s string) {
			Expect(s).To(Equal(fmt.Sprintf("[System: Attachment att-1 (state-history.json, %d bytes)]\nBinary content not accessible to model", len(poolHistory()))))
		}),
	)

	DescribeTable("shows a history under 10 KiB whole in every variant",
		func(mode string) {
			f := w.script(roleDefault, call(family.ToolHistory, `{"entity_ids":["sensor.living_room_temperature"]}`), say("done"))
			ask(w.agent(map[string]any{"attachments": mode}), "living room")
			data := expectedHistory("history/living-room-temperature-24h.json", "2026-02-28T00:00:00+00:00", windowEnd)
			Expect(len(data)).To(BeNumerically("<=", attach.Threshold))
			after := afterLastTool(f.requests(roleDefault)[1])
			Expect(after).To(HaveLen(1))
			Expect(after[0].Content).To(Equal(fmt.Sprintf(
				"[System: File from previous tool response]\n[Description: Home Assistant history of sensor.living_room_temperature]\n[Attachment ID: att-1]\n[Content (%d bytes)]:\n%s",
				len(data), data)))
		},
		Entry("schema", "schema"),
		Entry("inline", "inline"),
		Entry("placeholder", "placeholder"),
	)

	DescribeTable("injects the user's attachments into the first user message only",
		func(mode attach.Mode) {
			f := w.script(roleDefault, say("first answer"), say("second answer"))
			small := attachment("attachments/thermostat-small.json", "application/json", "thermostat readings")
			large := attachment("attachments/energy-usage-large.csv", "text/csv", "daily energy use since 2023")
			replies := run(w.agent(map[string]any{"attachments": string(mode)}), agents.Input{
				Turns:       []string{"Look at these files", "And now?"},
				Attachments: []agents.Attachment{small, large},
			})
			Expect(replies[0].Text).To(Equal("first answer"))
			Expect(replies[1].Text).To(Equal("second answer"))
			Expect(replies[0].Attachments).To(Equal([]string{"att-1", "att-2"}))
			Expect(replies[1].Attachments).To(Equal([]string{"att-1", "att-2"}))

			want := "Look at these files" +
				"\n\n" + attach.Inject(attach.Attachment{ID: "att-1", Name: small.Name, MIME: small.MIME, Description: small.Description, Data: small.Data}, mode) +
				"\n\n" + attach.Inject(attach.Attachment{ID: "att-2", Name: large.Name, MIME: large.MIME, Description: large.Description, Data: large.Data}, mode)
			reqs := f.requests(roleDefault)
			Expect(reqs).To(HaveLen(2))
			Expect(userMessages(reqs[0])).To(Equal([]string{want}))
			Expect(userMessages(reqs[1])).To(Equal([]string{want, "And now?"}))
			Expect(reqs[1].Messages).To(HaveLen(4), "system, user, assistant, user")
			Expect(reqs[1].Messages[2]).To(Equal(llm.Message{Role: llm.RoleAssistant, Content: "first answer"}))
		},
		Entry("schema", attach.ModeSchema),
		Entry("inline", attach.ModeInline),
		Entry("placeholder", attach.ModePlaceholder),
	)

	It("shows a large CSV as its summary in schema mode, not its rows", func() {
		f := w.script(roleDefault, say("ok"))
		ask(w.agent(nil), "How many rows?", attachment("attachments/energy-usage-large.csv", "text/csv", ""))
		first := userMessages(f.requests(roleDefault)[0])[0]
		Expect(first).To(ContainSubstring("Rows: 900, not counting the header"))
		Expect(first).NotTo(ContainSubstring("2025-08-04"), "the day of the maximum is not among the first rows")
	})
})
