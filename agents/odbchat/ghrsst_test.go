package odbchat_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/agenttest"
	"github.com/agentreplay/testbed/agents/odbchat"
)

// The GHRSST client against MCP servers other than the fixture: one that
// answers in server-sent events, as FastMCP does by default, and one that
// answers later than the agent waits.
var _ = Describe("the GHRSST MCP client", func() {
	const host = "ghrsst.test"

	// agentFor serves s and returns an agent with variant whose GHRSST MCP
	// server it is.
	agentFor := func(w *world, s *mcp.Server, opts *mcp.StreamableHTTPOptions, variant map[string]any) *odbchat.Agent {
		srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, opts))
		DeferCleanup(srv.Close)
		w.transport.hosts[host] = agenttest.HostOf(srv.URL)
		cfg := w.config(variant)
		cfg.Upstreams = map[string]string{"ghrsst": "http://" + host}
		a, err := odbchat.NewAgent(cfg)
		Expect(err).NotTo(HaveOccurred())
		return a
	}
	// serve is agentFor a server whose ghrsst.bbox_mean answers through
	// tool, in JSON or in SSE.
	serve := func(w *world, jsonResponse bool, variant map[string]any, tool func(context.Context) (map[string]any, error)) *odbchat.Agent {
		s := mcp.NewServer(&mcp.Implementation{Name: "ghrsst-mcp", Version: "0"}, nil)
		mcp.AddTool(s, &mcp.Tool{Name: odbchat.ToolBBoxMean}, func(ctx context.Context, _ *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, map[string]any, error) {
			out, err := tool(ctx)
			return nil, out, err
		})
		return agentFor(w, s, &mcp.StreamableHTTPOptions{JSONResponse: jsonResponse}, variant)
	}
	answer := func(context.Context) (map[string]any, error) {
		return map[string]any{"region": []float64{118, 20, 123.5, 26.5}, "date": "2025-11-06", "sample": 1, "sst": 26.42, "sst_anomaly": 0.21}, nil
	}

	DescribeTable("reads the tool's answer in JSON and in server-sent events",
		func(jsonResponse bool) {
			w := newWorld()
			env := ask(serve(w, jsonResponse, singlePass, answer), "現在台灣周遭海溫多少？")
			Expect(env.Mode).To(Equal("tool"))
			Expect(env.Text).To(Equal("2025-11-06：台灣周遭海溫約 26.4 °C，距平 +0.21 °C。"))
			Expect(env.Raw.ToolResult.Sample).To(Equal(1))
		},
		Entry("JSON", true),
		Entry("SSE", false),
	)

	It("answers UNAVAILABLE when the tool call outlasts upstream_timeout (seed §4.9)", func() {
		w := newWorld()
		variant := map[string]any{"router": odbchat.RouterSinglePass, "upstream_timeout": "200ms"}
		release := make(chan struct{})
		a := serve(w, true, variant, func(ctx context.Context) (map[string]any, error) {
			<-release
			return answer(ctx)
		})
		DeferCleanup(func() { close(release) }) // before the server closes
		start := time.Now()
		env := ask(a, "現在台灣周遭海溫多少？")
		// Not 5 s more: the session's DELETE is not sent past the deadline.
		Expect(time.Since(start)).To(BeNumerically("<", 2*time.Second))
		Expect(env.Mode).To(Equal("error"))
		Expect(env.Raw.ToolResult.Error.Code).To(Equal(odbchat.CodeUnavailable))
		Expect(env.Raw.ToolResult.Error.Message).To(Equal("the GHRSST service did not answer within 200ms"))
	})

	It("reads a result given only as JSON text, as the real proxy does", func() {
		w := newWorld()
		s := mcp.NewServer(&mcp.Implementation{Name: "ghrsst-mcp", Version: "0"}, nil)
		s.AddTool(&mcp.Tool{Name: odbchat.ToolBBoxMean, InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"region":[118,20,123.5,26.5],"date":"2025-11-06","sample":1,"sst":26.42,"sst_anomaly":0.21}`}}}, nil
		})
		env := ask(agentFor(w, s, nil, singlePass), "現在台灣周遭海溫多少？")
		Expect(env.Text).To(Equal("2025-11-06：台灣周遭海溫約 26.4 °C，距平 +0.21 °C。"))
	})

	It("passes a tool error on with its code, without FastMCP's prefix", func() {
		w := newWorld()
		a := serve(w, true, singlePass, func(context.Context) (map[string]any, error) {
			return nil, &fastMCPError{"Error calling tool 'ghrsst.bbox_mean': Data not exist, available date is 2002-06-01/2025-11-06."}
		})
		env := ask(a, "2025-11-01 台灣周遭海溫")
		Expect(env.Raw.ToolResult.Error.Code).To(Equal(odbchat.CodeNotFound))
		Expect(env.Raw.ToolResult.Error.Message).To(Equal("Data not exist, available date is 2002-06-01/2025-11-06."))
	})
})

// fastMCPError is a tool error worded as FastMCP words a NotFoundError.
type fastMCPError struct{ msg string }

func (e *fastMCPError) Error() string { return e.msg }
