package standin_test

import (
	"context"
	"reflect"

	anthropicsdk "github.com/anthropics/anthropic-sdk-go"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/genai"

	"github.com/agentreplay/testbed/harness/standin"
)

var _ = Describe("the model listings", func() {
	var (
		srv *standin.Server
		ctx = context.Background()
	)

	BeforeEach(func() {
		srv = startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
	})

	It("answers OpenAI's: any model it is asked for, and the list of testbed's price table", func() {
		c := officialOpenAI(srv)
		m, err := c.Models.Get(ctx, "gpt-5-nano")
		Expect(err).NotTo(HaveOccurred())
		Expect(m.ID).To(Equal("gpt-5-nano"))
		Expect(sdkShapeProblems(reflect.ValueOf(m), "model")).To(BeEmpty())
		page, err := c.Models.List(ctx)
		Expect(err).NotTo(HaveOccurred())
		var ids []string
		for _, m := range page.Data {
			ids = append(ids, m.ID)
		}
		Expect(ids).To(ContainElements("gpt-4.1-mini", "text-embedding-3-small"))
		Expect(ids).NotTo(ContainElement(HavePrefix("claude")))
	})

	It("answers Anthropic's on the same path, told apart by anthropic-version", func() {
		c := officialSDK(srv)
		m, err := c.Models.Get(ctx, "claude-opus-4-1", anthropicsdk.ModelGetParams{})
		Expect(err).NotTo(HaveOccurred())
		Expect(m.ID).To(Equal("claude-opus-4-1"))
		Expect(string(m.Type)).To(Equal("model"))
		page, err := c.Models.List(ctx, anthropicsdk.ModelListParams{})
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Data).To(ContainElement(HaveField("ID", "claude-haiku-4-5")))
		Expect(page.Data).NotTo(ContainElement(HaveField("ID", "gpt-4.1-mini")))
	})

	DescribeTable("answers Gemini's, on v1beta and on v1 (where @google/genai 3 asks), told apart by the Gemini client's key header",
		func(version string) {
			c, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI,
				HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL(), APIVersion: version}})
			Expect(err).NotTo(HaveOccurred())
			m, err := c.Models.Get(ctx, "gemini-3-flash", nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Name).To(Equal("models/gemini-3-flash"))
			Expect(m.SupportedActions).To(ContainElement("generateContent"))
			var names []string
			for m, err := range c.Models.All(ctx) {
				Expect(err).NotTo(HaveOccurred())
				names = append(names, m.Name)
			}
			Expect(names).To(ContainElement("models/gemini-2.5-flash"))
			Expect(names).NotTo(ContainElement(ContainSubstring("gpt")))
		},
		Entry("the Go client's default (v1beta)", ""),
		Entry("v1beta", "v1beta"),
		Entry("v1", "v1"),
	)
})
