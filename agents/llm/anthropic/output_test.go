package anthropic_test

// The output a request asks for: the Messages API has no field for JSON
// or text (the prompt asks), so neither is sent; image and speech, which
// a Response cannot hold, are refused before anything is sent.

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
)

var _ = DescribeTable("the output a request asks for",
	func(out llm.Output, refused string) {
		srv, _, err := chatWith(http.StatusOK, textReply, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "tide?"}}, Output: out})
		if refused != "" {
			Expect(err).To(MatchError("the Messages API takes no " + refused + ": leave it unset for this provider"))
			Expect(srv.Requests()).To(BeEmpty())
			return
		}
		Expect(err).NotTo(HaveOccurred())
		Expect(sent(srv)).NotTo(HaveKey("output_config"))
		Expect(sent(srv)).NotTo(HaveKey("output_format"))
	},
	Entry("JSON: not sent", llm.OutputJSON, ""),
	Entry("text: not sent", llm.OutputText, ""),
	Entry("image: refused", llm.OutputImage, "image output"),
	Entry("speech: refused", llm.OutputSpeech, "speech output"),
)
