package main

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("finish reasons in a replayed trace", func() {
	It("reads Gemini's STOP on a function call as tool_calls, keeping STOP beside it", func() {
		r := testbed("show", "kura/compact-state/address-not-found", "--root", "../..", "--json")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(ContainSubstring(`"finish_reason": "tool_calls",
        "raw_finish_reason": "STOP"`))
		Expect(r.stdout).To(ContainSubstring(`"finish_reason": "stop",
        "raw_finish_reason": "STOP"`))
		Expect(r.stdout).To(ContainSubstring(`"response_model": "gemini-1.5-flash"`))
	})
})
