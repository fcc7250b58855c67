package proxy_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/proxy"
)

// An agent that puts an id into an upstream's path escapes what a path
// cannot hold as it is (encodeURIComponent in JavaScript, url.PathEscape in
// Go): the upstream, and the cassette, must get that path, not one cut at a
// decoded "?" or split at a decoded "/".
var _ = Describe("an upstream path with escaped characters", func() {
	It("reaches the upstream and the cassette escaped as the agent sent it", func() {
		p := startProxy()
		upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, r.URL.EscapedPath()+" "+r.URL.RawQuery)
		}))
		DeferCleanup(upstream.Close)
		up, _ := url.Parse(upstream.URL)
		path := filepath.Join(GinkgoT().TempDir(), "orders.yaml")
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: to{up}, Provenance: cassette.Provenance{Model: "m", StandIn: true}})
		Expect(err).NotTo(HaveOccurred())
		id, base := p.Open(proxy.Session{Transport: tr, Model: logicalModel, Upstreams: map[string]string{"orders": "https://orders.example.com"}})

		resp, err := http.Get(base + "/upstream/orders/orders/BK-1001%3F%20late/items%2F2?lang=en")
		Expect(err).NotTo(HaveOccurred())
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(string(body)).To(Equal("/orders/BK-1001%3F%20late/items%2F2 lang=en"))
		Expect(p.End(id)).To(Succeed())
		Expect(string(must(readFile(path)))).To(ContainSubstring("url: https://orders.example.com/orders/BK-1001%3F%20late/items%2F2?lang=en"))
	})
})
