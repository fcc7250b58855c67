package cassette_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
)

// sharedDeadline is a cassette of three exchanges an agent makes under one
// timeout, recorded at 950 ms, 950 ms and 1.5 s.
const sharedDeadline = `---
version: 1
interactions:
    - request: {url: "https://mcp.example/initialize", method: GET}
      response: {body: ok, status: 200 OK, code: 200, duration: 950ms}
    - request: {url: "https://mcp.example/call", method: GET}
      response: {body: ok, status: 200 OK, code: 200, duration: 950ms}
    - request: {url: "https://mcp.example/late", method: GET}
      response: {body: ok, status: 200 OK, code: 200, duration: 1.5s}
`

// postWithin posts body to url through rt with a deadline timeout away, as an
// agent with a per-request timeout does.
func postWithin(rt http.RoundTripper, timeout time.Duration, url, body string) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	return rt.RoundTrip(req)
}

var _ = Describe("a request's own deadline", func() {
	It("ends an exchange that outlasts it as a timeout, after the deadline, the same in recording and replay", func() {
		path := filepath.Join(GinkgoT().TempDir(), "slow.yaml")
		up := newUpstream(`{"n":1}`, `{"n":2}`)
		up.latency = []string{"5m", "2s"}

		var rec observed
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport, Observe: rec.add})
		Expect(err).NotTo(HaveOccurred())
		_, err = postWithin(tr, 30*time.Second, up.URL, `{"q":1}`)
		var late *cassette.DeadlineError
		Expect(errors.As(err, &late)).To(BeTrue(), "got %v", err)
		Expect(errors.Is(err, context.DeadlineExceeded)).To(BeTrue())
		var ne net.Error
		Expect(errors.As(err, &ne) && ne.Timeout()).To(BeTrue())
		resp, err := postWithin(tr, 30*time.Second, up.URL, `{"q":2}`)
		Expect(err).NotTo(HaveOccurred(), "a 2 s exchange is within a 30 s timeout")
		resp.Body.Close()
		Expect(tr.Close()).To(Succeed())
		Expect(readOnDisk(path).Interactions).To(HaveLen(2), "the late answer is kept, so that a replay judges it again")

		var play observed
		rp, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{Observe: play.add})
		Expect(err).NotTo(HaveOccurred())
		_, err = postWithin(rp, 30*time.Second, up.URL, `{"q":1}`)
		Expect(errors.As(err, &late)).To(BeTrue(), "got %v", err)
		resp, err = postWithin(rp, 30*time.Second, up.URL, `{"q":2}`)
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()

		for _, seen := range [][]cassette.Exchange{rec.all(), play.all()} {
			Expect(seen).To(HaveLen(2))
			Expect(seen[0].Timeout).NotTo(BeNil())
			Expect(seen[0].Err).To(BeNil(), "a timeout is the agent's outcome, not a failed exchange")
			Expect(seen[0].Duration).To(Equal(30*time.Second), "the client waited its timeout, rounded to the grain, not 5 minutes")
			Expect(seen[1].Timeout).To(BeNil())
			Expect(seen[1].Duration).To(Equal(2 * time.Second))
		}
	})

	It("judges each request on a shared deadline on the time left when the first was sent, however long the agent took between them", func() {
		path := filepath.Join(GinkgoT().TempDir(), "shared.yaml")
		Expect(os.WriteFile(path, []byte(sharedDeadline), 0o644)).To(Succeed())
		var play observed
		rp, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{Observe: play.add})
		Expect(err).NotTo(HaveOccurred())
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		get := func(url string) (*http.Response, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			Expect(err).NotTo(HaveOccurred())
			return rp.RoundTrip(req)
		}
		for i, url := range []string{"https://mcp.example/initialize", "https://mcp.example/call", "https://mcp.example/late"} {
			if i > 0 {
				// The agent is slow between its requests, as on a busy machine.
				time.Sleep(300 * time.Millisecond)
			}
			resp, err := get(url)
			if url != "https://mcp.example/late" {
				Expect(err).NotTo(HaveOccurred(), "%s: 950 ms is within the 1 s left when the first request was sent", url)
				resp.Body.Close()
				continue
			}
			var late *cassette.DeadlineError
			Expect(errors.As(err, &late)).To(BeTrue(), "got %v", err)
			Expect(late.Waited).To(Equal(time.Second))
		}
		Expect(play.durations()).To(Equal([]time.Duration{950 * time.Millisecond, 950 * time.Millisecond, time.Second}))
	})

	It("lets a request without a deadline wait the whole recorded time", func() {
		path := filepath.Join(GinkgoT().TempDir(), "slow.yaml")
		up := newUpstream(`{"n":1}`)
		up.latency = []string{"5m"}
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport})
		Expect(err).NotTo(HaveOccurred())
		Expect(mustPost(tr, up.URL, `{"q":1}`)).To(Equal(`{"n":1}`))
		Expect(tr.Close()).To(Succeed())
		var play observed
		rp, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{Observe: play.add})
		Expect(err).NotTo(HaveOccurred())
		Expect(mustPost(rp, up.URL, `{"q":1}`)).To(Equal(`{"n":1}`))
		Expect(play.durations()).To(Equal([]time.Duration{5 * time.Minute}))
	})
})
