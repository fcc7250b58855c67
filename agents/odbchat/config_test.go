package odbchat_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/openai"
	"github.com/agentreplay/testbed/agents/odbchat"
)

func ctx() context.Context { return context.Background() }

// scripted answers the router with a fixed reply and passes every other
// role on.
type scripted struct {
	router string
	next   llm.Client
}

func (s scripted) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	if req.Role == "router" {
		return llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: s.router}}, nil
	}
	return s.next.Chat(ctx, req)
}

var _ = Describe("New", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	DescribeTable("refuses a bad variant config, naming the problem",
		func(variant map[string]any, want string) {
			_, err := odbchat.New(w.config(variant))
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("an unknown key", map[string]any{"routr": "legacy"}, `"routr"`),
		Entry("an unknown router", map[string]any{"router": "two-pass"}, `router "two-pass"`),
		Entry("a key of the wrong type", map[string]any{"top_k": "three"}, "top_k"),
		Entry("a router prompt without a prompt folder", map[string]any{"router_prompt": "mine.md"}, `router_prompt "mine.md"`),
	)

	It("accepts the empty variant as single-pass", func() {
		env := ask(w.agent(nil), "現在台灣周遭海溫多少？")
		Expect(env.Mode).To(Equal("tool"))
	})

	It("refuses a config without a data folder", func() {
		cfg := w.config(singlePass)
		cfg.Data = nil
		_, err := odbchat.New(cfg)
		Expect(err).To(MatchError(ContainSubstring("data folder")))
	})

	It("refuses a config without an HTTP client, rather than reaching GHRSST past the cassette", func() {
		cfg := w.config(singlePass)
		cfg.HTTP = nil
		_, err := odbchat.New(cfg)
		Expect(err).To(MatchError(ContainSubstring("no HTTP client given")))
	})
})

var _ = Describe("model failures", func() {
	It("turns a model's HTTP 500 into an UNAVAILABLE envelope, not a Go error", func() {
		hits := 0
		srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			hits++
			http.Error(rw, `{"error":{"message":"boom"}}`, http.StatusInternalServerError)
		}))
		DeferCleanup(srv.Close)

		w := newWorld()
		cfg := w.config(singlePass)
		cfg.Model = openai.New(srv.URL+"/v1", "gemma3:4b", "", srv.Client())
		a, err := odbchat.New(cfg)
		Expect(err).NotTo(HaveOccurred())

		env := ask(a, "現在台灣周遭海溫多少？")
		Expect(env.Mode).To(Equal("error"))
		Expect(env.Text).To(ContainSubstring("UNAVAILABLE"))
		Expect(env.Text).To(HavePrefix("目前無法取得資料"))
		Expect(hits).To(Equal(1))
		Expect(w.transport.requests(ghrsstHost)).To(BeEmpty())
		Expect(w.tracer.Noted("error")).To(HaveLen(1))
		_, err = json.Marshal(env)
		Expect(err).NotTo(HaveOccurred())
	})

	It("answers invalid router JSON through the explain branch", func() {
		w := newWorld()
		cfg := w.config(singlePass)
		cfg.Model = scripted{router: "not json", next: w.model}
		a, err := odbchat.New(cfg)
		Expect(err).NotTo(HaveOccurred())

		env := ask(a, "現在台灣周遭海溫多少？")
		Expect(env.Mode).To(Equal("explain"))
		Expect(env.Source).To(Equal("rag.explain"))
		Expect(env.Confidence).To(BeZero())
		Expect(env.Raw.Plan.Decision).To(Equal(odbchat.DecisionExplain))
		Expect(env.Raw.Plan.Rationale).To(ContainSubstring("not valid JSON"))
		Expect(env.Text).NotTo(BeEmpty())
		Expect(w.model.roles()).To(Equal([]string{"onepass"}))
		Expect(w.transport.requests(ghrsstHost)).To(BeEmpty())

		b, err := json.Marshal(env)
		Expect(err).NotTo(HaveOccurred())
		var back odbchat.Envelope
		Expect(json.Unmarshal(b, &back)).To(Succeed())
		Expect(back.Mode).To(Equal("explain"))
	})

	It("degrades an mcp plan without a tool to explain", func() {
		w := newWorld()
		cfg := w.config(singlePass)
		cfg.Model = scripted{router: `{"decision":"mcp","confidence":0.9}`, next: w.model}
		a, err := odbchat.New(cfg)
		Expect(err).NotTo(HaveOccurred())
		env := ask(a, "現在台灣周遭海溫多少？")
		Expect(env.Mode).To(Equal("explain"))
		Expect(w.transport.requests(ghrsstHost)).To(BeEmpty())
	})

	It("normalizes a plan's registry key, unknown arguments and missing date server-side", func() {
		w := newWorld()
		cfg := w.config(singlePass)
		cfg.Model = scripted{router: "Sure! " + `{"decision":"mcp","confidence":0.8,"tool":{"name":"ghrsst.bbox_mean","arguments":{"bbox":" taiwan_nearby ","depth":10}}}`, next: w.model}
		a, err := odbchat.New(cfg)
		Expect(err).NotTo(HaveOccurred())
		env := ask(a, "台灣海溫")
		Expect(env.Mode).To(Equal("tool"))
		Expect(env.Raw.ToolResult.Arguments.Date).To(Equal("2025-11-06"))
		Expect(env.Raw.ToolResult.Arguments.Fields).To(Equal([]string{"sst", "sst_anomaly"}))
		Expect(env.Raw.ToolResult.Region).To(Equal([]float64{118, 20, 123.5, 26.5}))
		Expect(w.tracer.Reports(odbchat.ToolBBoxMean)[0].Args).NotTo(ContainSubstring("depth"))
	})

	// A model call that fails without an HTTP status (a client timeout, a
	// body that is not JSON) is the model not answering too; before the
	// chaos suite it escaped as a Go error and failed the run.
	It("maps a model failure without a status to UNAVAILABLE", func() {
		w := newWorld()
		cfg := w.config(singlePass)
		cfg.Model = failing{errors.New("error parsing response json: unexpected EOF")}
		a, err := odbchat.New(cfg)
		Expect(err).NotTo(HaveOccurred())
		env := ask(a, "GHRSST 是什麼？")
		Expect(env.Mode).To(Equal("error"))
		Expect(env.Text).To(ContainSubstring("UNAVAILABLE"))
	})

	It("returns a cancelled run as a Go error", func() {
		w := newWorld()
		cfg := w.config(singlePass)
		cfg.Model = failing{context.Canceled}
		a, err := odbchat.New(cfg)
		Expect(err).NotTo(HaveOccurred())
		_, err = a.Run(ctx(), agents.Input{Turns: []string{"GHRSST 是什麼？"}})
		Expect(err).To(MatchError(context.Canceled))
	})
})

// failing is a model that fails every call with err.
type failing struct{ err error }

func (f failing) Chat(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, f.err
}
