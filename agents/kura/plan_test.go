package kura_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/kura"
)

var _ = Describe("ParsePlan", func() {
	It("reads a valid plan", func() {
		p, err := kura.ParsePlan("\n  " + twoStepPlan + "\n")
		Expect(err).NotTo(HaveOccurred())
		Expect(*p).To(Equal(kura.Plan{
			Steps: []kura.Step{
				{ID: "S1", Action: kura.ActionGeocode, Args: map[string]any{"address": "Paris"}},
				{ID: "S2", Action: kura.ActionWeather, Args: map[string]any{"location": "Paris"}},
			},
			Status: "planning", Confidence: 0.9,
		}))
	})

	It("accepts every action of the planner prompt", func() {
		p, err := kura.ParsePlan(`{"steps": [{"action": "Geolocate"}, {"action": "ReverseGeocode"}, {"action": "Geocode"},
			{"action": "Weather"}, {"action": "Transit"}, {"action": "Places"}, {"action": "Conversation"}]}`)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Steps).To(HaveLen(7))
	})

	It("accepts the real planner's reasoning on each step", func() {
		p, err := kura.ParsePlan(`{"steps": [{"id": "S1", "action": "Geocode", "args": {"address": "Paris"}, "reasoning": "the weather needs a place"}], "status": "planning", "confidence": 0.9}`)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Steps[0].Reasoning).To(Equal("the weather needs a place"))
	})

	It("fills missing ids by position and missing args with an empty map", func() {
		p, err := kura.ParsePlan(`{"steps": [{"action": "Geolocate"}, {"id": "custom", "action": "ReverseGeocode", "args": {}}, {"action": "Weather", "args": null}]}`)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Steps).To(Equal([]kura.Step{
			{ID: "S1", Action: kura.ActionGeolocate, Args: map[string]any{}},
			{ID: "custom", Action: kura.ActionReverseGeocode, Args: map[string]any{}},
			{ID: "S3", Action: kura.ActionWeather, Args: map[string]any{}},
		}))
	})

	DescribeTable("rejects what is not one strict plan",
		func(text string, want ...string) {
			p, err := kura.ParsePlan(text)
			Expect(err).To(HaveOccurred())
			Expect(p).To(BeNil())
			for _, w := range want {
				Expect(err.Error()).To(ContainSubstring(w))
			}
		},
		Entry("an unknown action, named", `{"steps": [{"action": "Geocode"}, {"action": "Teleport"}]}`, `step 2 has unknown action "Teleport"`),
		Entry("an action in the wrong case", `{"steps": [{"action": "geocode"}]}`, `unknown action "geocode"`),
		Entry("prose", "I'm not sure what you need.", "not a valid plan JSON", `(output: "I'm not sure what you need.")`),
		Entry("an empty answer", "", "not a valid plan JSON"),
		Entry("a fenced plan", "```json\n"+twoStepPlan+"\n```", "not a valid plan JSON"),
		Entry("cut-off JSON", `{"steps": [{"action": "Geocode"`, "not a valid plan JSON"),
		Entry("text after the plan", twoStepPlan+" Let me know if you need more.", "text after the plan JSON"),
		Entry("a second object after the plan", twoStepPlan+` {"steps": []}`, "text after the plan JSON"),
		Entry("a stray closing brace after the plan", Label("regression"), twoStepPlan+"}", "text after the plan JSON"),
		Entry("a stray closing bracket after the plan", Label("regression"), twoStepPlan+"]", "text after the plan JSON"),
		Entry("no steps", `{"steps": [], "status": "complete"}`, "no steps"),
		Entry("no steps key", `{"status": "planning"}`, "no steps"),
		Entry("null", `null`, "no steps"),
		Entry("an unknown field on the plan", `{"steps": [{"action": "Geolocate"}], "reasoning": "because"}`, "not a valid plan JSON", `unknown field "reasoning"`),
		Entry("an unknown field on a step", `{"steps": [{"action": "Geolocate", "why": "because"}]}`, "not a valid plan JSON", `unknown field "why"`),
		Entry("a wrong type", `{"steps": [{"action": "Geocode", "args": "Paris"}]}`, "not a valid plan JSON"),
	)
})

var _ = Describe("Plan.Expand", func() {
	It("unrolls forEach in order, substituting {item} in string args only", func() {
		p, err := kura.ParsePlan(`{"steps": [
			{"id": "S1", "action": "Geocode", "args": {"address": "{item}", "note": "{item} and {item}", "radius": 500, "nested": {"x": "{item}"}}, "forEach": ["Paris", "Tokyo", "Lima"]},
			{"id": "S2", "action": "Weather", "args": {"location": "{item}"}, "forEach": ["Paris", "Tokyo"]},
			{"id": "S3", "action": "Conversation", "args": {"text": "{item}"}}
		]}`)
		Expect(err).NotTo(HaveOccurred())
		nested := map[string]any{"x": "{item}"}
		geocode := func(id, place string) kura.Step {
			return kura.Step{ID: id, Action: kura.ActionGeocode, Args: map[string]any{"address": place, "note": place + " and " + place, "radius": 500.0, "nested": nested}}
		}
		Expect(p.Expand()).To(Equal([]kura.Step{
			geocode("S1.1", "Paris"), geocode("S1.2", "Tokyo"), geocode("S1.3", "Lima"),
			{ID: "S2.1", Action: kura.ActionWeather, Args: map[string]any{"location": "Paris"}},
			{ID: "S2.2", Action: kura.ActionWeather, Args: map[string]any{"location": "Tokyo"}},
			{ID: "S3", Action: kura.ActionConversation, Args: map[string]any{"text": "{item}"}},
		}))
		Expect(p.Steps[0].Args["address"]).To(Equal("{item}"), "the plan itself is unchanged")
		Expect(p.Steps[0].ForEach).To(HaveLen(3))
	})

	It("returns a plan without forEach as it is", func() {
		p, err := kura.ParsePlan(twoStepPlan)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Expand()).To(Equal(p.Steps))
	})
})
