package standin_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin"
)

// A help desk that hands questions on to two specialists, in the shapes
// routers send: the targets listed in the system prompt as ADK lists its
// sub-agents, or described in the schema.
const deskPrompt = `You are the front desk of a bicycle shop. Greet customers.

You have a list of other agents to transfer to:

Agent name: parts_agent
Agent description: Orders spare parts such as chains, tyres and brake pads, and tells their prices.

Agent name: workshop_agent
Agent description: Books repairs and services, and explains what a repair involves.

If another agent is better for answering the question according to its description, call the transfer_to_agent function.`

// transferTool is a handoff tool whose agent_name takes the targets, as an
// enum (enum true) or as a plain string.
func transferTool(enum bool) llm.Tool {
	prop := map[string]any{"type": "STRING", "description": "the agent name to hand the question to"}
	if enum {
		prop["enum"] = []string{"parts_agent", "workshop_agent"}
	}
	params, _ := json.Marshal(map[string]any{"type": "OBJECT", "properties": map[string]any{"agent_name": prop}, "required": []string{"agent_name"}})
	return llm.Tool{Name: "transfer_to_agent", Description: "Hands the question to another agent better suited to answer it.", Parameters: params}
}

// desk is a request of one user turn to an agent whose system prompt is
// system, offering tools.
func desk(system, text string, tools ...llm.Tool) standin.Request {
	return standin.Request{Model: "m", Tools: tools, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: system},
		{Role: llm.RoleUser, Content: text},
	}}
}

// routed is the tool the generic policy calls for r and its argument arg,
// or "" when it calls none.
func routed(r standin.Request, arg string) (string, any) {
	GinkgoHelper()
	names, args := calls(answer(r))
	if len(names) == 0 {
		return "", nil
	}
	Expect(names).To(HaveLen(1))
	return names[0], args[0][arg]
}

