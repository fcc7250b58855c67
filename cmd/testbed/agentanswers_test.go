package main

import (
	"io"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/external"
)

// namedUpstream answers every request with body, named name when name is
// not "" (as the proxy names an upstream's answer).
type namedUpstream struct{ name, body string }

func (u namedUpstream) RoundTrip(*http.Request) (*http.Response, error) {
	h := http.Header{}
	if u.name != "" {
		h.Set(external.ExchangeHeader, u.name)
	}
	return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(strings.NewReader(u.body))}, nil
}

var _ = Describe("testbed agent's tool reports", func() {
	// report fetches body through the agent's transport, reading n bytes
	// of it (all with -1), and returns the tool it reports with raw.
	report := func(up namedUpstream, n int, raw string) map[string]any {
		GinkgoHelper()
		tr := &turnTracer{tools: map[int][]map[string]any{}}
		hc := &http.Client{Transport: answerWatch{seen: &tr.answers, next: up}}
		resp, err := hc.Get("http://upstream.example/data")
		Expect(err).NotTo(HaveOccurred())
		if n < 0 {
			_, err = io.ReadAll(resp.Body)
		} else {
			_, err = io.ReadFull(resp.Body, make([]byte, n))
		}
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		tr.Tool("lookup", nil, []byte(raw), "context", nil)
		return tr.tools[0][0]
	}

	It("name an upstream answer the agent read whole by the proxy's name, rather than carry its bytes", func() {
		tool := report(namedUpstream{"3", `{"rows": [1, 2, 3]}`}, -1, `{"rows": [1, 2, 3]}`)
		Expect(tool).To(HaveKeyWithValue("raw_from", "3"))
		Expect(tool).NotTo(HaveKey("raw"))
	})

	DescribeTable("carry the bytes of any other raw payload",
		func(up namedUpstream, n int, raw string) {
			tool := report(up, n, raw)
			Expect(tool).To(HaveKeyWithValue("raw", raw))
			Expect(tool).NotTo(HaveKey("raw_from"))
		},
		Entry("one the agent made of the answer", namedUpstream{"3", `{"rows": [1, 2, 3]}`}, -1, `rows: 1, 2, 3`),
		Entry("an answer the proxy did not name", namedUpstream{"", `{"rows": [1, 2, 3]}`}, -1, `{"rows": [1, 2, 3]}`),
		Entry("an answer the agent did not read to its end", namedUpstream{"3", `{"rows": [1, 2, 3]}`}, 5, `{"row`),
		Entry("an empty one", namedUpstream{"3", ``}, -1, ``),
	)
})
