package upstream_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/upstream"
)

var _ = Describe("faults asked for in the fault header", func() {
	var rs *upstream.Routes
	BeforeEach(func() {
		rs, _ = mustLoad("routes:\n  - path: /v1/thing\n    file: thing.json\n    latency: 120ms\n", map[string]string{"thing.json": `{"ok": true}`})
	})

	DescribeTable("error statuses, with or without a matching route",
		func(kind, target string, status int) {
			rec := getWith(rs, target, cassette.FaultHeader, kind)
			Expect(rec.Code).To(Equal(status))
			Expect(rec.Header().Get(cassette.FaultHeader)).To(Equal(kind))
			Expect(rec.Header().Get(upstream.LatencyHeader)).To(Equal("60ms"))
			var body map[string]any
			Expect(json.Unmarshal(rec.Body.Bytes(), &body)).To(Succeed(), "the error body is JSON")
			Expect(rec.Body.String()).To(ContainSubstring("injected fault"))
		},
		Entry("401", upstream.FaultUnauthorized, "/v1/thing", http.StatusUnauthorized),
		Entry("404", upstream.FaultNotFound, "/v1/thing", http.StatusNotFound),
		Entry("500 on a path no route serves", upstream.FaultServer, "/v1/other", http.StatusInternalServerError),
	)

	It("answers slow as the route does, SlowBy later", func() {
		rec := getWith(rs, "/v1/thing", cassette.FaultHeader, upstream.FaultSlow)
		Expect(rec.Code).To(Equal(http.StatusOK))
		Expect(rec.Body.String()).To(Equal(`{"ok": true}`))
		d, err := time.ParseDuration(rec.Header().Get(upstream.LatencyHeader))
		Expect(err).NotTo(HaveOccurred())
		Expect(d).To(Equal(120*time.Millisecond + upstream.SlowBy))
		Expect(rec.Header().Get(cassette.FaultHeader)).To(Equal(upstream.FaultSlow))
	})

	It("pads an oversized body past the agents' limit, still valid JSON", func() {
		rec := getWith(rs, "/v1/thing", cassette.FaultHeader, upstream.FaultOversized)
		Expect(rec.Code).To(Equal(http.StatusOK))
		Expect(rec.Body.Len()).To(BeNumerically(">", agents.MaxResponseBytes))
		Expect(strings.TrimSpace(rec.Body.String())).To(Equal(`{"ok": true}`))
		var v any
		Expect(json.Unmarshal(rec.Body.Bytes(), &v)).To(Succeed())
	})

	It("does not invent a route for slow or oversized", func() {
		rec := getWith(rs, "/v1/other", cassette.FaultHeader, upstream.FaultSlow)
		Expect(rec.Code).To(Equal(http.StatusNotFound))
		Expect(rec.Header().Get(cassette.FaultHeader)).To(BeEmpty())
	})

	It("serves normally without the header", func() {
		rec := get(rs, "/v1/thing")
		Expect(rec.Code).To(Equal(http.StatusOK))
		Expect(rec.Header().Get(cassette.FaultHeader)).To(BeEmpty())
	})
})
