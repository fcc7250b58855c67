package cassette_test

import (
	"net/http"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
)

var _ = Describe("a secret an exchange carries by where it is (a credential header, a key parameter), held elsewhere in the same exchange", func() {
	// Values of no known shape: only where they were sent says they are
	// secrets, and the agent also put them in its messages, its URL's path
	// and the upstream quoted one back in its error.
	const (
		headerKey = "plainheadervalue4417"
		paramKey  = "plainparamvalue8821"
	)
	request := func(hk, pk string) string {
		return `{"messages":[{"role":"user","content":"call the API with ` + hk + ` and ` + pk + `"}]}`
	}
	url := func(base, hk, pk string) string {
		return base + "/v1/accounts/" + hk + "/search?alt=json&key=" + pk
	}

	var (
		path string
		up   *upstream
	)

	BeforeEach(func() {
		path = filepath.Join(GinkgoT().TempDir(), "carried.yaml")
		up = newUpstream(`{"error":{"message":"the key ` + headerKey + ` (or ` + paramKey + `) has no access"}}`)
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport, Provenance: prov})
		Expect(err).NotTo(HaveOccurred())
		mustPost(tr, url(up.URL, headerKey, paramKey), request(headerKey, paramKey), "X-Api-Key", headerKey)
		Expect(tr.Close()).To(Succeed())
	})

	It("is replaced there too: in the request's body and URL, and in the response", func() {
		data := string(mustReadFile(path))
		Expect(data).NotTo(ContainSubstring(headerKey))
		Expect(data).NotTo(ContainSubstring(paramKey))
		in := readOnDisk(path).Interactions[0]
		Expect(in.Request.Body).To(MatchJSON(request(cassette.Placeholder(headerKey), cassette.Placeholder(paramKey))))
		Expect(in.Request.URL).To(Equal(url(up.URL, cassette.Placeholder(headerKey), cassette.Placeholder(paramKey))))
		Expect(in.Response.Body).To(ContainSubstring(cassette.Placeholder(headerKey)))
		Expect(in.Response.Body).To(ContainSubstring(cassette.Placeholder(paramKey)))
	})

	It("replays with the same keys, and with others in their places", func() {
		up.Close()
		for _, keys := range [][2]string{{headerKey, paramKey}, {"otherheadervalue0001", "otherparamvalue0002"}} {
			rp, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{})
			Expect(err).NotTo(HaveOccurred())
			got := mustPost(rp, url(up.URL, keys[0], keys[1]), request(keys[0], keys[1]), "X-Api-Key", keys[0])
			Expect(got).To(ContainSubstring("has no access"))
		}
	})
})