var _ = Describe("the generic policy's described options", func() {
	DescribeTable("hands a question to the target whose description fits it",
		func(system, text string, t llm.Tool, arg string, want any) {
			name, got := routed(desk(system, text, t), arg)
			if want == nil {
				Expect(name).To(BeEmpty(), "a plain answer")
				return
			}
			Expect(name).To(Equal(t.Name))
			Expect(got).To(Equal(want))
		},
		Entry("targets as an enum, described in the prompt's entries (ADK)", deskPrompt,
			"How much do new brake pads cost?", transferTool(true), "agent_name", "parts_agent"),
		Entry("the other target", deskPrompt,
			"Can you book a repair for my wheel this week?", transferTool(true), "agent_name", "workshop_agent"),
		Entry("targets as a plain string: the entries labelled with the property's words (older ADK)", deskPrompt,
			"How much do new brake pads cost?", transferTool(false), "agent_name", "parts_agent"),
		Entry("a message that fits no target gets no handoff", deskPrompt,
			"Good morning!", transferTool(true), "agent_name", nil),
		Entry("a target the message names is taken whatever the descriptions say", deskPrompt,
			"Put me through to the workshop agent about brake pads", transferTool(true), "agent_name", "workshop_agent"),
		Entry("targets described in the property's description", "You route tickets.",
			"My laptop is broken and needs a repair",
			tool("route_ticket", "Sends a ticket to a team.", `{"type": "object", "properties": {"team": {"type": "string",
				"enum": ["sales", "service"], "description": "sales: quotes, prices and new orders; service: broken devices and repairs"}}, "required": ["team"]}`),
			"team", "service"),
		Entry("targets as const alternatives with their own descriptions", "You route tickets.",
			"I would like a quote for twenty new laptops",
			tool("route_ticket", "Sends a ticket to a team.", `{"type": "object", "properties": {"team": {"anyOf": [
				{"const": "sales", "description": "Quotes, prices and new orders."},
				{"const": "service", "description": "Broken devices and repairs."}]}}, "required": ["team"]}`),
			"team", "sales"),
		Entry("targets in a bulleted list of the prompt", "You route tickets to a team:\n- `sales`: quotes, prices and new orders\n- `service`: broken devices and repairs",
			"My laptop is broken and needs a repair",
			tool("route_ticket", "Sends a ticket to a team.", `{"type": "object", "properties": {"team": {"type": "string", "enum": ["sales", "service"]}}, "required": ["team"]}`),
			"team", "service"),
		Entry("a compound that starts with a value is not its entry", "You route tickets to a team:\n- sales-tax: refunds of tax on imported parts go to finance\n- sales: quotes, prices and new orders\n- service: broken devices and repairs",
			"I want a refund of the tax on my imported parts",
			tool("route_ticket", "Sends a ticket to a team.", `{"type": "object", "properties": {"team": {"type": "string", "enum": ["sales", "service"]}}, "required": ["team"]}`),
			"team", nil),
		Entry("targets in a table of the prompt", "You route tickets to a team:\n\n| team | handles |\n|---|---|\n| sales | quotes, prices and new orders |\n| service | broken devices and repairs |",
			"I would like a quote for twenty new laptops",
			tool("route_ticket", "Sends a ticket to a team.", `{"type": "object", "properties": {"team": {"type": "string", "enum": ["sales", "service"]}}, "required": ["team"]}`),
			"team", "sales"),
	)

	It("takes an optional enum's values, not the prompt's labelled ones", func() {
		system := deskPrompt + "\n\nAgent name: sales_agent\nAgent description: Quotes prices of brake pads, chains and tyres for shops."
		t := tool("transfer_to_agent", "Hands the question to another agent.", `{"type": "object", "properties": {"agent_name": {"anyOf": [
			{"type": "string", "enum": ["parts_agent", "workshop_agent"]}, {"type": "null"}]}}, "required": ["agent_name"]}`)
		name, got := routed(desk(system, "How much do new brake pads cost?", t), "agent_name")
		Expect(name).To(Equal("transfer_to_agent"))
		Expect(got).To(Equal("parts_agent"), "sales_agent is not one of the values the schema allows")
	})

	It("reads no options when fewer than two targets are described", func() {
		r := desk("You route tickets to a team:\n- `sales`: quotes, prices and new orders",
			"My laptop is broken and needs a repair",
			tool("route_ticket", "Sends a ticket to a team.", `{"type": "object", "properties": {"team": {"type": "string", "enum": ["sales", "service"]}}, "required": ["team"]}`))
		name, _ := routed(r, "team")
		Expect(name).To(BeEmpty(), "no word of the tool fits the message, and one described option is not a choice")
	})

	It("answers the agent a question was handed to as it answers the question, not the other agents' notes", func() {
		lookup := tool("find_part", "Finds a spare part in stock and its price.", `{"type": "object", "properties": {"part": {"type": "string"}}, "required": ["part"]}`)
		r := desk("You order spare parts for the bicycle shop.", "Are brake pads in stock, and at what price?", lookup)
		r.Messages = append(r.Messages,
			llm.Message{Role: llm.RoleUser, Content: "For context:[front_desk] called tool `transfer_to_agent` with parameters: {'agent_name': 'parts_agent'}"},
			llm.Message{Role: llm.RoleUser, Content: "For context:[front_desk] `transfer_to_agent` tool returned result: {'result': None}"})
		name, _ := routed(r, "part")
		Expect(name).To(Equal("find_part"))

		r.Messages = append(r.Messages[:1], r.Messages[2:]...)
		Expect(answer(r).ToolCalls).To(BeEmpty(), "with only the notes there is no question to answer")
	})

	It("relays the answer of an agent that handed the question back, as a supervisor does", func() {
		transfer := func(name string) llm.Tool {
			return tool("transfer_to_"+name, "Ask agent '"+name+"' for help", `{"type": "object", "properties": {}}`)
		}
		r := desk("You supervise a parts expert and a workshop expert.", "Are brake pads in stock, and at what price?",
			transfer("parts_expert"), transfer("workshop_expert"))
		r = after(r, llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "transfer_to_parts_expert", Arguments: json.RawMessage(`{}`)}}},
			"Successfully transferred to parts_expert")
		r.Messages = append(r.Messages, llm.Message{Role: llm.RoleAssistant, Content: "Brake pads are in stock at 18.50 EUR a pair."})
		r = after(r, llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_2", Name: "transfer_back_to_supervisor", Arguments: json.RawMessage(`{}`)}}},
			"Successfully transferred back to supervisor")
		msg := answer(r)
		Expect(msg.ToolCalls).To(BeEmpty())
		Expect(msg.Content).To(ContainSubstring("Brake pads are in stock at 18.50 EUR a pair."))
		Expect(msg.Content).NotTo(ContainSubstring("Successfully transferred"))

		r.Messages = r.Messages[:len(r.Messages)-2]
		Expect(answer(r).Content).To(ContainSubstring("Successfully transferred to parts_expert"),
			"an agent's text that nothing handed back is not relayed: it answers from its own results")
	})

	It("relays what the agent it transferred the question to said, as ADK asks the first agent again after a streamed transfer", func() {
		r := desk(deskPrompt, "Are brake pads in stock, and at what price?", transferTool(true))
		r = after(r, llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "transfer_to_agent", Arguments: json.RawMessage(`{"agent_name": "parts_agent"}`)}}},
			`{"result": "Transfer queued"}`)
		said := "For context:[parts_agent] said: Brake pads are in stock at 18.50 EUR a pair."
		r.Messages = append(r.Messages,
			llm.Message{Role: llm.RoleUser, Content: "For context:[parts_agent] called tool `find_part` with parameters: {\"part\":\"brake pads\"}"},
			llm.Message{Role: llm.RoleUser, Content: "For context:[parts_agent] tool `find_part` returned result: {\"in_stock\":4,\"price_eur\":18.5}"},
			llm.Message{Role: llm.RoleUser, Content: said + "[parts_agent] called tool `log_sale` with parameters: {}"})
		msg := answer(r)
		Expect(msg.ToolCalls).To(BeEmpty(), "the question was answered: transferring it again loops")
		Expect(msg.Content).To(ContainSubstring("Brake pads are in stock at 18.50 EUR a pair."))
		Expect(msg.Content).NotTo(ContainSubstring("log_sale"))

		lookup := tool("find_part", "Finds a spare part in stock and its price.", `{"type": "object", "properties": {"part": {"type": "string"}}, "required": ["part"]}`)
		r = desk("You order spare parts for the bicycle shop.", "Are brake pads in stock, and at what price?", lookup)
		r.Messages = append(r.Messages, llm.Message{Role: llm.RoleUser, Content: "For context:[front_desk] said: Let me find the right colleague."},
			llm.Message{Role: llm.RoleUser, Content: "For context:[front_desk] called tool `transfer_to_agent` with parameters: {'agent_name': 'parts_agent'}"})
		name, _ := routed(r, "part")
		Expect(name).To(Equal("find_part"), "what another agent said before this agent was asked is not an answer handed back")
	})

	It("answers the agent a question was handed to with its own tools, not from the handoff's result", func() {
		lookup := tool("find_part", "Finds a spare part in stock and its price.", `{"type": "object", "properties": {"part": {"type": "string"}}, "required": ["part"]}`)
		r := desk("You order spare parts for the bicycle shop.", "Are brake pads in stock, and at what price?", lookup)
		handoff := llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "transfer_to_parts_agent", Arguments: json.RawMessage(`{}`)}}}
		r = after(r, handoff, `{"assistant": "parts_agent"}`)
		msg := answer(r)
		name, _ := routed(r, "part")
		Expect(name).To(Equal("find_part"), "the handoff's result is the other agent's")
		Expect(msg.ToolCalls[0].ID).NotTo(Equal("call_1"), "a fresh id")

		r = after(r, msg, `{"part": "brake pads", "in_stock": 4, "price_eur": 18.5}`)
		Expect(answer(r).Content).To(ContainSubstring("18.5"), "then it answers from its own tool's result")
		Expect(answer(r).Content).NotTo(ContainSubstring("parts_agent"))

		r.Tools = nil
		Expect(answer(r).Content).To(ContainSubstring("parts_agent"), "a request that offers no tools is asked to answer from every result")

		r.Tools = []llm.Tool{tool("order_part", "Orders a spare part.", `{"type": "object", "properties": {"part": {"type": "string"}}, "required": ["part"]}`)}
		r.Choice.Only = []string{"order_part"}
		Expect(answer(r).Content).To(ContainSubstring("18.5"),
			"a request that narrows the tools its answer may call (tool_choice) hides the others from the policy: every result still counts")
	})
})
