package scenario_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/scenario"
)

var _ = Describe("match:", func() {
	It("reads the headers compared and every ignore and normalise rule, in order, with its line", func() {
		src := minimal + `
match:
  headers: [x-tenant-id]
  ignore:
    - body: /metadata/request_id
    - query: ts
    - header: X-Request-Id
  normalise:
    - pattern: uuid
    - pattern: iso8601
      body: /messages/*/content
    - regex: 'nonce-[0-9a-f]+'
      query: state
      as: NONCE
`
		s, err := scenario.Parse("suite.yaml", []byte(src), opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Match.Describe()).To(Equal([]string{
			"compare headers X-Tenant-Id",
			"ignore body /metadata/request_id",
			"ignore query ts",
			"ignore header X-Request-Id",
			"normalise uuid anywhere → <uuid>",
			"normalise iso8601 in body /messages/*/content → <iso8601>",
			`normalise regex "nonce-[0-9a-f]+" in query state → NONCE`,
		}))
		Expect(s.Match.List[0].Line).To(Equal(15))
		Expect(s.Match.HeaderNames()).To(Equal([]string{"X-Request-Id", "X-Tenant-Id"}))
	})

	It("reads tool_results: any_order, and says where an order it does not know is written", func() {
		s, err := scenario.Parse("suite.yaml", []byte(minimal+"\nmatch:\n  tool_results: any_order\n"), opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Match.ToolResultsAnyOrder()).To(BeTrue())
		Expect(s.Match.Describe()).To(Equal([]string{"tool results of one turn in any order"}))

		s, err = scenario.Parse("suite.yaml", []byte(minimal+"\nmatch:\n  tool_results: in_order\n"), opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Match.ToolResultsAnyOrder()).To(BeFalse())

		_, err = scenario.Parse("suite.yaml", []byte(minimal+"\nmatch:\n  tool_results: sorted\n"), opts)
		Expect(err).To(MatchError(MatchRegexp(`suite\.yaml:\d+: match\.tool_results: "sorted" is not an order; write any_order`)))
	})

	It("reads empty_content: any_form, and says where a form it does not know is written", func() {
		s, err := scenario.Parse("suite.yaml", []byte(minimal+"\nmatch:\n  empty_content: any_form\n"), opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Match.EmptyContentAnyForm()).To(BeTrue())
		Expect(s.Match.Describe()).To(Equal([]string{"empty content of a message that only calls tools in any form"}))

		s, err = scenario.Parse("suite.yaml", []byte(minimal+"\nmatch:\n  empty_content: as_written\n"), opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Match.EmptyContentAnyForm()).To(BeFalse())

		_, err = scenario.Parse("suite.yaml", []byte(minimal+"\nmatch:\n  empty_content: null_or_empty\n  tool_results: sorted\n"), opts)
		Expect(err).To(MatchError(And(
			MatchRegexp(`suite\.yaml:\d+: match\.empty_content: "null_or_empty" is not a form; write any_form`),
			MatchRegexp(`suite\.yaml:\d+: match\.tool_results: "sorted" is not an order`))))
	})

	It("is nil when the suite has none", func() {
		s, err := scenario.Parse("suite.yaml", []byte(minimal), opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Match).To(BeNil())
	})
})
