package proxy_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/proxy"
)

// twoNotes is a cassette of two exchanges recorded at 950 ms and 1.5 s.
const twoNotes = `---
version: 1
interactions:
    - request:
        url: https://notes.example/quick
        method: GET
      response:
        body: quick
        status: 200 OK
        code: 200
        duration: 950ms
    - request:
        url: https://notes.example/late
        method: GET
      response:
        body: late
        status: 200 OK
        code: 200
        duration: 1.5s
`

// slowHop is a session transport that takes hop of wall time before it
// passes each request on, as a proxy does on a loaded machine.
type slowHop struct {
	hop time.Duration
	cassette.Transport
}

func (s slowHop) RoundTrip(r *http.Request) (*http.Response, error) {
	time.Sleep(s.hop)
	return s.Transport.RoundTrip(r)
}

var _ = Describe("a request with a deadline, through the proxy", func() {
	It("is judged on the time left when the client sent it, however long the hop to the cassette takes", func() {
		path := filepath.Join(GinkgoT().TempDir(), "notes.yaml")
		Expect(os.WriteFile(path, []byte(twoNotes), 0o644)).To(Succeed())
		var seen []cassette.Exchange
		tr, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{Observe: func(e cassette.Exchange) { seen = append(seen, e) }})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(tr.Close)
		p := startProxy()
		s := proxy.Session{Transport: slowHop{300 * time.Millisecond, tr}, Upstreams: map[string]string{"notes": "https://notes.example"}}
		_, base := p.Open(s)
		client := proxy.NewClient(base, s)
		get := func(url string) (*http.Response, error) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			return client.RoundTrip(must(http.NewRequestWithContext(ctx, http.MethodGet, url, nil)))
		}

		resp, err := get("https://notes.example/quick")
		Expect(err).NotTo(HaveOccurred(), "950 ms is within a 1 s timeout, whatever the hop took")
		Expect(io.ReadAll(resp.Body)).To(BeEquivalentTo("quick"))
		resp.Body.Close()

		_, err = get("https://notes.example/late")
		var late *cassette.DeadlineError
		Expect(errors.As(err, &late)).To(BeTrue(), "got %v", err)
		Expect(late.Waited).To(Equal(time.Second), "the client's whole timeout, not what the hop left of it")
		Expect(seen).To(HaveLen(2))
		Expect(seen[1].Duration).To(Equal(time.Second), "the replayed latency of the timed-out call")
	})
})
