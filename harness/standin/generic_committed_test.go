package standin_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/standin"
	"github.com/agentreplay/testbed/harness/wire"
)

// The generic policy is asked last, so it must never take a request an
// agent's own policy answered: every model request of every committed
// cassette is accepted by an agent-specific policy.
var _ = Describe("the committed cassettes", Label("cassettes"), func() {
	It("hold no model request that only the generic policy accepts", func() {
		all := standin.Policies()
		own := all[:len(all)-1]
		var models int
		for _, in := range recordedRequests("../../cassettes/*/*/*.yaml") {
			var req standin.Request
			var err error
			switch u := in.url; {
			case strings.HasSuffix(u, "/chat/completions"):
				req, err = wire.Decode(wire.Chat, u, []byte(in.body))
			case strings.HasSuffix(u, ":generateContent"):
				req, err = wire.Decode(wire.Gemini, u, []byte(in.body))
			default:
				continue
			}
			Expect(err).NotTo(HaveOccurred(), in.at)
			models++
			accepted := false
			for _, pol := range own {
				accepted = accepted || pol.Accepts(req)
			}
			Expect(accepted).To(BeTrue(), "%s falls to the generic policy", in.at)
		}
		Expect(models).To(BeNumerically(">", 500))
	})
})
