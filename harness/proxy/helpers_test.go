package proxy_test

import (
	"net/url"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/proxy"
	"github.com/agentreplay/testbed/harness/standin"
)

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }

func must[T any](v T, err error) T {
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return v
}

// startProxy starts a proxy that is closed when the spec ends.
func startProxy() *proxy.Proxy {
	GinkgoHelper()
	p := must(proxy.Start())
	DeferCleanup(p.Close)
	return p
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// greeterSessions serves a stand-in with the greeter policy for one spec
// and returns the cassette file and a function that opens a session of p
// over it in a mode, the session's model base URLs set by with.
func greeterSessions(p *proxy.Proxy, model string, with func(*proxy.Session)) (string, func(cassette.Mode) (id, base string)) {
	srv, err := standin.New(standin.Options{Policies: []standin.Policy{greeter{}}})
	Expect(err).NotTo(HaveOccurred())
	Expect(srv.Start()).To(Succeed())
	DeferCleanup(srv.Close)
	path := filepath.Join(GinkgoT().TempDir(), "ac1.yaml")
	return path, func(mode cassette.Mode) (string, string) {
		GinkgoHelper()
		tr, err := cassette.Open(mode, path, cassette.Options{Real: to{mustURL(srv.URL())}, Provenance: cassette.Provenance{Model: model, StandIn: true}})
		Expect(err).NotTo(HaveOccurred())
		s := proxy.Session{Transport: tr}
		with(&s)
		return p.Open(s)
	}
}
