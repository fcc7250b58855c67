package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// failedRequestAgent asks its upstream for something, whatever comes of it
// (the request fails), then answers.
const failedRequestAgent = `read l
curl -s --max-time 5 "$SEA_BASE_URL/tide/today" >/dev/null
echo '{"text": "done"}'
`

var _ = Describe("a recording aborted after a failed request", func() {
	It("names the request and its error", func() {
		if _, err := exec.LookPath("curl"); err != nil {
			Skip("curl is not installed")
		}
		// A port of loopback nobody listens on: the live upstream's
		// requests fail at once, on this machine, with no network.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		closed := "http://" + ln.Addr().String()
		Expect(ln.Close()).To(Succeed())

		root := GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(root, "scenarios"), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(root, "agent.sh"), []byte(failedRequestAgent), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(root, "scenarios", "sea.yaml"), []byte(`suite: sea
agent:
  name: sea
  command: [sh, agent.sh]
  model: {provider: openai, base_url: "https://api.openai.com/v1", model: gpt-4.1-mini}
  upstreams:
    sea: {base_url: "`+closed+`"}
clock: 2026-03-02T08:00:00Z
baseline: default
variants:
  default: {description: as written}
scenarios:
  - id: tide
    input: "the tide today"
    expect: {answer: {contains: done}}
`), 0o644)).To(Succeed())
		r := testbed("record", "--root", root, "--suite", "sea", "--live-upstreams", "--quiet")
		Expect(r.code).To(Equal(exitFailed), r.String())
		Expect(r.stdout).To(ContainSubstring("recording aborted after a failed request (GET "+closed+"/tide/today: "), r.String())
		Expect(r.stdout).To(ContainSubstring("); the previous cassette is kept"), r.String())
	})
})
