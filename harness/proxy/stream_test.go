package proxy_test

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/proxy"
	"github.com/agentreplay/testbed/harness/stream"
)

// streaming is a session transport whose answer is an event stream that
// sends its second event only once release is closed.
type streaming struct{ release chan struct{} }

func (s streaming) RoundTrip(*http.Request) (*http.Response, error) {
	pr, pw := io.Pipe()
	go func() {
		io.WriteString(pw, `data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}`+"\n\n")
		<-s.release
		io.WriteString(pw, "data: [DONE]\n\n")
		pw.Close()
	}()
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: pr}, nil
}

func (streaming) Close() error { return nil }

var _ = Describe("the proxy and a streamed answer", func() {
	var p *proxy.Proxy

	BeforeEach(func() {
		p = startProxy()
	})

	It("passes each event to the agent as its transport gives it", func() {
		release := make(chan struct{})
		id, base := p.Open(proxy.Session{Transport: streaming{release}, Model: logicalModel})
		DeferCleanup(func() {
			select {
			case <-release:
			default:
				close(release) // the spec failed: let the stream end
			}
		})
		type head struct {
			line string
			rest *bufio.Reader
			body io.Closer
		}
		first := make(chan head, 1)
		go func() {
			defer GinkgoRecover()
			resp, err := http.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true,"messages":[]}`))
			Expect(err).NotTo(HaveOccurred())
			r := bufio.NewReader(resp.Body)
			line, _ := r.ReadString('\n')
			first <- head{line, r, resp.Body}
		}()
		var h head
		Eventually(first, "5s").Should(Receive(&h), "the first event reaches the agent before the second is sent")
		defer h.body.Close()
		Expect(h.line).To(ContainSubstring(`"Hel"`))
		close(release)
		rest, err := io.ReadAll(h.rest)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(rest)).To(Equal("\ndata: [DONE]\n\n"))
		Expect(p.End(id)).To(Succeed())
	})

	It("records a stream through a session with an offset per event, and replays it whole", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}`+"\n\n")
			w.(http.Flusher).Flush()
			io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
		}))
		DeferCleanup(srv.Close)
		model, _ := url.Parse(srv.URL)
		path := filepath.Join(GinkgoT().TempDir(), "s.yaml")
		post := func(mode cassette.Mode, real http.RoundTripper) (*http.Response, string) {
			GinkgoHelper()
			tr, err := cassette.Open(mode, path, cassette.Options{Real: real, Provenance: cassette.Provenance{Model: "m", StandIn: true}})
			Expect(err).NotTo(HaveOccurred())
			id, base := p.Open(proxy.Session{Transport: tr, Model: logicalModel})
			resp, err := http.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true,"messages":[]}`))
			Expect(err).NotTo(HaveOccurred())
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			Expect(err).NotTo(HaveOccurred())
			Expect(p.End(id)).To(Succeed())
			return resp, string(body)
		}
		_, recorded := post(cassette.ModeRecord, to{model})
		data := string(must(readFile(path)))
		i := strings.Index(data, stream.OffsetsHeader)
		Expect(i).To(BeNumerically(">", 0))
		Expect(strings.Count(data[i:], "\n                - ")).To(BeNumerically(">=", 3), "an offset per event")

		resp, replayed := post(cassette.ModeReplay, nil)
		Expect(replayed).To(Equal(recorded))
		Expect(stream.Offsets(resp.Header)).To(HaveLen(3), "the agent's side sees the offsets too")
	})

	It("records a stream whole when the agent hangs up at its last event, before the stream has ended (go-openai closes at [DONE])", func() {
		ended := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
			w.(http.Flusher).Flush()
			<-ended // the agent has hung up: the stream ends after
		}))
		DeferCleanup(srv.Close)
		path := filepath.Join(GinkgoT().TempDir(), "s.yaml")
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: to{mustURL(srv.URL)}, Provenance: cassette.Provenance{Model: "m", StandIn: true}})
		Expect(err).NotTo(HaveOccurred())
		id, base := p.Open(proxy.Session{Transport: tr, Model: logicalModel})
		client := &http.Client{Transport: &http.Transport{}}
		resp, err := client.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true,"messages":[]}`))
		Expect(err).NotTo(HaveOccurred())
		r := bufio.NewReader(resp.Body)
		for {
			line, err := r.ReadString('\n')
			Expect(err).NotTo(HaveOccurred())
			if strings.HasPrefix(line, "data: [DONE]") {
				break
			}
		}
		resp.Body.Close() // not read to its end: the connection is dropped
		client.CloseIdleConnections()
		time.Sleep(50 * time.Millisecond) // the proxy sees the agent gone
		close(ended)
		Expect(p.End(id)).To(Succeed())
		Expect(string(must(readFile(path)))).To(ContainSubstring("data: [DONE]"))
	})
})
