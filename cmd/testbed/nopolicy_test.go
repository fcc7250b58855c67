package main

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
)

var _ = Describe("record when the stand-in had no policy for a prompt", func() {
	It("exits 7 naming the cause and the scenarios it wrote nothing for, not as a failed expectation", func() {
		cause := cassette.NoPolicyCause + ` this prompt (system prompt "You are ODBchat, the assistant…", tools: []); add one in harness/standin (POST http://localhost:11434/v1/chat/completions); nothing was written for this scenario and its previous cassette is kept`
		rep := &report.Report{Suites: []report.Suite{{Name: "odbchat", Variants: []report.Variant{{Name: "single-pass", Scenarios: []report.Scenario{
			{ID: "ac1", Verdict: report.VerdictError, Error: cause},
			{ID: "ac2", Verdict: report.VerdictPass},
			{ID: "ac3", Verdict: report.VerdictFail},
			{ID: "ac4", Verdict: report.VerdictError, Error: cause},
		}}}}}}
		err := recordVerdict(rep, cassette.ModeRecord)
		var ee *exitError
		Expect(errors.As(err, &ee)).To(BeTrue())
		Expect(ee.code).To(Equal(exitNoPolicy))
		Expect(exitNoPolicy).To(Equal(7), "the documented code")
		Expect(err.Error()).To(HavePrefix("the stand-in has no policy for some prompts: nothing was written for 2 scenario runs (odbchat/single-pass/ac1, odbchat/single-pass/ac4)"))
		Expect(err.Error()).To(ContainSubstring("2 others were recorded; the first: " + cause))
	})
})
