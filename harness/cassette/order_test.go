package cassette_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
)

var _ = Describe("a replay's order", func() {
	var (
		path string
		srv  *upstream
	)
	BeforeEach(func() {
		srv = newUpstream(`{"city":"Oslo"}`, `{"city":"Tokyo"}`, `{"city":"Lima"}`)
		path = filepath.Join(GinkgoT().TempDir(), "order.yaml")
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport})
		Expect(err).NotTo(HaveOccurred())
		for _, city := range []string{"oslo", "tokyo", "lima"} {
			mustPost(tr, srv.URL+"/now/"+city, `{}`)
		}
		Expect(tr.Close()).To(Succeed())
	})
	replay := func(seen *observed) *cassette.Session {
		tr, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{Observe: seen.add})
		Expect(err).NotTo(HaveOccurred())
		return tr
	}
	// answered is the cities of the exchanges seen, in the order observed.
	answered := func(seen *observed) []string {
		var cities []string
		for _, e := range seen.all() {
			cities = append(cities, e.URL[strings.LastIndex(e.URL, "/")+1:])
		}
		return cities
	}

	It("answers requests sent at once in the order they were recorded, whatever order they came in (tools run in parallel)", func() {
		DeferCleanup(setOrderWait(time.Minute))
		seen := &observed{}
		tr := replay(seen)
		answers := make(chan string, 3)
		for _, city := range []string{"lima", "tokyo"} {
			go func() { answers <- mustPost(tr, srv.URL+"/now/"+city, `{}`) }()
			time.Sleep(50 * time.Millisecond) // each held until Oslo is answered
		}
		Expect(seen.all()).To(BeEmpty())
		Expect(mustPost(tr, srv.URL+"/now/oslo", `{}`)).To(Equal(`{"city":"Oslo"}`))
		Expect([]string{<-answers, <-answers}).To(ConsistOf(`{"city":"Tokyo"}`, `{"city":"Lima"}`))
		Expect(answered(seen)).To(Equal([]string{"oslo", "tokyo", "lima"}))
	})

	It("waits no longer than OrderWait for a request recorded before, which is then never waited for again (a call the agent no longer makes)", func() {
		DeferCleanup(setOrderWait(20 * time.Millisecond))
		seen := &observed{}
		tr := replay(seen)
		Expect(mustPost(tr, srv.URL+"/now/tokyo", `{}`)).To(Equal(`{"city":"Tokyo"}`))
		Expect(mustPost(tr, srv.URL+"/now/lima", `{}`)).To(Equal(`{"city":"Lima"}`))
		Expect(answered(seen)).To(Equal([]string{"tokyo", "lima"}))
		Expect(tr.Unplayed()).To(ConsistOf(ContainSubstring("/now/oslo")))
	})

	It("keeps a held request's interaction for a request asking again when the agent gives up on it", func() {
		DeferCleanup(setOrderWait(time.Minute))
		tr := replay(&observed{})
		ctx, cancel := context.WithCancel(context.Background())
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/now/tokyo", strings.NewReader(`{}`))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", "application/json")
		done := make(chan error, 1)
		go func() { _, err := tr.RoundTrip(req); done <- err }()
		time.Sleep(20 * time.Millisecond)
		cancel()
		Eventually(done).Should(Receive(MatchError(context.Canceled)))
		Expect(mustPost(tr, srv.URL+"/now/oslo", `{}`)).To(Equal(`{"city":"Oslo"}`))
		Expect(mustPost(tr, srv.URL+"/now/tokyo", `{}`)).To(Equal(`{"city":"Tokyo"}`))
	})
})

// setOrderWait sets cassette.OrderWait to d until the returned func runs.
func setOrderWait(d time.Duration) func() {
	old := cassette.OrderWait
	cassette.OrderWait = d
	return func() { cassette.OrderWait = old }
}
