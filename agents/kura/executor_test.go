package kura_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
)

// The Executor's answer is read with llm.FirstJSONObject: the first
// balanced {...} of its text is the {deltaState, snippet} object.
var _ = Describe("reading the executor's answer", func() {
	var w *world
	BeforeEach(func() {
		w = newWorld()
		w.script("planner", text(`{"steps": [{"id": "S1", "action": "Geocode", "args": {"address": "Paris"}}]}`))
	})

	answering := func(output string) {
		w.script("executor", executor(map[string]stepScript{
			"S1": {calls: []llm.ToolCall{call("geocode", `{"address": "Paris"}`)}, output: output},
		}))
	}

	DescribeTable("takes the first balanced object, whatever surrounds it",
		func(output, snippet string) {
			answering(output)
			r := ask(w.agent(nil), "Where is Paris?")
			Expect(r.Error).To(BeEmpty())
			Expect(r.Snippets).To(Equal([]string{snippet}))
			Expect(at(r.WorldState, "context", "places", "Paris")).To(Equal(fromJSON(parisPlace)))
		},
		Entry("the object alone, with nested braces", geocodeOut, "Found Paris, France."),
		Entry("prose and a code fence around it", "Done! Here is the patch:\n```json\n"+geocodeOut+"\n```\nAnything else?", "Found Paris, France."),
		Entry("braces inside a string",
			`{"deltaState": {"context": {"places": {"Paris": `+parisPlace+`}}}, "snippet": "Found }{ Paris {{."}`, "Found }{ Paris {{."),
		Entry("escaped quotes inside a string",
			`{"deltaState": {"context": {"places": {"Paris": `+parisPlace+`}}}, "snippet": "Found \"Paris}\"."} {"deltaState": {"x": 1}}`, `Found "Paris}".`),
		Entry("a second object after it", geocodeOut+` {"deltaState": {"context": {"places": {}}}, "snippet": "second"}`, "Found Paris, France."),
	)

	It("treats a missing deltaState as an empty patch", func() {
		answering(`{"snippet": "Nothing new."}`)
		r := ask(w.agent(nil), "Where is Paris?")
		Expect(r.Error).To(BeEmpty())
		Expect(r.Snippets).To(Equal([]string{"Nothing new."}))
		Expect(at(r.WorldState, "context", "places")).To(BeEmpty())
	})

	DescribeTable("fails the turn when there is no object to take",
		func(output string) {
			answering(output)
			r := ask(w.agent(nil), "Where is Paris?")
			Expect(r.Text).To(Equal("I couldn't complete that request. Please try again in a moment."))
			Expect(r.Error).To(HavePrefix("step S1 (Geocode): executor output has no {deltaState, snippet} JSON object"))
			Expect(w.model.ofRole("synthesizer")).To(BeEmpty())
		},
		Entry("prose only", "Paris is in France."),
		Entry("an empty answer", ""),
		Entry("an unbalanced object", `{"deltaState": {"context": {}, "snippet": "cut`),
		Entry("an object that is not the contract", `{"deltaState": "Paris", "snippet": 3}`),
	)

	It("answers directly when the step needs no tool", func() {
		w.script("executor", text(`{"deltaState": {"context": {"places": {"Paris": `+parisPlace+`}}}, "snippet": "Known already."}`))
		r := ask(w.agent(nil), "Where is Paris?")
		Expect(r.Error).To(BeEmpty())
		Expect(w.model.roles()).To(Equal([]string{"planner", "executor", "synthesizer"}))
		Expect(w.tracer.Reports("")).To(BeEmpty())
		Expect(r.Snippets).To(Equal([]string{"Known already."}))
	})
})
