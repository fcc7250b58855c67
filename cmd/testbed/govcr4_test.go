package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
)

// toServer sends every request to one loopback server, keeping its path
// and query: go-vcr v4 records the logical URL the client asked for.
type toServer struct{ u *url.URL }

func (t toServer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = t.u.Scheme, t.u.Host, t.u.Host
	return http.DefaultTransport.RoundTrip(r)
}

var _ = Describe("testbed run on a cassette go-vcr v4 wrote", func() {
	It("replays it for the scenario whose cassette it is, offline", func() {
		if _, err := exec.LookPath("curl"); err != nil {
			Skip("curl is not installed")
		}
		root := GinkgoT().TempDir()
		suite := `suite: goteam
agent:
  name: goteam
  command: [sh, -c, 'while read -r l; do t=$(curl -s "$WEATHER_URL/forecast?city=Oslo"); echo "{\"text\": \"Oslo: $t\"}"; done']
  model: {provider: openai, base_url: "https://api.openai.com/v1", model: gpt-4.1-mini}
  upstreams:
    weather: {base_url: "https://weather.example", env: WEATHER_URL}
  turn_timeout: 30s
clock: 2026-03-02T08:00:00Z
baseline: default
variants:
  default: {description: the agent as written}
scenarios:
  - id: oslo
    input: "Weather in Oslo?"
    expect:
      answer: {contains: "-3.2 °C"}
`
		Expect(os.MkdirAll(filepath.Join(root, "scenarios"), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(root, "scenarios", "goteam.yaml"), []byte(suite), 0o644)).To(Succeed())

		// A Go team's test recorded the upstream call with go-vcr v4.
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "-3.2 °C") }))
		u, err := url.Parse(srv.URL)
		Expect(err).NotTo(HaveOccurred())
		rec, err := recorder.New(filepath.Join(root, "cassettes", "goteam", "default", "oslo"),
			recorder.WithMode(recorder.ModeRecordOnly), recorder.WithRealTransport(toServer{u}))
		Expect(err).NotTo(HaveOccurred())
		resp, err := rec.GetDefaultClient().Get("https://weather.example/forecast?city=Oslo")
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Body.Close()).To(Succeed())
		Expect(rec.Stop()).To(Succeed())
		srv.Close()

		r := testbed("run", "--root", root, "--out", "", "--no-baseline")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(ContainSubstring("1 of 1 recorded interactions replayed"))
		Expect(r.stdout).To(ContainSubstring("PASS: all 1 scenario"))

		c := testbed("cassettes", "check", "--dir", filepath.Join(root, "cassettes"))
		Expect(c.code).To(Equal(exitOK), c.String())
		Expect(c.stdout).To(ContainSubstring("oslo.yaml: go-vcr v4 (format version 2)\nformats: 1 go-vcr v4 (format version 2)\n"))
	})
})
