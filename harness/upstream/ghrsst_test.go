package upstream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/upstream"
)

// exchange is one HTTP exchange with the fixture MCP server.
type exchange struct {
	method, rpc string // the HTTP method; the JSON-RPC method of a POST
	session     string // the request's Mcp-Session-Id
	status      int
	header      http.Header
}

// logging keeps every exchange it passes on, and asks for fault on the
// tools/call request.
type logging struct {
	fault string
	mu    sync.Mutex
	log   []exchange
}

func (l *logging) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
	}
	var msg struct {
		Method string `json:"method"`
	}
	json.Unmarshal(body, &msg)
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	if msg.Method == "tools/call" && l.fault != "" {
		out.Header.Set(cassette.FaultHeader, l.fault)
	}
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err == nil {
		l.mu.Lock()
		l.log = append(l.log, exchange{method: req.Method, rpc: msg.Method, session: req.Header.Get("Mcp-Session-Id"), status: resp.StatusCode, header: resp.Header.Clone()})
		l.mu.Unlock()
	}
	return resp, err
}

// toolCall is the exchange of the tools/call request.
func (l *logging) toolCall() exchange {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range l.log {
		if e.rpc == "tools/call" {
			return e
		}
	}
	Fail("no tools/call was sent")
	return exchange{}
}

