package main

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// testbed show of a later sample must say why that sample failed: its own
// replies and checks, as for sample 1 (cli.md: "the notes, replies and
// checks"); it printed the sample's verdict and timeline alone.
var _ = Describe("testbed show of a later sample", func() {
	const target = "odbchat-sampled/terse-router/strait-yesterday-en#2"

	It("prints that sample's replies and failed checks", func() {
		r := testbed("show", target, "--root", repoRoot)
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(HavePrefix("odbchat-sampled/terse-router/strait-yesterday-en (sample 2 of 5): FAIL"))
		Expect(r.stdout).To(ContainSubstring("\nreply 1: "))
		Expect(r.stdout).To(ContainSubstring(`✗ turn 1 args (model behaviour): /date: want "2025-11-05", got "2025-11-06"`))
	})

	It("gives them in --json too", func() {
		r := testbed("show", target, "--root", repoRoot, "--json")
		Expect(r.code).To(Equal(exitOK), r.String())
		var got struct {
			Verdict string
			Checks  []struct {
				Name string
				Pass bool
			}
			Answer []string
		}
		Expect(json.Unmarshal([]byte(r.stdout), &got)).To(Succeed())
		Expect(got.Verdict).To(Equal("fail"))
		Expect(got.Answer).To(HaveLen(1))
		Expect(got.Checks).To(ContainElement(And(HaveField("Name", "args"), HaveField("Pass", false))))
	})
})
