package wire_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/wire"
)

var _ = Describe("Threads", func() {
	It("keeps the latest answers only, so a long recording's memory stays bounded", func() {
		var t wire.Threads
		answer := func(n int) string {
			GinkgoHelper()
			call, err := t.Read(wire.Responses, "/v1/responses", fmt.Appendf(nil, `{"model": "m", "input": "question %d"}`, n), 1)
			Expect(err).NotTo(HaveOccurred())
			resp, err := call.Encoder.Completion("m", llm.Message{Role: llm.RoleAssistant, Content: "ok"}, wire.End{}, 1, 1)
			Expect(err).NotTo(HaveOccurred())
			return resp.(map[string]any)["id"].(string)
		}
		continues := func(id string) error {
			_, err := t.Read(wire.Responses, "/v1/responses", []byte(`{"model": "m", "previous_response_id": "`+id+`", "input": "and?"}`), 1)
			return err
		}
		first, second := answer(0), answer(1)
		for n := 2; n <= wire.MaxKept; n++ {
			answer(n)
		}
		Expect(continues(first)).To(MatchError("Previous response with id '" + first + "' not found."))
		Expect(continues(second)).To(Succeed())
	})
})
