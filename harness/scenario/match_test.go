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

	It("is nil when the suite has none", func() {
		s, err := scenario.Parse("suite.yaml", []byte(minimal), opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Match).To(BeNil())
	})
})
