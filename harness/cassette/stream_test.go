package cassette_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/stream"
)

var _ = Describe("a streamed answer", func() {
	const body = "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n" +
		"data: [DONE]\n\n"

	It("is recorded byte for byte with each event's offset, lasts until its last event, and replays with its timing", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set(cassette.LatencyHeader, "100ms") // a stand-in's total, below its events'
			stream.SetOffsets(w.Header(), []time.Duration{120 * time.Millisecond, 450 * time.Millisecond, 500 * time.Millisecond})
			io.WriteString(w, body)
		}))
		DeferCleanup(srv.Close)
		path := filepath.Join(GinkgoT().TempDir(), "s.yaml")
		var rec observed
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport, Provenance: prov, Observe: rec.add})
		Expect(err).NotTo(HaveOccurred())
		Expect(mustPost(tr, srv.URL+"/v1/chat/completions", greet)).To(Equal(body))
		Expect(tr.Close()).To(Succeed())
		Expect(rec.all()[0].Stream).To(HaveField("FirstToken", 450*time.Millisecond))
		Expect(readOnDisk(path).Interactions[0].Response.Duration).To(Equal(500 * time.Millisecond))
		Expect(readOnDisk(path).Interactions[0].Response.Body).To(Equal(body))

		var rep observed
		r, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{Observe: rep.add})
		Expect(err).NotTo(HaveOccurred())
		Expect(mustPost(r, srv.URL+"/v1/chat/completions", greet)).To(Equal(body))
		x := rep.all()[0]
		Expect(x.Duration).To(Equal(500 * time.Millisecond))
		Expect(x.Stream).NotTo(BeNil())
		Expect(*x.Stream).To(HaveField("Events", 3))
		Expect(*x.Stream).To(HaveField("FirstToken", 450*time.Millisecond))
	})

	It("keeps a real stream's measured offsets", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, body[:52])
			w.(http.Flusher).Flush()
			time.Sleep(20 * time.Millisecond)
			io.WriteString(w, body[52:])
		}))
		DeferCleanup(srv.Close)
		path := filepath.Join(GinkgoT().TempDir(), "s.yaml")
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport, Provenance: prov})
		Expect(err).NotTo(HaveOccurred())
		mustPost(tr, srv.URL+"/v1/chat/completions", greet)
		Expect(tr.Close()).To(Succeed())
		var rep observed
		r, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{Observe: rep.add})
		Expect(err).NotTo(HaveOccurred())
		mustPost(r, srv.URL+"/v1/chat/completions", greet)
		st := rep.all()[0].Stream
		Expect(st).NotTo(BeNil())
		Expect(st.Events).To(Equal(3))
		Expect(st.FirstToken).To(BeNumerically(">=", 20*time.Millisecond))
		Expect(rep.all()[0].Duration).To(Equal(st.Duration))
	})
})
