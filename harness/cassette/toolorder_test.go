package cassette_test

import (
	"errors"
	"net/http"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/match"
)

var _ = Describe("the results of one turn's tool calls sent in another order", func() {
	// An agent that runs a turn's two tools at once: its first model call
	// asks for both, its second sends their results as they finished.
	const url = "/v1/chat/completions"
	const first = `{"model":"gpt-4.1-mini","messages":[{"role":"user","content":"Weather in Oslo and Lima?"}]}`
	second := func(a, b string) string {
		result := map[string]string{
			"c1": `{"role":"tool","tool_call_id":"c1","content":"Oslo: -3 C"}`,
			"c2": `{"role":"tool","tool_call_id":"c2","content":"Lima: 19 C"}`,
		}
		return `{"model":"gpt-4.1-mini","messages":[{"role":"user","content":"Weather in Oslo and Lima?"},` +
			`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Oslo\"}"}},` +
			`{"id":"c2","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Lima\"}"}}]},` +
			result[a] + `,` + result[b] + `]}`
	}
	var path string
	var srv *upstream

	BeforeEach(func() {
		path = filepath.Join(GinkgoT().TempDir(), "s", "v", "a.yaml")
		srv = newUpstream(`{"choices":[]}`, `{"choices":[{"index":0}]}`)
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport})
		Expect(err).NotTo(HaveOccurred())
		mustPost(tr, srv.URL+url, first)
		mustPost(tr, srv.URL+url, second("c1", "c2"))
		Expect(tr.Close()).To(Succeed())
	})

	It("misses without a rule, naming the call it is and the rule that compares them in any order", func() {
		rp, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{})
		Expect(err).NotTo(HaveOccurred())
		mustPost(rp, srv.URL+url, first)
		_, err = post(rp, srv.URL+url, second("c2", "c1"))
		var miss *cassette.MissError
		Expect(errors.As(err, &miss)).To(BeTrue(), "%v", err)
		Expect(miss.Nearest).To(Equal(1), "the second call, which differs only in that order, not the first, which has fewer messages")
		Expect(miss.Error()).To(ContainSubstring("they differ only in the order of the results of one turn's tool calls"))
		Expect(miss.Error()).To(ContainSubstring("match: {tool_results: any_order}"))
	})

	It("replays under tool_results: any_order, and still misses a result whose content changed", func() {
		opts := cassette.Options{Match: &match.Rules{AnyOrderToolResults: true}}
		rp, err := cassette.Open(cassette.ModeReplay, path, opts)
		Expect(err).NotTo(HaveOccurred())
		mustPost(rp, srv.URL+url, first)
		Expect(mustPost(rp, srv.URL+url, second("c2", "c1"))).To(Equal(`{"choices":[{"index":0}]}`), "the second call's answer")

		rp, err = cassette.Open(cassette.ModeReplay, path, opts)
		Expect(err).NotTo(HaveOccurred())
		mustPost(rp, srv.URL+url, first)
		_, err = post(rp, srv.URL+url, second("c2", "c2"))
		Expect(err).To(MatchError(cassette.ErrStale))
		Expect(err.Error()).NotTo(ContainSubstring("differ only in the order"))
	})
})
