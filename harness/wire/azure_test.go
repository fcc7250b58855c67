package wire_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/wire"
)

var _ = Describe("Azure OpenAI's paths", func() {
	DescribeTable("are OpenAI's dialects",
		func(path string, want wire.Dialect) {
			d, ok := wire.Of(path)
			Expect(ok).To(BeTrue())
			Expect(d).To(Equal(want))
		},
		Entry("a deployment's chat completions", "/openai/deployments/gpt-4o-mini/chat/completions", wire.Chat),
		Entry("the Responses API", "/openai/responses", wire.Responses),
		Entry("the v1 Responses API", "/openai/v1/responses", wire.Responses),
	)

	It("take the model from the deployment when the body names none, as Azure does", func() {
		const body = `{"messages": [{"role": "user", "content": "hi"}]}`
		r, err := wire.Decode(wire.Chat, "/openai/deployments/gpt-4o-mini/chat/completions", []byte(body))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Model).To(Equal("gpt-4o-mini"))
		call, err := wire.Read(wire.Chat, "/openai/deployments/gpt-4o-mini/chat/completions", []byte(body), 1)
		Expect(err).NotTo(HaveOccurred(), "Azure needs no model in the body")
		Expect(call.Request.Model).To(Equal("gpt-4o-mini"))

		r, err = wire.Decode(wire.Chat, "/openai/deployments/gpt-4o-mini/chat/completions", []byte(`{"model": "named", "messages": []}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Model).To(Equal("named"), "the body's model, when it names one")

		in, err := wire.ReadEmbedCall("/openai/deployments/embed-small/embeddings", []byte(`{"input": "hi"}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(in.Model).To(Equal("embed-small"))
	})

	It("still refuse a Chat Completions call with no model anywhere", func() {
		_, err := wire.Read(wire.Chat, "/v1/chat/completions", []byte(`{"messages": [{"role": "user", "content": "hi"}]}`), 1)
		Expect(err).To(MatchError("you must provide a model parameter"))
	})
})