var _ = Describe("the GHRSST fixture MCP server", Label("fixtures"), func() {
	var (
		srv *upstream.Server
		log *logging
	)

	BeforeEach(func() {
		rs, err := upstream.Load("../../fixtures/odbchat/routes.yaml")
		Expect(err).NotTo(HaveOccurred())
		Expect(rs.MCP).To(HaveLen(1))
		Expect(rs.MCP[0].Path).To(Equal("/mcp/ghrsst"))
		srv, err = upstream.Start(rs)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(srv.Close)
		log = &logging{}
	})

	// call runs tool in a session of its own, as ODBchat does.
	call := func(tool string, args map[string]any) (*mcp.CallToolResult, error) {
		c := mcp.NewClient(&mcp.Implementation{Name: "spec", Version: "0"}, nil)
		t := &mcp.StreamableClientTransport{Endpoint: srv.URL() + "/mcp/ghrsst", HTTPClient: &http.Client{Transport: log}, DisableStandaloneSSE: true, MaxRetries: -1}
		s, err := c.Connect(context.Background(), t, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		Expect(err).NotTo(HaveOccurred())
		defer s.Close()
		return s.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	}
	structured := func(tool string, args map[string]any) map[string]any {
		res, err := call(tool, args)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.IsError).To(BeFalse(), "%v", res.Content)
		b, err := json.Marshal(res.StructuredContent)
		Expect(err).NotTo(HaveOccurred())
		var out map[string]any
		Expect(json.Unmarshal(b, &out)).To(Succeed())
		return out
	}
	toolError := func(tool string, args map[string]any) string {
		res, err := call(tool, args)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.IsError).To(BeTrue())
		Expect(res.Content).To(HaveLen(1))
		return res.Content[0].(*mcp.TextContent).Text
	}
	taiwan := []any{118.0, 20.0, 123.5, 26.5}

	It("lists the two tools of the spec", func() {
		c := mcp.NewClient(&mcp.Implementation{Name: "spec", Version: "0"}, nil)
		s, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL() + "/mcp/ghrsst", DisableStandaloneSSE: true}, nil)
		Expect(err).NotTo(HaveOccurred())
		defer s.Close()
		tools, err := s.ListTools(context.Background(), nil)
		Expect(err).NotTo(HaveOccurred())
		var names []string
		for _, t := range tools.Tools {
			names = append(names, t.Name)
		}
		Expect(names).To(ConsistOf("ghrsst.point_value", "ghrsst.bbox_mean"))
	})

	It("answers bbox_mean with the means of the REST rows, the sample and only the fields asked for", func() {
		out := structured("ghrsst.bbox_mean", map[string]any{"bbox": []any{123.5, 26.5, 118, 20}, "date": "2025-11-06", "fields": []any{"sst", "sst_anomaly"}})
		Expect(out).To(HaveLen(5))
		Expect(out["region"]).To(Equal(taiwan), "normalized")
		Expect(out["date"]).To(Equal("2025-11-06"))
		Expect(out["sample"]).To(Equal(30.0))
		Expect(out["sst"]).To(BeNumerically("~", 26.40, 0.005))
		Expect(out["sst_anomaly"]).To(BeNumerically("~", 0.21, 0.005))
		Expect(out).NotTo(HaveKey("requested_date"))
	})

	It("answers point_value from the row", func() {
		Expect(structured("ghrsst.point_value", map[string]any{"longitude": 121.5, "latitude": 23.7, "date": "2025-11-02", "fields": []any{"sst", "sst_anomaly"}})).
			To(Equal(map[string]any{"region": []any{121.5, 23.7}, "date": "2025-11-02", "sst": 26.89, "sst_anomaly": 0.31}))
	})

	It("falls back to the nearest day with method nearest, and says so", func() {
		out := structured("ghrsst.bbox_mean", map[string]any{"bbox": []any{-162.5, 18.5, -153.5, 23}, "date": "2025-11-06", "fields": []any{"sst", "sst_anomaly"}, "method": "nearest"})
		Expect(out["date"]).To(Equal("2025-11-05"))
		Expect(out["requested_date"]).To(Equal("2025-11-06"))
		Expect(out["method"]).To(Equal("nearest"))
		Expect(out["sst"]).To(BeNumerically("~", 26.80, 0.005))
		// Two REST requests, 60 ms and 140 ms, and the call itself.
		Expect(log.toolCall().header.Get(upstream.LatencyHeader)).To(Equal("210ms"))
	})

	DescribeTable("tool errors",
		func(tool string, args map[string]any, text string) {
			Expect(toolError(tool, args)).To(Equal(text))
		},
		Entry("no data for the day, method exact (the default)", "ghrsst.bbox_mean",
			map[string]any{"bbox": []any{-162.5, 18.5, -153.5, 23}, "date": "2025-11-06", "fields": []any{"sst", "sst_anomaly"}},
			"Error calling tool 'ghrsst.bbox_mean': Data not exist, available date is 2002-06-01/2025-11-05."),
		Entry("the nearest day further than 7 days", "ghrsst.bbox_mean",
			map[string]any{"bbox": taiwan, "date": "1990-01-01", "fields": []any{"sst", "sst_anomaly"}, "method": "nearest"},
			"Error calling tool 'ghrsst.bbox_mean': No data for 1990-01-01; nearest available date 2002-06-01 is 4534 days away (tolerance 7 days)."),
		Entry("a bbox of three numbers", "ghrsst.bbox_mean",
			map[string]any{"bbox": []any{119, 21, 123}, "date": "2025-11-06"},
			"bbox must contain exactly four numbers: [lon0, lat0, lon1, lat1]."),
		Entry("a bad date", "ghrsst.point_value",
			map[string]any{"longitude": 121.5, "latitude": 23.7, "date": "2025/11/02"},
			"Invalid date (expected YYYY-MM-DD): 2025/11/02"),
		Entry("an unknown field", "ghrsst.point_value",
			map[string]any{"longitude": 121.5, "latitude": 23.7, "fields": []any{"sea_ice"}},
			"Unsupported field 'sea_ice'. Allowed: ['sst', 'sst_anomaly']"),
		Entry("too many points at every sample tried", "ghrsst.bbox_mean",
			map[string]any{"bbox": []any{122, 24, 122.5, 24.5}, "date": "2025-11-06", "fields": []any{"sst", "sst_anomaly"}},
			"Unable to satisfy bbox request within point limit retries."),
		Entry("a 503, tried three times", "ghrsst.point_value",
			map[string]any{"longitude": 130.5, "latitude": 30.2, "date": "2025-11-06", "fields": []any{"sst", "sst_anomaly"}},
			"GHRSST API error (503): No available dates."),
	)

	It("models the retries of a 503: three 60 ms answers, 0.75 s and 1.5 s apart", func() {
		toolError("ghrsst.point_value", map[string]any{"longitude": 130.5, "latitude": 30.2, "date": "2025-11-06", "fields": []any{"sst", "sst_anomaly"}})
		Expect(log.toolCall().header.Get(upstream.LatencyHeader)).To(Equal("2.44s"))
	})

	It("opens each session with an id in order, never a random one, and states every exchange's latency", func() {
		call("ghrsst.point_value", map[string]any{"longitude": 121.5, "latitude": 23.7, "date": "2025-11-02", "fields": []any{"sst", "sst_anomaly"}})
		call("ghrsst.point_value", map[string]any{"longitude": 121.5, "latitude": 23.7, "date": "2025-11-02", "fields": []any{"sst", "sst_anomaly"}})
		var got []string
		for _, e := range log.log {
			got = append(got, strings.Join([]string{e.method, e.rpc, e.session, e.header.Get("Mcp-Session-Id"), e.header.Get(upstream.LatencyHeader)}, " "))
			Expect(e.header.Get("Date")).To(BeEmpty())
		}
		Expect(got).To(Equal([]string{
			"POST initialize  ghrsst-1 20ms",
			"POST notifications/initialized ghrsst-1  5ms",
			"POST tools/call ghrsst-1  100ms",
			"DELETE  ghrsst-1  5ms",
			"POST initialize  ghrsst-2 20ms",
			"POST notifications/initialized ghrsst-2  5ms",
			"POST tools/call ghrsst-2  100ms",
			"DELETE  ghrsst-2  5ms",
		}))
	})

	It("offers no standalone event stream: a client's GET is answered 405 at once, and the session goes on", func(ctx SpecContext) {
		c := mcp.NewClient(&mcp.Implementation{Name: "spec", Version: "0"}, nil)
		t := &mcp.StreamableClientTransport{Endpoint: srv.URL() + "/mcp/ghrsst", HTTPClient: &http.Client{Transport: log}, MaxRetries: -1}
		s, err := c.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		Expect(err).NotTo(HaveOccurred())
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "ghrsst.point_value",
			Arguments: map[string]any{"longitude": 121.5, "latitude": 23.7, "date": "2025-11-02", "fields": []any{"sst", "sst_anomaly"}}})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.IsError).To(BeFalse())
		Expect(s.Close()).To(Succeed())
		var gets []exchange
		log.mu.Lock()
		for _, e := range log.log {
			if e.method == http.MethodGet {
				gets = append(gets, e)
			}
		}
		log.mu.Unlock()
		Expect(gets).NotTo(BeEmpty(), "the client opened its stream")
		for _, e := range gets {
			Expect(e.status).To(Equal(http.StatusMethodNotAllowed))
			Expect(e.header.Get(upstream.LatencyHeader)).To(Equal("5ms"))
			Expect(e.header.Get("Date")).To(BeEmpty())
		}
	}, SpecTimeout(20*time.Second))

	DescribeTable("faults asked for on the tools/call request",
		func(fault string, failed bool, latency string) {
			log.fault = fault
			_, err := call("ghrsst.point_value", map[string]any{"longitude": 121.5, "latitude": 23.7, "date": "2025-11-02", "fields": []any{"sst", "sst_anomaly"}})
			Expect(err != nil).To(Equal(failed))
			e := log.toolCall()
			Expect(e.header.Get(cassette.FaultHeader)).To(Equal(fault))
			Expect(e.header.Get(upstream.LatencyHeader)).To(Equal(latency))
		},
		Entry("500", upstream.FaultServer, true, "60ms"),
		Entry("401", upstream.FaultUnauthorized, true, "60ms"),
		Entry("slow: the answer, SlowBy later", upstream.FaultSlow, false, "20.1s"),
		Entry("stall: the answer, StallBy later", upstream.FaultStall, false, "5m0.1s"),
	)
})

var _ = Describe("a routes file's mcp: list", func() {
	DescribeTable("refuses what it cannot serve",
		func(entry, problem string) {
			p := writeRoutes("mcp:\n"+entry+"routes: []\n", nil)
			_, err := upstream.Load(p)
			Expect(err).To(MatchError(upstream.ErrInvalid))
			Expect(err.Error()).To(Equal(p + ":2: " + problem))
		},
		Entry("an unknown server", "  - {path: /mcp/x, server: weather}\n", `mcp server "weather": want one of [ghrsst]`),
		Entry("a relative path", "  - {path: mcp/ghrsst, server: ghrsst}\n", `mcp path "mcp/ghrsst" must start with /`),
		Entry("not a mapping", "  - ghrsst\n", "an mcp entry must be a mapping with path: and server:"),
	)
})
