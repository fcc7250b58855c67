package proxy_test

import (
	"context"
	"io"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	sdk "github.com/openai/openai-go/v3"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/openai"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/proxy"
)

const logicalAzure = "https://contoso-ai.openai.azure.com"

var _ = Describe("Azure OpenAI through the proxy", func() {
	var p *proxy.Proxy

	BeforeEach(func() {
		p = startProxy()
	})

	DescribeTable("routes the resource's paths, api-version kept, to its logical base URL",
		func(path, want string) {
			Expect(routed(p, proxy.Session{Model: logicalModel, Azure: logicalAzure}, path)).To(Equal(want))
		},
		Entry("a deployment's chat completions", "/openai/deployments/gpt-4o-mini/chat/completions?api-version=2024-10-21",
			logicalAzure+"/openai/deployments/gpt-4o-mini/chat/completions?api-version=2024-10-21"),
		Entry("a deployment's embeddings", "/openai/deployments/embed-small/embeddings?api-version=2024-10-21",
			logicalAzure+"/openai/deployments/embed-small/embeddings?api-version=2024-10-21"),
		Entry("the Responses API", "/openai/responses?api-version=2025-03-01-preview", logicalAzure+"/openai/responses?api-version=2025-03-01-preview"),
		Entry("OpenAI's own beside it", "/v1/chat/completions", logicalModel+"/chat/completions"),
	)

	It("answers a path under /openai/ with no Azure in the session in OpenAI's error shape, naming the routes", func() {
		id, base := p.Open(proxy.Session{Transport: &urls{}, Model: logicalModel})
		DeferCleanup(p.End, id)
		resp, err := http.Post(base+"/openai/deployments/d/chat/completions", "application/json", strings.NewReader(`{}`))
		Expect(err).NotTo(HaveOccurred())
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		Expect(string(body)).To(ContainSubstring(`"code":"testbed_not_found"`))
		Expect(string(body)).To(ContainSubstring("/openai/… (Azure OpenAI)"))
	})

	It("sets the session's base URL and the environment the Azure clients read by the endpoint's provider", func() {
		var s proxy.Session
		s.SetModel(llm.Endpoint{Provider: llm.ProviderAzure, BaseURL: logicalAzure})
		Expect(s).To(Equal(proxy.Session{Azure: logicalAzure}))
		Expect(proxy.ModelEnv(llm.Endpoint{Provider: llm.ProviderAzure, Model: "gpt-4o-mini"}, "http://127.0.0.1:1/s/x")).To(Equal(map[string]string{
			"AZURE_OPENAI_ENDPOINT": "http://127.0.0.1:1/s/x", "AZURE_OPENAI_API_KEY": cassette.PlaceholderKey, "OPENAI_API_VERSION": llm.AzureAPIVersion}))
		Expect(proxy.ModelEnv(llm.Endpoint{Provider: llm.ProviderAzure, APIVersion: "2025-04-01-preview"}, "b")).To(HaveKeyWithValue("OPENAI_API_VERSION", "2025-04-01-preview"))
	})

	It("puts a real key in api-key in place of the agent's placeholder, never in Authorization", func() {
		var seen http.Header
		rt := roundTrip(func(r *http.Request) (*http.Response, error) {
			seen = r.Header.Clone()
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(`{}`)), Request: r}, nil
		})
		tr, err := cassette.Open(cassette.ModeRecord, GinkgoT().TempDir()+"/az.yaml", cassette.Options{Real: rt, Secrets: []string{"az-real-0123456789abcdef"}, Provenance: cassette.Provenance{Model: "m"}})
		Expect(err).NotTo(HaveOccurred())
		id, base := p.Open(proxy.Session{Transport: tr, Azure: logicalAzure, Key: "az-real-0123456789abcdef"})
		req, _ := http.NewRequest(http.MethodPost, base+"/openai/deployments/d/chat/completions?api-version=2024-10-21", strings.NewReader(`{}`))
		req.Header.Set("Api-Key", cassette.PlaceholderKey)
		req.Header.Set("Authorization", "Bearer "+cassette.PlaceholderKey)
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(p.End(id)).To(Succeed())
		Expect(seen.Get("Api-Key")).To(Equal("az-real-0123456789abcdef"))
		Expect(seen.Values("Authorization")).To(BeEmpty())
	})

	It("records the official SDK's Azure calls under the logical URL, key left out, then replays them", func() {
		path, session := greeterSessions(p, "gpt-4o-mini", func(s *proxy.Session) { s.Azure = logicalAzure })
		// An outside agent on the official SDK pointed at the resource
		// testbed gives it (AZURE_OPENAI_ENDPOINT), with the placeholder key.
		ask := func(base string) (*sdk.ChatCompletion, error) {
			c := sdk.NewClient(openai.AzureOptions(base, "gpt-4o-mini", llm.AzureAPIVersion, "az-live-key-0123456789abcdef", http.DefaultClient)...)
			return c.Chat.Completions.New(context.Background(), sdk.ChatCompletionNewParams{
				Model:    "gpt-4o-mini",
				Messages: []sdk.ChatCompletionMessageParamUnion{sdk.SystemMessage(greeterPrompt), sdk.UserMessage("Ahoy")},
			})
		}
		id, base := session(cassette.ModeRecord)
		recorded, err := ask(base)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.End(id)).To(Succeed())
		Expect(recorded.Choices[0].Message.Content).To(Equal("You said: Ahoy"))
		data := string(must(readFile(path)))
		Expect(data).To(ContainSubstring("url: " + logicalAzure + "/openai/deployments/gpt-4o-mini/chat/completions?api-version=" + llm.AzureAPIVersion))
		Expect(data).NotTo(ContainSubstring("127.0.0.1"))
		Expect(data).NotTo(ContainSubstring("live-key"))

		id, base = session(cassette.ModeReplay)
		replayed, err := ask(base)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.End(id)).To(Succeed())
		Expect(replayed.RawJSON()).To(Equal(recorded.RawJSON()))
	})
})
