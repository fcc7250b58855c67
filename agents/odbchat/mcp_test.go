package odbchat_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/odbchat"
)

var _ = Describe("the MCP server", func() {
	var (
		w       *world
		session *mcp.ClientSession
	)

	BeforeEach(func() {
		w = newWorld()
		a, err := odbchat.NewAgent(w.config(singlePass))
		Expect(err).NotTo(HaveOccurred())
		server := odbchat.NewMCPServer(a.Answer)
		srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
		DeferCleanup(srv.Close)

		client := mcp.NewClient(&mcp.Implementation{Name: "odbchat-cli-test", Version: "0"}, nil)
		session, err = client.Connect(ctx(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(session.Close)
	})

	call := func(args map[string]any) (*mcp.CallToolResult, odbchat.Envelope) {
		res, err := session.CallTool(ctx(), &mcp.CallToolParams{Name: "router.answer", Arguments: args})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.IsError).To(BeFalse(), "tool error: %v", res.Content)
		b, err := json.Marshal(res.StructuredContent)
		Expect(err).NotTo(HaveOccurred())
		var env odbchat.Envelope
		Expect(json.Unmarshal(b, &env)).To(Succeed())
		return res, env
	}

	It("lists router.answer", func() {
		tools, err := session.ListTools(ctx(), nil)
		Expect(err).NotTo(HaveOccurred())
		var names []string
		for _, t := range tools.Tools {
			names = append(names, t.Name)
		}
		Expect(names).To(ContainElement("router.answer"))
	})

	It("answers AC-1 through router.answer with the seed's envelope: the plan and the tool result, without the trace", func() {
		_, env := call(map[string]any{"query": "現在台灣周遭海溫多少？"})
		Expect(env.Mode).To(Equal("tool"))
		Expect(env.Source).To(Equal(odbchat.ToolBBoxMean))
		Expect(env.Text).To(ContainSubstring("26.4 °C"))
		Expect(env.Raw.Plan.Decision).To(Equal(odbchat.DecisionMCP))
		Expect(env.Raw.ToolResult).NotTo(BeNil(), "the tool result is always sent")
		Expect(env.Raw.ToolResult.Region).To(Equal([]float64{118, 20, 123.5, 26.5}))
		Expect(env.Raw.Trace).To(BeNil(), "the trace is sent only with debug")
		Expect(w.transport.toolCalls(ghrsstHost)).To(HaveLen(1))
	})

	It("includes the trace with debug", func() {
		_, env := call(map[string]any{"query": "現在台灣周遭海溫多少？", "debug": true})
		Expect(env.Raw.Trace).NotTo(BeNil())
		Expect(env.Raw.Trace.TotalMS).To(BeNumerically(">=", env.Raw.Trace.ClassifyMS))
		Expect(env.Raw.ToolResult).NotTo(BeNil())
	})

	It("answers an explain question, whose plan has no tool", func() {
		_, env := call(map[string]any{"query": "GHRSST 是什麼？"})
		Expect(env.Mode).To(Equal("explain"))
		Expect(env.Text).To(ContainSubstring("[1]"))
	})
})
