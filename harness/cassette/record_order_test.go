package cassette_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
)

// gated is a loopback server that holds each request until the spec
// releases its path, so that a spec decides the order in which requests
// sent at once are answered.
type gated struct {
	*httptest.Server
	mu      sync.Mutex
	gates   map[string]chan struct{}
	arrived chan string
}

func newGated() *gated {
	g := &gated{gates: map[string]chan struct{}{}, arrived: make(chan string, 16)}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		g.arrived <- r.URL.Path
		<-g.gate(r.URL.Path)
		// No Date header, as the stand-in sends none: two recordings a
		// second apart must not differ by it.
		w.Header()["Date"] = nil
		w.Header().Set(cassette.LatencyHeader, "20ms")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"at":"`+r.URL.Path+`"}`)
	}))
	DeferCleanup(g.Close)
	return g
}

func (g *gated) gate(path string) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gates[path] == nil {
		g.gates[path] = make(chan struct{})
	}
	return g.gates[path]
}

// recordTo opens a recording into a new cassette, whose path it returns,
// and the channel that gets the path of each request it records.
func recordTo() (*cassette.Session, string, chan string) {
	GinkgoHelper()
	path := filepath.Join(GinkgoT().TempDir(), "calls.yaml")
	recorded := make(chan string, 16)
	tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{
		Real:    http.DefaultTransport,
		Observe: func(e cassette.Exchange) { recorded <- e.URL[strings.LastIndex(e.URL, "/"):] },
	})
	Expect(err).NotTo(HaveOccurred())
	return tr, path, recorded
}

var _ = Describe("a recording's order", func() {
	// record records one scenario into a new cassette and returns its bytes,
	// the server's address in them as "upstream".
	// Each step's paths are sent at once, the next step's once they are all
	// answered; they are answered in the order its answers say, each once
	// the one before it is recorded.
	record := func(steps ...[2][]string) []byte {
		GinkgoHelper()
		g := newGated()
		tr, path, recorded := recordTo()
		for _, step := range steps {
			sent, answers := step[0], step[1]
			var wg sync.WaitGroup
			for _, p := range sent {
				wg.Go(func() { mustPost(tr, g.URL+p, `{"ask":"`+p+`"}`) })
			}
			for range sent {
				<-g.arrived
			}
			for _, p := range answers {
				close(g.gate(p))
				Expect(<-recorded).To(Equal(p))
			}
			wg.Wait()
		}
		Expect(tr.Close()).To(Succeed())
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		return []byte(strings.ReplaceAll(string(data), g.URL, "http://upstream"))
	}
	at := func(paths ...string) []string { return paths }
	step := func(sent, answered []string) [2][]string { return [2][]string{sent, answered} }
	order := func(data []byte) []string {
		var paths []string
		for _, line := range strings.Split(string(data), "\n") {
			if u, ok := strings.CutPrefix(strings.TrimSpace(line), "url: "); ok {
				paths = append(paths, u[strings.LastIndex(u, "/"):])
			}
		}
		return paths
	}

	It("writes calls made at once in one order, whatever order they were answered in (tools run in parallel), and byte for byte", func() {
		first := record(step(at("/tokyo", "/lima", "/oslo"), at("/tokyo", "/lima", "/oslo")))
		second := record(step(at("/tokyo", "/lima", "/oslo"), at("/oslo", "/tokyo", "/lima")))
		Expect(order(first)).To(Equal([]string{"/lima", "/oslo", "/tokyo"}))
		Expect(string(second)).To(Equal(string(first)))
	})

	It("writes a call made after an answer after that answer, whatever its request", func() {
		data := record(
			step(at("/plan"), at("/plan")),
			step(at("/tokyo", "/lima"), at("/tokyo", "/lima")),
			step(at("/answer"), at("/answer")),
		)
		Expect(order(data)).To(Equal([]string{"/plan", "/lima", "/tokyo", "/answer"}))
	})

	It("writes a call made while another is under way after the calls answered before it was made", func() {
		// /tokyo is sent with /slow; /lima is sent once /tokyo is answered,
		// while /slow is still under way.
		g := newGated()
		tr, path, recorded := recordTo()
		var wg sync.WaitGroup
		wg.Go(func() { mustPost(tr, g.URL+"/slow", `{}`) })
		<-g.arrived
		mustPostAfter(g, "/tokyo", func() { mustPost(tr, g.URL+"/tokyo", `{}`) })
		Expect(<-recorded).To(Equal("/tokyo"))
		mustPostAfter(g, "/lima", func() { mustPost(tr, g.URL+"/lima", `{}`) })
		Expect(<-recorded).To(Equal("/lima"))
		close(g.gate("/slow"))
		wg.Wait()
		Expect(tr.Close()).To(Succeed())
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(order(data)).To(Equal([]string{"/slow", "/tokyo", "/lima"}))
	})
})

var _ = Describe("a recording's order through a proxy", func() {
	It("takes a call's start from when the proxy received it (WithSent), not from when it reached the recording", func() {
		g := newGated()
		tr, path, recorded := recordTo()
		received := time.Now() // /lima and /tokyo reach the proxy at once
		close(g.gate("/tokyo"))
		mustPost(tr, g.URL+"/tokyo", `{}`)
		<-g.arrived
		Expect(<-recorded).To(Equal("/tokyo"))
		// /lima was held up in the proxy until /tokyo was answered.
		close(g.gate("/lima"))
		req, err := http.NewRequestWithContext(cassette.WithSent(context.Background(), received), http.MethodPost, g.URL+"/lima", strings.NewReader(`{}`))
		Expect(err).NotTo(HaveOccurred())
		resp, err := (&http.Client{Transport: tr}).Do(req)
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		<-g.arrived
		Expect(tr.Close()).To(Succeed())
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.Index(string(data), "/lima")).To(BeNumerically("<", strings.Index(string(data), "/tokyo")), "sent at once: in the order of their requests")
	})
})

// mustPostAfter releases path's gate once its request has arrived, while
// send sends it.
func mustPostAfter(g *gated, path string, send func()) {
	GinkgoHelper()
	go func() {
		<-g.arrived
		close(g.gate(path))
	}()
	send()
}

var _ = Describe("a record-missing recording's order", func() {
	// patch records /plan, then replays it with --record-missing and sends
	// first and second at once: second is sent while first is under way,
	// and recorded once first is. It returns the cassette's bytes, the
	// server's address in them as "upstream".
	patch := func(first, second string) []byte {
		GinkgoHelper()
		g := newGated()
		close(g.gate("/plan"))
		tr, path, recorded := recordTo()
		mustPost(tr, g.URL+"/plan", `{}`)
		<-g.arrived
		<-recorded
		Expect(tr.Close()).To(Succeed())

		p, err := cassette.Open(cassette.ModeRecordMissing, path, cassette.Options{Real: http.DefaultTransport})
		Expect(err).NotTo(HaveOccurred())
		mustPost(p, g.URL+"/plan", `{}`)
		var wg sync.WaitGroup
		wg.Go(func() { mustPost(p, g.URL+first, `{}`) })
		Expect(<-g.arrived).To(Equal(first))
		sending := make(chan struct{})
		wg.Go(func() {
			close(sending)
			mustPost(p, g.URL+second, `{}`)
		})
		<-sending
		time.Sleep(20 * time.Millisecond) // second is under way: it waits for first's recording
		close(g.gate(first))
		Expect(<-g.arrived).To(Equal(second))
		close(g.gate(second))
		wg.Wait()
		Expect(p.Close()).To(Succeed())
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		return []byte(strings.ReplaceAll(string(data), g.URL, "http://upstream"))
	}

	It("writes the calls it records at once in the order of their requests, whichever came first, after the calls before them", func() {
		one := patch("/tokyo", "/lima")
		other := patch("/lima", "/tokyo")
		Expect(string(one)).To(Equal(string(other)))
		var paths []string
		for _, line := range strings.Split(string(one), "\n") {
			if u, ok := strings.CutPrefix(strings.TrimSpace(line), "url: "); ok {
				paths = append(paths, u[strings.LastIndex(u, "/"):])
			}
		}
		Expect(paths).To(Equal([]string{"/plan", "/lima", "/tokyo"}))
	})
})

var _ = Describe("a recording's order after a stream", func() {
	It("writes a call the agent sent once it had the stream's last event after the stream, though the stream ended in the recording later", func() {
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.ReadAll(r.Body)
			w.Header()["Date"] = nil
			if r.Method == http.MethodGet {
				io.WriteString(w, "sunny")
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"call the weather\"}}]}\n\ndata: [DONE]\n\n")
			w.(http.Flusher).Flush()
			<-release // the connection ends later than its last event
		}))
		DeferCleanup(srv.Close)
		tr, path, _ := recordTo()
		client := &http.Client{Transport: tr}
		resp, err := client.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
		Expect(err).NotTo(HaveOccurred())
		var got strings.Builder
		buf := make([]byte, 256)
		for !strings.Contains(got.String(), "[DONE]") {
			n, err := resp.Body.Read(buf)
			Expect(err).NotTo(HaveOccurred())
			got.Write(buf[:n])
		}
		// The agent sends its next call through the proxy, which receives it
		// now; the recording takes it once the stream is captured.
		done := make(chan struct{})
		go func() {
			defer GinkgoRecover()
			defer close(done)
			req, err := http.NewRequestWithContext(cassette.WithSent(context.Background(), time.Now()), http.MethodGet, srv.URL+"/weather?city=tokyo", nil)
			Expect(err).NotTo(HaveOccurred())
			r, err := client.Do(req)
			Expect(err).NotTo(HaveOccurred())
			r.Body.Close()
		}()
		time.Sleep(20 * time.Millisecond)
		close(release)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		<-done
		Expect(tr.Close()).To(Succeed())
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.Index(string(data), "/v1/chat/completions")).To(BeNumerically("<", strings.Index(string(data), "/weather?city=tokyo")))
	})
})
