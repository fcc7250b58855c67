package climate_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/agenttest"
	"github.com/agentreplay/testbed/agents/climate"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/llmtest"
	"github.com/agentreplay/testbed/agents/llm/openai"
	"github.com/agentreplay/testbed/harness/standin/standintest"
)

// tracer records what the agent reports.
type tracer = agenttest.Tracer

// transport sends the agent's hosts to loopback servers and logs requests.
type transport = agenttest.Transport

// recording keeps every request the agent sends to the model.
type recording = llmtest.Recording

// fake is a scripted model.
type fake = llmtest.Scripted

// Logical hosts the agent calls by default (climate.Info).
const (
	modelHost = "openrouter.ai"
	embedHost = "api.openai.com"
	ccHost    = "citycatalyst.openearth.dev"
)

// Inventory ids of fixtures/climate (README.md).
const (
	idNewYork2021 = "a540697c-c481-5bc0-aa83-5c16cbccaf15"
	idNewYork2022 = "a5a81e9d-1818-5213-9277-84661b1d3213"
	idNewYork2023 = "384a3c8f-0234-5f82-a359-8677faa4a4f4"
	idWashington  = "511f5808-9e58-5e64-8c0e-1358279e0dfb"
	idOslo        = "4701cd10-470a-526d-a771-c9e03a1b189f"
	idLima        = "532804f9-4d68-5a1c-9f67-8f23386237d9"
	idRio         = "fed7e8c8-46a4-5164-95b3-c2141d343eaf"
	idTokyo       = "b1ba9d2d-9197-5a62-a24e-1bf8744b5cce"
)

// fixture returns the bytes of a file under fixtures/climate.
func fixture(name string) []byte {
	b, err := os.ReadFile("../../fixtures/climate/" + name)
	Expect(err).NotTo(HaveOccurred())
	return b
}

// embeddingCalls returns the inputs of every embeddings request, in order.
func embeddingCalls(t *transport) [][]string {
	var out [][]string
	for _, s := range t.Requests(embedHost) {
		Expect(s.Path).To(Equal("/v1/embeddings"))
		var body struct {
			Input []string `json:"input"`
		}
		Expect(json.Unmarshal(s.Body, &body)).To(Succeed(), "embeddings body %s", s.Body)
		out = append(out, body.Input)
	}
	return out
}

// callOnce is a model that calls one tool, then answers "done".
func callOnce(name, arguments string) *fake {
	return &fake{Next: func(i int, _ llm.Request) llm.Message {
		if i == 0 {
			return toolCallMessage(name, arguments)
		}
		return llm.Message{Role: llm.RoleAssistant, Content: "done"}
	}}
}

func toolCallMessage(name, arguments string) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
		{ID: "fake_1", Name: name, Arguments: json.RawMessage(arguments)},
	}}
}

// world is one agent's surroundings: the stand-in model and embeddings and
// the CityCatalyst stub, on loopback, behind the hosts the agent calls.
type world struct {
	transport *transport
	tracer    *tracer
	model     *recording
	http      *http.Client
	secrets   map[string]string
	cache     *agents.Cache // shared by the agents w makes, as by a run's; nil: none
}

// newWorld starts the stand-in and the CityCatalyst stub for one spec.
func newWorld() *world {
	stubs, err := standintest.Start("../../fixtures/climate/routes.yaml")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(stubs.Close)

	w := &world{tracer: &tracer{}}
	base := &http.Transport{}
	DeferCleanup(base.CloseIdleConnections)
	w.transport = agenttest.NewTransport(base)
	w.transport.Route(modelHost, agenttest.HostOf(stubs.Model))
	w.transport.Route(embedHost, agenttest.HostOf(stubs.Model))
	w.transport.Route(ccHost, agenttest.HostOf(stubs.Upstream))
	w.http = &http.Client{Transport: w.transport}
	info := climate.Info()
	w.model = llmtest.NewRecording(openai.New(info.Model.BaseURL, info.Model.Model, "", w.http))
	return w
}

// useModel replaces the stand-in model with m (still recorded).
func (w *world) useModel(m llm.Client) { w.model.Use(m) }

// serveCityCatalyst sends the CityCatalyst host to h instead of the stub.
func (w *world) serveCityCatalyst(h http.Handler) {
	srv := httptestServer(h)
	w.transport.Route(ccHost, agenttest.HostOf(srv))
}

// clockAt is the suite's clock (scenarios/climate.yaml); nothing moves it.
func clockAt() time.Time { return time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC) }

// config is the agents.Config of w with variant.
func (w *world) config(variant map[string]any) agents.Config {
	info := climate.Info()
	return agents.Config{
		Model:    w.model,
		Embedder: openai.NewEmbedder(info.Embeddings.BaseURL, info.Embeddings.Model, "", info.Embeddings.Dimensions, w.http),
		HTTP:     w.http,
		Clock:    clockAt,
		Tracer:   w.tracer,
		Variant:  variant,
		Secrets:  w.secrets,
		Data:     os.DirFS("../../fixtures/climate"),
		Cache:    w.cache,
	}
}

// agent builds the agent through climate.New.
func (w *world) agent(variant map[string]any) agents.Agent {
	a, err := climate.New(w.config(variant))
	Expect(err).NotTo(HaveOccurred())
	return a
}

// run answers turns and returns each turn's structured reply.
func run(a agents.Agent, turns ...string) []climate.Reply {
	GinkgoHelper()
	out, err := agenttest.Replies(context.Background(), a, agents.Input{Turns: turns}, func(r climate.Reply) string { return r.Text })
	Expect(err).NotTo(HaveOccurred())
	return out
}

// ask runs one turn.
func ask(a agents.Agent, q string) climate.Reply { return run(a, q)[0] }

// names returns the tool names of a reply.
func names(r climate.Reply) []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Name)
	}
	return out
}

// envelope is a tool result as the model reads it.
type envelope struct {
	Success   bool            `json:"success"`
	Data      json.RawMessage `json:"data"`
	Error     string          `json:"error"`
	ErrorCode string          `json:"error_code"`
}

func decodeEnvelope(s string) envelope {
	var e envelope
	Expect(json.Unmarshal([]byte(s), &e)).To(Succeed(), "tool result %s", s)
	return e
}

// inventory is the part of a listed inventory the specs read.
type inventory struct {
	ID   string `json:"inventoryId"`
	Name string `json:"inventoryName"`
	Year int    `json:"year"`
	City struct {
		Name string `json:"name"`
	} `json:"city"`
}

// listed decodes {"data": [inventory…]} from a successful envelope.
func listed(e envelope) []inventory {
	Expect(e.Success).To(BeTrue(), "envelope error %s", e.Error)
	var d struct {
		Data []inventory `json:"data"`
	}
	Expect(json.Unmarshal(e.Data, &d)).To(Succeed())
	return d.Data
}

// toolMessages returns the tool messages of req.
func toolMessages(req llm.Request) []llm.Message {
	var out []llm.Message
	for _, m := range req.Messages {
		if m.Role == llm.RoleTool {
			out = append(out, m)
		}
	}
	return out
}

// excerptRe matches the numbered source line of a rendered vector match.
var excerptRe = regexp.MustCompile(`(?m)^\d+\. Source: (\S+) \(chunk \d+, score (\d\.\d\d)\)$`)

// httptestServer serves h on loopback for one spec and returns its URL.
func httptestServer(h http.Handler) string {
	srv := httptest.NewServer(h)
	DeferCleanup(srv.Close)
	return srv.URL
}
