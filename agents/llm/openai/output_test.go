package openai_test

// The output a request asks for, as each OpenAI API is asked for it:
// JSON and text by their formats; image and speech, which a Response
// cannot hold, refused before anything is sent.

import (
	"context"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/openai"
)

var _ = Describe("the output a request asks for", func() {
	hi := []llm.Message{{Role: llm.RoleUser, Content: "tide?"}}

	DescribeTable("Chat Completions sends it as response_format",
		func(out llm.Output, want string) {
			srv := newServer(http.StatusOK, textReply)
			_, err := openai.New(srv.URL+"/v1", "gpt-4o-mini", "sk-test", srv.Client()).Chat(context.Background(), llm.Request{Messages: hi, Output: out})
			Expect(err).NotTo(HaveOccurred())
			if want == "" {
				Expect(body(srv)).NotTo(HaveKey("response_format"))
			} else {
				Expect(asJSON(body(srv)["response_format"])).To(MatchJSON(want))
			}
		},
		Entry("none", llm.Output(""), ``),
		Entry("JSON", llm.OutputJSON, `{"type": "json_object"}`),
		Entry("text", llm.OutputText, `{"type": "text"}`),
	)

	DescribeTable("the Responses API sends it as text.format",
		func(out llm.Output, want string) {
			sent, _, err := respond("gpt-4.1-mini", http.StatusOK, textResponse, llm.Request{Messages: hi, Output: out})
			Expect(err).NotTo(HaveOccurred())
			if want == "" {
				Expect(sent).NotTo(HaveKey("text"))
			} else {
				Expect(asJSON(sent["text"])).To(MatchJSON(want))
			}
		},
		Entry("none", llm.Output(""), ``),
		Entry("JSON", llm.OutputJSON, `{"format": {"type": "json_object"}}`),
		Entry("text", llm.OutputText, `{"format": {"type": "text"}}`),
	)

	DescribeTable("both refuse image and speech output, naming it, without calling the server",
		func(out llm.Output, want string) {
			srv := newServer(http.StatusOK, textReply)
			_, err := openai.New(srv.URL+"/v1", "gpt-4o-mini", "sk-test", srv.Client()).Chat(context.Background(), llm.Request{Messages: hi, Output: out})
			Expect(err).To(MatchError("Chat Completions takes no " + want + ": leave it unset for this provider"))
			Expect(srv.Requests()).To(BeEmpty())
			sent, _, err := respond("gpt-4.1-mini", http.StatusOK, textResponse, llm.Request{Messages: hi, Output: out})
			Expect(err).To(MatchError("the Responses API takes no " + want + ": leave it unset for this provider"))
			Expect(sent).To(BeNil())
		},
		Entry("image", llm.OutputImage, "image output"),
		Entry("speech", llm.OutputSpeech, "speech output"),
	)
})
