package cassette_test

import (
	"net/http"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
)

var _ = Describe("a Gemini call's function call ids, which clients make up", func() {
	// A second model call as the Vercel AI SDK's Google provider sends it:
	// the model gave its call no id, so the client made one up, and echoes
	// it in the call and in the function's response.
	const url = "/v1beta/models/gemini-2.5-flash:generateContent"
	request := func(callID, responseID string) string {
		return `{"contents":[{"role":"user","parts":[{"text":"Who wrote the book The Lantern Orchard?"}]},` +
			`{"role":"model","parts":[{"functionCall":{"id":"` + callID + `","name":"search_books","args":{"query":"The Lantern Orchard"}}}]},` +
			`{"role":"user","parts":[{"functionResponse":{"id":"` + responseID + `","name":"search_books","response":{"numFound":1}}}]}]}`
	}
	var path string
	var srv *upstream

	BeforeEach(func() {
		path = filepath.Join(GinkgoT().TempDir(), "s", "v", "a.yaml")
		srv = newUpstream(`{"candidates":[]}`)
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport})
		Expect(err).NotTo(HaveOccurred())
		mustPost(tr, srv.URL+url, request("APpNHg7OGFrXHhQP", "APpNHg7OGFrXHhQP"))
		Expect(tr.Close()).To(Succeed())
	})

	It("replay matches the same conversation with other ids", func() {
		rp, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{})
		Expect(err).NotTo(HaveOccurred())
		Expect(mustPost(rp, srv.URL+url, request("EnxbhK58HiiKErvY", "EnxbhK58HiiKErvY"))).To(Equal(`{"candidates":[]}`))
	})

	It("replay misses a function response that answers another id than its call, as it was not recorded", func() {
		rp, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{})
		Expect(err).NotTo(HaveOccurred())
		_, err = post(rp, srv.URL+url, request("EnxbhK58HiiKErvY", "somethingElse01"))
		Expect(err).To(MatchError(cassette.ErrStale))
	})

	It("leaves the ids of a body sent elsewhere compared as they are", func() {
		other := filepath.Join(GinkgoT().TempDir(), "s", "v", "b.yaml")
		tr, err := cassette.Open(cassette.ModeRecord, other, cassette.Options{Real: http.DefaultTransport})
		Expect(err).NotTo(HaveOccurred())
		mustPost(tr, srv.URL+"/v1/chat/completions", request("APpNHg7OGFrXHhQP", "APpNHg7OGFrXHhQP"))
		Expect(tr.Close()).To(Succeed())
		rp, err := cassette.Open(cassette.ModeReplay, other, cassette.Options{})
		Expect(err).NotTo(HaveOccurred())
		_, err = post(rp, srv.URL+"/v1/chat/completions", request("EnxbhK58HiiKErvY", "EnxbhK58HiiKErvY"))
		Expect(err).To(MatchError(cassette.ErrStale))
	})
})
