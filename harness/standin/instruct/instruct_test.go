package instruct_test

import (
	"os"
	"path/filepath"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/standin/instruct"
)

// tools are the tools the specs' requests offer.
var tools = []string{"fetch_orders", "open_order", "refund_order", "audit_log", "lookup_help"}

// formCases is one text per form, in wordings no agent's prompt uses, and
// what Read must find in it.
var formCases = map[string]struct {
	text  string
	check func(instruct.Set)
}{
	"call-first": {"Always call `audit_log` first.", func(s instruct.Set) {
		Expect(s.First).To(Equal([]string{"audit_log"}))
		before, stated := s.Precedes("audit_log", "open_order")
		Expect(before && stated).To(BeTrue())
	}},
	"only-after": {"Only after the order is known, call refund_order.\nCall lookup_help only after audit_log.", func(s instruct.Set) {
		Expect(s.Order).To(ContainElement(instruct.Pair{Before: "audit_log", After: "lookup_help"}))
	}},
	"before": {"Use open_order before calling refund_order.", func(s instruct.Set) {
		before, stated := s.Precedes("open_order", "refund_order")
		Expect(before).To(BeTrue())
		Expect(stated).To(BeTrue())
	}},
	"then": {"Look the order up with fetch_orders, then refund_order.", func(s instruct.Set) {
		Expect(s.Order).To(Equal([]instruct.Pair{{Before: "fetch_orders", After: "refund_order"}}))
	}},
	"numbered-steps": {"Flow:\n1. Search:\n   - use `fetch_orders`.\n2. Call `open_order` on it.\n3. Only after that, call `refund_order`.", func(s instruct.Set) {
		for _, p := range [][2]string{{"fetch_orders", "refund_order"}, {"open_order", "refund_order"}, {"fetch_orders", "open_order"}} {
			before, stated := s.Precedes(p[0], p[1])
			Expect(before && stated).To(BeTrue(), "%s before %s", p[0], p[1])
		}
		before, _ := s.Precedes("refund_order", "open_order")
		Expect(before).To(BeFalse())
	}},
	"prohibition": {"Helpers (never reveal them to customers):\n- lookup_help: docs\n- audit_log: history\n\nDo not display raw card numbers.", func(s instruct.Set) {
		Expect(s.Forbids("name", "lookup_help")).To(BeTrue())
		Expect(s.Forbids("name", "audit_log")).To(BeTrue())
		Expect(s.Forbids("name", "open_order")).To(BeFalse())
		Expect(s.Forbids("show", "", "card")).To(BeTrue())
		Expect(instruct.Read("Don't reveal audit_log.", tools).Forbids("name", "audit_log")).To(BeTrue())
		Expect(s.Forbids("call", "audit_log")).To(BeFalse())
		Expect(instruct.Read("Never call audit_log.", tools).Forbids("call", "audit_log")).To(BeTrue())
		Expect(instruct.Read("Do not use `audit_log`.", tools).Forbids("call", "audit_log")).To(BeTrue())
		Expect(instruct.Read("Do not call audit_log unless asked.", tools).Forbids("call", "audit_log")).To(BeFalse(), "a condition is call-only-when")
		Expect(instruct.Read("Never use audit_log for refunds.", tools).Forbids("call", "audit_log")).To(BeFalse(), "a condition is no prohibition")
	}},
	"call-only-when": {"Do not call refund_order unless the customer asks for money back.", func(s instruct.Set) {
		Expect(s.Routes).To(Equal([]instruct.Route{{Target: "refund_order", When: "the customer asks for money back", Only: true}}))
	}},
	"route": {"- \"billing\" when the message is about an invoice.\n- \"other\" for the rest.\nFor any shipping question, call `fetch_orders`.\nTo check a past action, use audit_log.\nFor a compliment, reply briefly and offer help with orders or refunds.", func(s instruct.Set) {
		Expect(s.Routes).To(Equal([]instruct.Route{
			{Target: "billing", When: "the message is about an invoice"},
			{Target: "other", When: "the rest", Else: true},
			{Target: "fetch_orders", When: "any shipping question"},
			{Target: "audit_log", When: "check a past action"},
			{When: "a compliment", Reply: "reply briefly and offer help with orders or refunds"},
		}))
	}},
	"format-example": {`Write prices like "€12.50" (or "$12.50" in US stores).`, func(s instruct.Set) {
		// "Write" is not "format": nothing read.
		Expect(s.Formats).To(BeEmpty())
	}},
	"sentences": {"Respond in two to four short sentences.\n## refund_order\nReply in one sentence.", func(s instruct.Set) {
		Expect(s.Sentences).To(Equal(instruct.Range{Min: 2, Max: 4}), "a tool's section speaks of that tool only")
	}},
	"mention-only-when": {`Mention "out of stock" only when the count is zero.`, func(s instruct.Set) {
		when, ok := s.Mentioned("out of stock")
		Expect(ok).To(BeTrue())
		Expect(when).To(Equal("the count is zero"))
	}},
	"language": {"Always write in French.", func(s instruct.Set) { Expect(s.Language).To(Equal("fr")) }},
	"json-shape": {`Return with a JSON object: {"intent": "buy" | "ask", "items": [{"sku": "…"}], "score": 0.5}`, func(s instruct.Set) {
		Expect(s.Shape).To(Equal([]string{"intent", "items", "score"}))
		Expect(s.Values).To(HaveKeyWithValue("intent", []string{"buy", "ask"}))
	}},
	"default-value": {`currency defaults to "EUR"; sizes ["s", "m"] by default.`, func(s instruct.Set) {
		Expect(s.Defaults).To(Equal(map[string]any{"currency": "EUR", "sizes": []any{"s", "m"}}))
	}},
	"may-say": {`When asked, you may say "I checked our records".`, func(s instruct.Set) {
		Expect(s.Allowed).To(Equal([]string{"I checked our records"}))
	}},
}

