package gemini_test

// The output a request asks for, as generateContent is asked for it:
// JSON and text by responseMimeType; image and speech, which a Response
// cannot hold, refused before anything is sent.

import (
	"context"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
)

var _ = DescribeTable("the output a request asks for is generationConfig's responseMimeType",
	func(out llm.Output, want string) {
		srv := newServer(http.StatusOK, textReply)
		_, err := newClient(srv, "gemini-2.5-flash").Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "tide?"}}, Output: out})
		Expect(err).NotTo(HaveOccurred())
		cfg, _ := body(srv)["generationConfig"].(map[string]any)
		if want == "" {
			Expect(cfg).NotTo(HaveKey("responseMimeType"))
		} else {
			Expect(cfg).To(HaveKeyWithValue("responseMimeType", want))
		}
	},
	Entry("none", llm.Output(""), ""),
	Entry("JSON", llm.OutputJSON, "application/json"),
	Entry("text", llm.OutputText, "text/plain"),
)

var _ = DescribeTable("image and speech output are refused, named, without calling the server",
	func(out llm.Output, want string) {
		srv := newServer(http.StatusOK, textReply)
		_, err := newClient(srv, "gemini-2.5-flash").Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "tide?"}}, Output: out})
		Expect(err).To(MatchError("generateContent takes no " + want + ": leave it unset for this provider"))
		Expect(srv.Requests()).To(BeEmpty())
	},
	Entry("image", llm.OutputImage, "image output"),
	Entry("speech", llm.OutputSpeech, "speech output"),
)
