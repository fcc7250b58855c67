package cassette_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"

	"github.com/agentreplay/testbed/harness/cassette"
)

var _ = Describe("a cassette written by go-vcr v4 (format version 2)", func() {
	// record has go-vcr v4's own recorder record a model call and an
	// upstream GET against a loopback server, and returns the cassette's
	// path and what the server answered.
	record := func() (string, []string) {
		up := newUpstream(`{"choices":[{"message":{"content":"26.4"}}]}`, `{"sst":26.4}`)
		name := filepath.Join(GinkgoT().TempDir(), "sst")
		rec, err := recorder.New(name, recorder.WithMode(recorder.ModeRecordOnly))
		Expect(err).NotTo(HaveOccurred())
		client := rec.GetDefaultClient()
		var got []string
		for _, send := range []func() (*http.Response, error){
			func() (*http.Response, error) {
				return client.Post(up.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"sst?"}]}`))
			},
			func() (*http.Response, error) { return client.Get(up.URL + "/sst?lat=20&lon=118") },
		} {
			resp, err := send()
			Expect(err).NotTo(HaveOccurred())
			b, err := io.ReadAll(resp.Body)
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.Body.Close()).To(Succeed())
			got = append(got, string(b))
		}
		Expect(rec.Stop()).To(Succeed())
		up.Close() // the replay must not need it
		return name + ".yaml", got
	}

	It("replays through testbed's replay, request bodies matched canonically, every interaction used", func() {
		path, answers := record()
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(ContainSubstring("version: 2"), "go-vcr v4 wrote its own format")

		s, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{})
		Expect(err).NotTo(HaveOccurred())
		var reqs []*http.Request
		// The live URLs are the recorded ones; the body is the same JSON
		// with its keys in another order.
		f, err := cassette.ReadFormat(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(f.String()).To(Equal("go-vcr v4 (format version 2)"))
		urls := recordedURLs(data)
		Expect(urls).To(HaveLen(2))
		post, _ := http.NewRequest(http.MethodPost, urls[0], bytes.NewReader([]byte(`{"messages":[{"content":"sst?","role":"user"}],"model":"m"}`)))
		get, _ := http.NewRequest(http.MethodGet, urls[1], nil)
		reqs = append(reqs, post, get)
		for i, req := range reqs {
			resp, err := s.RoundTrip(req)
			Expect(err).NotTo(HaveOccurred())
			b, _ := io.ReadAll(resp.Body)
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			Expect(string(b)).To(Equal(answers[i]))
		}
		Expect(s.Unplayed()).To(BeEmpty())
		Expect(s.Close()).To(Succeed())
	})

	It("is read the same by the fast reader as by yaml.v3", func() {
		path, _ := record()
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		fast, slow, ok, err := cassette.ParseBoth(data)
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeTrue(), "the fast reader reads go-vcr v4's layout")
		Expect(fast).To(Equal(slow))
	})
})

// recordedURLs lists the url: values of a cassette's requests, in order.
func recordedURLs(data []byte) []string {
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "url: "); ok {
			out = append(out, v)
		}
	}
	return out
}

// govcr4 is a cassette as go-vcr v4.0.5's recorder wrote it (a POST with a
// JSON body and a GET), a seed of FuzzFastReader.
const govcr4 = `---
version: 2
interactions:
- id: 0
  request:
    proto: HTTP/1.1
    proto_major: 1
    proto_minor: 1
    content_length: 12
    host: 127.0.0.1:8080
    body: "{\"q\":\"a: b\"}"
    headers:
      Content-Type:
      - application/json
    url: http://127.0.0.1:8080/x
    method: POST
  response:
    proto: HTTP/1.1
    proto_major: 1
    proto_minor: 1
    content_length: 16
    body: "{\"a\":1}\n\nline: x"
    headers:
      Content-Length:
      - "16"
      Content-Type:
      - application/json
      Date:
      - Wed, 01 Jan 2025 00:00:00 GMT
    status: 200 OK
    code: 200
    duration: 448.184µs
- id: 1
  request:
    proto: HTTP/1.1
    proto_major: 1
    proto_minor: 1
    content_length: 0
    host: 127.0.0.1:8080
    url: http://127.0.0.1:8080/y
    method: GET
  response:
    proto: HTTP/1.1
    proto_major: 1
    proto_minor: 1
    content_length: 16
    body: "{\"a\":1}\n\nline: x"
    headers:
      Content-Length:
      - "16"
      Content-Type:
      - application/json
      Date:
      - Wed, 01 Jan 2025 00:00:00 GMT
    status: 200 OK
    code: 200
    duration: 58.9µs
`
