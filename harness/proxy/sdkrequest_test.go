package proxy_test

import (
	"context"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/proxy"
)

var _ = Describe("the official SDK's request settings and per-call headers, recorded and replayed", func() {
	It("replays a call whatever headers the SDK and the agent add per call, and names a changed setting", func() {
		p := startProxy()
		path, session := greeterSessions(p, "gpt-5-mini", func(s *proxy.Session) { s.Model = logicalModel })
		ask := func(base, run, key string) (*responses.Response, error) {
			c := openai.NewClient(option.WithBaseURL(base+"/v1"), option.WithAPIKey("sk-proj-live-key-0123456789abcdef"), option.WithMaxRetries(0))
			return c.Responses.New(context.Background(), responses.ResponseNewParams{
				Model: "gpt-5-mini", Instructions: openai.String(greeterPrompt), Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Ahoy")},
				Reasoning: shared.ReasoningParam{Effort: shared.ReasoningEffortLow, Summary: shared.ReasoningSummaryAuto},
				Metadata:  shared.Metadata{"run": run}, PromptCacheKey: openai.String("greeter"), SafetyIdentifier: openai.String("user-4411"),
				ServiceTier: responses.ResponseNewParamsServiceTierFlex, Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent},
			}, option.WithHeader("Idempotency-Key", "stainless-go-retry-"+key), option.WithHeader("X-Stainless-Timeout", key),
				option.WithHeader("X-Request-Id", "req-"+key), option.WithHeader("Traceparent", "00-"+key+"-01"))
		}

		id, base := session(cassette.ModeRecord)
		recorded, err := ask(base, "r-1", "4b1f")
		Expect(err).NotTo(HaveOccurred())
		Expect(p.End(id)).To(Succeed())
		Expect(string(must(readFile(path)))).NotTo(ContainSubstring("stainless-go-retry-"), "a volatile header the allowlist does not keep")

		id, base = session(cassette.ModeReplay)
		replayed, err := ask(base, "r-1", "9c07")
		Expect(err).NotTo(HaveOccurred(), "other per-call headers, the same call")
		Expect(p.End(id)).To(Succeed())
		Expect(replayed.RawJSON()).To(Equal(recorded.RawJSON()))

		id, base = session(cassette.ModeReplay)
		_, err = ask(base, "r-2", "9c07")
		Expect(err).To(HaveOccurred())
		var miss *cassette.MissError
		Expect(errors.As(p.End(id), &miss)).To(BeTrue())
		Expect(miss.Diff).To(Equal([]string{`/metadata/run: "r-1" → "r-2"`}))
	})
})
