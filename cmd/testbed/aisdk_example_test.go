package main

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// aisdkRoot is the Vercel AI SDK example's own project root.
const aisdkRoot = repoRoot + "/examples/ai-sdk-ts"

var _ = Describe("the Vercel AI SDK example (examples/ai-sdk-ts)", Label("examples"), func() {
	It("replays its four variants through the SDK's Anthropic and Google providers, whole and streamed", func() {
		rep := exampleReplay(exampleProjectOf(aisdkRoot, "ai"), 4, 5)
		for _, v := range rep.Suites[0].Variants {
			Expect(v.Summary.Streaming != nil).To(Equal(strings.HasSuffix(v.Name, "-streaming")), v.Name)
		}
	})

	It("records against the stand-ins, whose every answer the SDK's schemas of the two APIs accept, and replays what it recorded", func() {
		root := exampleProjectOf(aisdkRoot, "ai")
		r := testbed("record", "--root", root, "--json", "--quiet")
		Expect(r.code).To(Equal(exitOK), r.String())
		By("reproducing the Anthropic cassettes byte for byte")
		expectSameCassettes(aisdkRoot, root, "ai-sdk-ts/anthropic*/*.yaml", 10)
		By("replaying the Gemini ones, whose function call ids the SDK makes up anew on every run")
		again := testbed("run", "--root", root, "--out", "", "--quiet")
		Expect(again.code).To(Equal(exitOK), again.String())
	})
})
