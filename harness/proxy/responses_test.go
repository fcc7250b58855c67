package proxy_test

import (
	"context"
	"errors"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/proxy"
)

var _ = Describe("the proxy's OpenAI Responses route", func() {
	It("records the official SDK's Responses calls under the logical URL, key redacted, then replays them", func() {
		p := startProxy()
		path, session := greeterSessions(p, "gpt-4.1-mini", func(s *proxy.Session) { s.Model = logicalModel })
		// An outside agent on the official SDK, with OPENAI_BASE_URL as
		// testbed sets it (the session's base + /v1).
		ask := func(base, user string) (*responses.Response, error) {
			c := openai.NewClient(option.WithBaseURL(base+"/v1"), option.WithAPIKey("sk-proj-live-key-0123456789abcdef"), option.WithMaxRetries(0))
			return c.Responses.New(context.Background(), responses.ResponseNewParams{
				Model: "gpt-4.1-mini", Instructions: openai.String(greeterPrompt), Store: openai.Bool(false),
				Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(user)},
			})
		}

		id, base := session(cassette.ModeRecord)
		recorded, err := ask(base, "Ahoy")
		Expect(err).NotTo(HaveOccurred())
		Expect(p.End(id)).To(Succeed())
		Expect(recorded.OutputText()).To(Equal("You said: Ahoy"))
		data := string(must(readFile(path)))
		Expect(data).To(ContainSubstring("url: " + logicalModel + "/responses"))
		Expect(data).NotTo(ContainSubstring("127.0.0.1"))
		Expect(data).NotTo(ContainSubstring("live-key"))
		Expect(data).To(MatchRegexp(`Authorization:\s+- REDACTED`))

		id, base = session(cassette.ModeReplay)
		replayed, err := ask(base, "Ahoy")
		Expect(err).NotTo(HaveOccurred())
		Expect(p.End(id)).To(Succeed())
		Expect(replayed.RawJSON()).To(Equal(recorded.RawJSON()))

		// A call the cassette lacks: the diagnosis, readable by the SDK.
		id, base = session(cassette.ModeReplay)
		_, err = ask(base, "Something else")
		var apiErr *openai.Error
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "%v", err)
		Expect(apiErr.StatusCode).To(Equal(http.StatusNotFound))
		Expect(apiErr.Message).To(ContainSubstring("has no match for POST " + logicalModel + "/responses"))
		var miss *cassette.MissError
		Expect(errors.As(p.End(id), &miss)).To(BeTrue())
	})
})
