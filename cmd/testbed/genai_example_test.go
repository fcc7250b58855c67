package main

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// genaiRoot is the Google Gen AI SDK example's own project root.
const genaiRoot = repoRoot + "/examples/genai-ts"

var _ = Describe("the Google Gen AI SDK example on the Interactions API (examples/genai-ts)", Label("examples"), func() {
	It("replays its three variants: stored (previous_interaction_id), streamed, and stateless", func() {
		rep := exampleReplay(exampleProjectOf(genaiRoot, "@google/genai"), 3, 6)
		byName := map[string]int{}
		for i, v := range rep.Suites[0].Variants {
			byName[v.Name] = i
			Expect(v.Summary.Streaming != nil).To(Equal(v.Name == "streaming"), v.Name)
			Expect(v.Summary.LLMCallsMean).To(BeNumerically(">", 1), v.Name)
		}
		stored, stateless := rep.Suites[0].Variants[byName["stored"]], rep.Suites[0].Variants[byName["stateless"]]
		// Only the calls' ids, derived from each request, tell the two apart.
		Expect(stored.Summary.InputTokensMean).To(BeNumerically("~", stateless.Summary.InputTokensMean, 2),
			"a follow-up that names the interaction it continues is read with its conversation, as one that sends it whole")
		Expect(stored.Summary.InputTokensMean).To(BeNumerically(">", 400))
	})

	It("records against the stand-ins byte for byte, the SDK reading every answer, whole and streamed", func() {
		root := exampleProjectOf(genaiRoot, "@google/genai")
		r := testbed("record", "--root", root, "--json", "--quiet")
		Expect(r.code).To(Equal(exitOK), r.String())
		expectSameCassettes(genaiRoot, root, "genai-ts/*/*.yaml", 18)
	})
})
