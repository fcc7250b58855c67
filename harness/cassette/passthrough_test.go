package cassette_test

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"gopkg.in/yaml.v3"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/stream"
)

var _ = Describe("a real stream, recorded or live", func() {
	events := []string{
		"data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n",
		"data: {\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}\n\n",
		"data: [DONE]\n\n",
	}

	DescribeTable("reaches the caller event by event, as the provider sends them",
		func(mode cassette.Mode) {
			// The provider sends each event after the previous one has reached
			// the caller: a recording that read the stream whole first would
			// never hand over the first.
			next, stop := make(chan struct{}), make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				for i, e := range events {
					if i > 0 {
						select {
						case <-next:
						case <-stop:
							return
						}
					}
					io.WriteString(w, e)
					w.(http.Flusher).Flush()
				}
			}))
			DeferCleanup(srv.Close)
			DeferCleanup(func() { close(stop) }) // first: a spec that fails lets the server end
			path := filepath.Join(GinkgoT().TempDir(), "s.yaml")
			var seen observed
			tr, err := cassette.Open(mode, path, cassette.Options{Real: http.DefaultTransport, Provenance: prov, Observe: seen.add})
			Expect(err).NotTo(HaveOccurred())

			got := make(chan *http.Response, 1)
			go func() {
				defer GinkgoRecover()
				req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions", strings.NewReader(greet))
				Expect(err).NotTo(HaveOccurred())
				resp, err := tr.RoundTrip(req)
				Expect(err).NotTo(HaveOccurred())
				got <- resp
			}()
			var resp *http.Response
			Eventually(got).WithTimeout(time.Minute).Should(Receive(&resp), "the response arrives before the stream ends")
			// An SDK may wrap the body in the response it was given.
			resp.Body = struct{ io.ReadCloser }{resp.Body}
			body := bufio.NewReader(resp.Body)
			var all strings.Builder
			for i, want := range events {
				if i > 0 {
					next <- struct{}{}
				}
				var event strings.Builder
				for !strings.HasSuffix(event.String(), "\n\n") {
					line, err := body.ReadString('\n')
					Expect(err).NotTo(HaveOccurred())
					event.WriteString(line)
				}
				Expect(event.String()).To(Equal(want))
				all.WriteString(event.String())
				if i < len(events)-1 {
					Expect(seen.all()).To(BeEmpty(), "the exchange is observed when the stream has ended, not before")
				}
			}
			_, err = body.ReadByte()
			Expect(err).To(MatchError(io.EOF))
			Expect(resp.Body.Close()).To(Succeed())
			Expect(seen.all()).To(HaveLen(1))
			st := seen.all()[0].Stream
			Expect(st).NotTo(BeNil())
			Expect(st.Events).To(Equal(3))
			Expect(tr.Close()).To(Succeed())
			if mode != cassette.ModeRecord {
				return
			}

			By("recording each event's offset as it arrived")
			data, err := os.ReadFile(path)
			Expect(err).NotTo(HaveOccurred())
			var f struct {
				Interactions []struct {
					Response struct {
						Body    string              `yaml:"body"`
						Headers map[string][]string `yaml:"headers"`
					} `yaml:"response"`
				} `yaml:"interactions"`
			}
			Expect(yaml.Unmarshal(data, &f)).To(Succeed())
			Expect(f.Interactions).To(HaveLen(1))
			Expect(f.Interactions[0].Response.Body).To(Equal(all.String()))
			offsets := stream.Offsets(http.Header(f.Interactions[0].Response.Headers))
			Expect(offsets).To(HaveLen(3))
			Expect(offsets[1]).To(BeNumerically(">", offsets[0]))
			Expect(offsets[2]).To(BeNumerically(">", offsets[1]))
		},
		Entry("recorded", cassette.ModeRecord),
		Entry("live", cassette.ModeLive),
	)
})
