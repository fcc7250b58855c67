package main

import (
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
)

// aisdkRoot is the Vercel AI SDK example's own project root.
const aisdkRoot = repoRoot + "/examples/ai-sdk-ts"

var _ = Describe("the Vercel AI SDK example (examples/ai-sdk-ts)", Label("examples"), func() {
	It("replays its four variants through the SDK's Anthropic and Google providers, whole and streamed", func() {
		root := exampleProjectOf(aisdkRoot, "ai")
		r := testbed("run", "--root", root, "--json", "--out", "", "--quiet")
		Expect(r.code).To(Equal(exitOK), r.String())
		var rep report.Report
		Expect(json.Unmarshal([]byte(r.stdout), &rep)).To(Succeed())
		Expect(rep.Suites).To(HaveLen(1))
		Expect(rep.Suites[0].Variants).To(HaveLen(4))
		for _, v := range rep.Suites[0].Variants {
			Expect(v.Provenance).To(HavePrefix("replayed from generic plumbing stand-in"), v.Name)
			Expect(v.Scenarios).To(HaveLen(5), v.Name)
			for _, sc := range v.Scenarios {
				Expect(sc.Verdict).To(Equal(report.VerdictPass), v.Name+"/"+sc.ID)
				Expect(sc.Unplayed).To(BeZero(), v.Name+"/"+sc.ID)
			}
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