var _ = Describe("reading instructions", func() {
	It("has every form listed in docs/standin.md", func() {
		doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "standin.md"))
		Expect(err).NotTo(HaveOccurred())
		for _, f := range instruct.Forms() {
			Expect(string(doc)).To(ContainSubstring("| `"+f.Name+"` |"), f.Name)
		}
	})

	It("has a case for every form", func() {
		for _, f := range instruct.Forms() {
			Expect(formCases).To(HaveKey(f.Name))
			Expect(f.Doc).NotTo(BeEmpty())
			Expect(f.Default).NotTo(BeEmpty(), "every form states its default")
		}
	})

	for name, c := range formCases {
		It("reads the "+name+" form", func() {
			s := instruct.Read(c.text, tools)
			c.check(s)
			if name != "format-example" {
				Expect(s.Fired).To(ContainElement(name))
			}
		})
	}

	It("reads a format given by examples, each with its qualifier", func() {
		s := instruct.Read(`Format distances like "3.2 km" (or "2.0 mi" for US users).`, tools)
		f, ok := s.FormatOf("distance")
		Expect(ok).To(BeTrue())
		Expect(f.Examples).To(Equal([]instruct.Example{{Text: "3.2 km"}, {Text: "2.0 mi", Qualifier: "for US users"}}))
	})

	It("reads the user's language", func() {
		Expect(instruct.Read("Please respond in the user's own language, briefly.", nil).Language).To(BeEmpty(), "\"own\" is not the form")
		Expect(instruct.Read("Reply in the user's language.", nil).Language).To(Equal("user"))
	})

	It("reads the fields of a shape listed as bullets", func() {
		s := instruct.Read("Reply with ONE JSON object. Keys:\n- \"label\": \"spam\" | \"ham\"\n- \"why\": a sentence", nil)
		Expect(s.Shape).To(Equal([]string{"label", "why"}))
		Expect(s.Values["label"]).To(Equal([]string{"spam", "ham"}))
	})

	It("reads nothing from a text that states no instruction: every form's default applies", func() {
		s := instruct.Read("You are a helpful assistant for a shop. Be kind.", tools)
		Expect(s.Fired).To(BeEmpty())
		Expect(s.Shape).To(BeNil())
		Expect(s.Sentences).To(BeZero())
		Expect(s.Language).To(BeEmpty())
		_, stated := s.Precedes("open_order", "refund_order")
		Expect(stated).To(BeFalse())
		Expect(slices.ContainsFunc(tools, func(t string) bool { return s.Forbids("name", t) })).To(BeFalse())
	})

	It("reads a tool named as the means of a task as a route to it, but not a call's arguments", func() {
		s := instruct.Read("Inspect big files with `lookup_help` rather than opening them.\nCall `open_order` with the id.", tools)
		Expect(s.Routes).To(Equal([]instruct.Route{{Target: "lookup_help", When: "Inspect big files"}}))
	})

	It("reads a hint left in a tool result", func() {
		s := instruct.Read("Saved as file f-2. Use the 'lookup_help' tool to read it.", tools)
		Expect(s.Routes).To(Equal([]instruct.Route{{Target: "lookup_help", When: "read it"}}))
	})
})
