package family_test

import (
	"errors"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/family"
)

var _ = Describe("New", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	DescribeTable("rejects a bad variant config",
		func(variant map[string]any, want string) {
			_, err := family.New(w.config(variant))
			Expect(err).To(MatchError(ContainSubstring(want)))
			Expect(err).To(MatchError(HavePrefix("family: variant config: ")))
		},
		Entry("an unknown key", map[string]any{"attachment": "schema"}, "known keys: attachments, mandatory, max_iterations"),
		Entry("an unknown attachments mode", map[string]any{"attachments": "binary"}, `attachments "binary": want schema, inline or placeholder`),
		Entry("an empty attachments mode", map[string]any{"attachments": ""}, `attachments "": want schema, inline or placeholder`),
		Entry("attachments that is not a string", map[string]any{"attachments": 3}, "known keys"),
		Entry("mandatory that is not a bool", map[string]any{"mandatory": "yes"}, "known keys"),
		Entry("max_iterations of zero", map[string]any{"max_iterations": 0}, "max_iterations must be positive"),
		Entry("a negative max_iterations", map[string]any{"max_iterations": -2}, "max_iterations must be positive"),
	)

	DescribeTable("accepts a good variant config",
		func(variant map[string]any) {
			a, err := family.New(w.config(variant))
			Expect(err).NotTo(HaveOccurred())
			Expect(a).NotTo(BeNil())
		},
		Entry("none", nil),
		Entry("an empty block", map[string]any{}),
		Entry("every key", map[string]any{"attachments": "placeholder", "mandatory": false, "max_iterations": 3}),
	)

	It("takes its default profile's prompt from a file of the prompt folder", func() {
		cfg := w.config(map[string]any{"prompt": "prompts/short.md"})
		_, err := family.New(cfg)
		Expect(err).To(MatchError(`family: prompt "prompts/short.md" set but no prompt folder given`))
		cfg.Prompts = fstest.MapFS{"prompts/short.md": {Data: []byte("You are the family assistant. Be brief.")}}
		a, err := family.New(cfg)
		Expect(err).NotTo(HaveOccurred())
		sets := a.(agents.Prompted).PromptSets()
		Expect(sets[0].Name).To(Equal("prompts/short.md"))
		Expect(sets[0].Text).To(Equal("You are the family assistant. Be brief."))
		cfg.Prompts = fstest.MapFS{}
		_, err = family.New(cfg)
		Expect(err).To(MatchError(HavePrefix("family: prompt: ")))
	})

	It("takes its visualization service's prompt from a file of the prompt folder", func() {
		cfg := w.config(map[string]any{"viz_prompt": "prompts/viz.md"})
		_, err := family.New(cfg)
		Expect(err).To(MatchError(`family: viz_prompt "prompts/viz.md" set but no prompt folder given`))
		cfg.Prompts = fstest.MapFS{"prompts/viz.md": {Data: []byte("You are the data visualization service. Chart it.")}}
		a, err := family.New(cfg)
		Expect(err).NotTo(HaveOccurred())
		sets := a.(agents.Prompted).PromptSets()
		Expect(sets[1].Name).To(Equal("prompts/viz.md"))
		Expect(sets[1].Text).To(Equal("You are the data visualization service. Chart it."))
		cfg.Prompts = fstest.MapFS{}
		_, err = family.New(cfg)
		Expect(err).To(MatchError(HavePrefix("family: viz_prompt: ")))
	})

	It("names itself and its endpoints", func() {
		info := family.Info()
		Expect(info.Name).To(Equal(family.Name))
		Expect(info.Model.BaseURL).To(Equal("https://" + modelHost + "/v1"))
		Expect(info.Upstreams).To(HaveKeyWithValue("homeassistant", "http://"+haHost))
	})
})

var _ = Describe("The model loop", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	It("stops a profile after max_iterations model calls", func() {
		loop := call(family.ToolJQ, `{"attachment_id":"att-1","jq_program":"length"}`)
		f := w.script(roleDefault, loop, loop, loop, loop)
		reply := ask(w.agent(map[string]any{"max_iterations": 3}), "loop", peopleAttachment())
		Expect(f.requests(roleDefault)).To(HaveLen(3))
		Expect(reply.Error).To(Equal("max_iterations"))
		Expect(reply.Text).To(Equal("The default profile did not finish within 3 steps."))
		Expect(reply.Tools).To(Equal([]string{family.ToolJQ, family.ToolJQ, family.ToolJQ}))
	})

	It("stops the data_visualization profile after max_iterations and fails the delegation", func() {
		w.script(roleDefault, call(family.ToolDelegate, delegateThermostat), say("final"))
		loop := call(family.ToolJQ, `{"attachment_id":"att-1","jq_program":"length"}`)
		w.script(roleViz, loop, loop, loop)
		reply := ask(w.agent(map[string]any{"max_iterations": 2}), "chart",
			attachment("attachments/thermostat-small.json", "application/json", ""))
		Expect(w.fake.requests(roleViz)).To(HaveLen(2))
		Expect(lastTool(w.fake.requests(roleDefault)[1])).To(Equal(
			"[data_visualization failed: max_iterations] The data_visualization profile did not finish within 2 steps."))
		Expect(reply.Error).To(BeEmpty())
		Expect(reply.Text).To(Equal("final"))
	})

	It("says the model could not be reached and keeps the error", func() {
		w.script(roleDefault, failWith(errors.New("connection refused")))
		reply := ask(w.agent(nil), "hello")
		Expect(reply.Text).To(Equal("The default model could not be reached, so I cannot finish this request."))
		Expect(reply.Error).To(Equal("connection refused"))
	})

	It("answers an unknown tool with an error text", func() {
		f := w.script(roleDefault, call("draw_chart", `{}`), say("sorry"))
		reply := ask(w.agent(nil), "draw")
		Expect(lastTool(f.requests(roleDefault)[1])).To(Equal(`Error: tool "draw_chart" is not available in the default profile`))
		Expect(reply.Tools).To(BeEmpty())
		Expect(reply.Text).To(Equal("sorry"))
	})

	It("refuses a tool that only another profile offers", func() {
		f := w.script(roleDefault, call(family.ToolChart, `{"spec":"{}"}`), say("sorry"))
		reply := ask(w.agent(nil), "chart")
		Expect(lastTool(f.requests(roleDefault)[1])).To(Equal(`Error: tool "create_vega_chart" is not available in the default profile`))
		Expect(reply.Charts).To(Equal(0))
	})

	It("keeps the conversation and the attachments across turns", func() {
		f := w.script(roleDefault,
			call(family.ToolHistory, poolArgs), say("downloaded"),
			call(family.ToolJQ, `{"attachment_id":"att-1","jq_program":".entities[0].states | length"}`), say("367"))
		replies := run(w.agent(nil), agents.Input{Turns: []string{"download", "count"}})
		Expect(replies[0].Text).To(Equal("downloaded"))
		Expect(replies[1].Text).To(Equal("367"))
		Expect(replies[0].Tools).To(Equal([]string{family.ToolHistory}))
		Expect(replies[1].Tools).To(Equal([]string{family.ToolJQ}), "tools are per turn")
		Expect(replies[1].Attachments).To(Equal([]string{"att-1"}))
		reqs := f.requests(roleDefault)
		Expect(reqs).To(HaveLen(4))
		Expect(lastTool(reqs[3])).To(Equal("367"))
		Expect(userMessages(reqs[2])[0]).To(Equal("download"))
		Expect(userMessages(reqs[2])[len(userMessages(reqs[2]))-1]).To(Equal("count"))
	})
})
