package kura_test

import (
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/kura"
	"github.com/agentreplay/testbed/agents/llm"
)

var _ = Describe("variant config", func() {
	DescribeTable("rejects what it does not know",
		func(variant map[string]any, want string) {
			w := newWorld()
			_, err := kura.New(w.config(variant))
			Expect(err).To(MatchError(ContainSubstring(want)))
			Expect(err).To(MatchError(HavePrefix("kura: variant config: ")))
		},
		Entry("an unknown key", map[string]any{"stat": "compact"}, `unknown field "stat"`),
		Entry("an unknown key, naming the known ones", map[string]any{"trim": true}, "known keys: state, units"),
		Entry("a bad state", map[string]any{"state": "tiny"}, `state "tiny": want full or compact`),
		Entry("a state in the wrong case", map[string]any{"state": "Compact"}, `state "Compact"`),
		Entry("a state that is not a string", map[string]any{"state": 3}, "cannot unmarshal number"),
		Entry("bad units", map[string]any{"units": "kelvin"}, `units "kelvin": want imperial or metric`),
		Entry("empty units", map[string]any{"units": ""}, `units "": want imperial or metric`),
	)

	It("takes the synthesizer's prompt from a file of the prompt folder", func() {
		w := newWorld()
		cfg := w.config(map[string]any{"synthesizer_prompt": "prompts/synth.md"})
		_, err := kura.New(cfg)
		Expect(err).To(MatchError(`kura: synthesizer_prompt "prompts/synth.md" set but no prompt folder given`))
		cfg.Prompts = fstest.MapFS{"prompts/synth.md": {Data: []byte("You are the Synthesizer of Vaya. Be brief.")}}
		a, err := kura.New(cfg)
		Expect(err).NotTo(HaveOccurred())
		sets := a.(agents.Prompted).PromptSets()
		Expect(sets[2].Name).To(Equal("prompts/synth.md"))
		Expect(sets[2].Text).To(Equal("You are the Synthesizer of Vaya. Be brief."))
		cfg.Prompts = fstest.MapFS{}
		_, err = kura.New(cfg)
		Expect(err).To(MatchError(HavePrefix("kura: synthesizer_prompt: ")))
	})

	DescribeTable("accepts the known settings",
		func(variant map[string]any, units string) {
			w := newWorld()
			w.script("planner", text(`{"steps": [{"action": "Conversation"}]}`))
			r := ask(w.agent(variant), "Tell me something nice please.")
			Expect(at(r.WorldState, "context", "units")).To(Equal(units))
		},
		Entry("none", nil, "imperial"),
		Entry("an empty block", map[string]any{}, "imperial"),
		Entry("full state", map[string]any{"state": "full"}, "imperial"),
		Entry("compact state and metric units", map[string]any{"state": "compact", "units": "metric"}, "metric"),
	)

	It("asks for METRIC weather and answers in °C in the metric variant (stand-in end to end)", func() {
		w := newWorld()
		r := ask(w.agent(map[string]any{"units": "metric"}), "What's the weather in Paris?")
		Expect(r.Error).To(BeEmpty())
		reqs := w.transport.Requests(weatherHost)
		Expect(reqs).To(HaveLen(1))
		Expect(reqs[0].Query.Get("unitsSystem")).To(Equal("METRIC"))
		Expect(r.Text).To(Equal("In Paris it's 12.4°C and partly cloudy, feels like 11.0°C."))
	})
})

var _ = Describe("full and compact world state", func() {
	const query = "What's the weather in Paris?"
	var full, compact *world
	var fullReply, compactReply kura.Reply

	BeforeEach(func() {
		full, compact = newWorld(), newWorld()
		fullReply = ask(full.agent(map[string]any{"state": "full"}), query)
		compactReply = ask(compact.agent(map[string]any{"state": "compact"}), query)
	})

	userOf := func(xs []exchange) []string {
		var out []string
		for _, x := range xs {
			out = append(out, userMessage(x.Request))
		}
		return out
	}

	It("give the same answer and the same final state", func() {
		Expect(compactReply.Text).To(Equal(fullReply.Text))
		Expect(compactReply.Text).To(Equal("In Paris it's 54.3°F and partly cloudy, feels like 51.8°F."))
		Expect(asJSON(compactReply.WorldState)).To(MatchJSON(asJSON(fullReply.WorldState)))
		Expect(compact.model.roles()).To(Equal(full.model.roles()))
	})

	It("send the planner the same request", func() {
		f, c := full.model.ofRole("planner"), compact.model.ofRole("planner")
		Expect(f).To(HaveLen(1))
		Expect(c).To(HaveLen(1))
		Expect(c[0].Request).To(Equal(f[0].Request))
		Expect(at(fromJSON(userMessage(f[0].Request)), "world_state", "slots")).To(BeNil(), "the planner always sees the compact state")
	})

	It("send the executor and the synthesizer a smaller world state when compact", func() {
		for _, role := range []string{"executor", "synthesizer"} {
			f, c := userOf(full.model.ofRole(role)), userOf(compact.model.ofRole(role))
			Expect(c).To(HaveLen(len(f)))
			Expect(f).NotTo(BeEmpty())
			for i := range f {
				Expect(len(c[i])).To(BeNumerically("<", len(f[i])), "%s call %d", role, i)
				fs, cs := at(fromJSON(f[i]), "world_state"), at(fromJSON(c[i]), "world_state")
				Expect(fs).To(HaveKey("slots"))
				Expect(fs).To(HaveKey("memory"))
				Expect(cs).NotTo(HaveKey("slots"))
				Expect(cs).NotTo(HaveKey("memory"))
				Expect(at(cs, "context")).NotTo(HaveKey("city"))
				Expect(at(cs, "query", "raw")).To(Equal(query))
			}
		}
		synth := at(fromJSON(userOf(compact.model.ofRole("synthesizer"))[0]), "world_state", "context")
		Expect(at(synth, "weather", "Paris", "temp")).To(Equal(54.3))
		Expect(at(synth, "plan")).To(Equal(map[string]any{"status": "planning", "steps": 2.0, "completed": 2.0}))
	})

	It("send the same tool results to the executor", func() {
		tools := func(w *world) []string {
			var out []string
			for _, x := range w.model.ofRole("executor") {
				if m, ok := toolResult(x.Request); ok {
					out = append(out, m.Content)
				}
			}
			return out
		}
		Expect(tools(compact)).To(Equal(tools(full)))
		Expect(tools(full)).To(HaveLen(2))
	})

	It("does not leave the JSON mode on for any role but the planner", func() {
		for _, x := range full.model.exchanges() {
			Expect(x.Request.Output == llm.OutputJSON).To(Equal(x.Request.Role == "planner"), x.Request.Role)
			Expect(x.Request.Temperature).To(Equal(llm.Float(0.2)))
		}
	})
})
