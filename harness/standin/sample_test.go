package standin_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/standin"
)

// serveSample sends body to h as sample k (0: no header).
func serveSample(h http.Handler, body []byte, k int) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", bytes.NewReader(body))
	if k > 0 {
		req.Header.Set(standin.SampleHeader, strconv.Itoa(k))
	}
	h.ServeHTTP(rec, req)
	return rec
}

var _ = Describe("sampling (testbed record --repeat)", func() {
	srv := newStandin(standin.Options{})
	explain := wireBody(onepassRequest("explain", "en", "What is a marine heatwave?",
		passage{"Marine heatwaves", "kb/heatwave.md", "A marine heatwave is a period of unusually warm sea surface temperature."}))

	It("answers sample 1 exactly as a request without the header", func() {
		plain, first := serveSample(srv, explain, 0), serveSample(srv, explain, 1)
		Expect(first.Body.String()).To(Equal(plain.Body.String()))
		Expect(first.Header().Get(cassette.LatencyHeader)).To(Equal(plain.Header().Get(cassette.LatencyHeader)))
	})

	It("answers the same sample of the same request the same way", func() {
		a, b := serveSample(srv, explain, 3), serveSample(srv, explain, 3)
		Expect(a.Body.String()).To(Equal(b.Body.String()))
		Expect(a.Header().Get(cassette.LatencyHeader)).To(Equal(b.Header().Get(cassette.LatencyHeader)))
	})

	It("varies the latency and the wording across samples", func() {
		latencies, bodies := map[string]bool{}, map[string]bool{}
		for k := 1; k <= 8; k++ {
			rec := serveSample(srv, explain, k)
			Expect(rec.Code).To(Equal(http.StatusOK))
			latencies[rec.Header().Get(cassette.LatencyHeader)] = true
			bodies[decode(rec).Choices[0].Message.Content] = true
		}
		Expect(len(latencies)).To(BeNumerically(">", 4))
		Expect(len(bodies)).To(BeNumerically(">", 1))
	})

	It("keeps a JSON answer valid JSON in every sample", func() {
		router := wireBody(routerRequest("現在台灣周遭海溫多少？", true))
		for k := 1; k <= 12; k++ {
			var p plan
			Expect(json.Unmarshal([]byte(decode(serveSample(srv, router, k)).Choices[0].Message.Content), &p)).To(Succeed(), "sample %d", k)
			Expect(p.Decision).NotTo(BeEmpty())
		}
	})
})
