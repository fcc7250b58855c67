package cba_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/agenttest"
	"github.com/agentreplay/testbed/agents/cba"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/gemini"
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

// Logical hosts the agent and its model adapters call by default (cba.Info
// and the Gemini SDK).
const (
	ollamaHost    = "localhost:11434"
	geminiHost    = "generativelanguage.googleapis.com"
	geocodingHost = "geocoding-api.open-meteo.com"
	forecastHost  = "api.open-meteo.com"
	climateHost   = "climate-api.open-meteo.com"
	soilHost      = "rest.isric.org"
	countriesHost = "restcountries.com"
	worldBankHost = "api.worldbank.org"
)

// The tool sets as the agent defines them (tools.go), in its order.
var (
	// The reduced set is the real project's (upstreams.md §4.1) less
	// run_tools_parallel and the help tools; the full set is the same tools.
	reducedTools = []string{"get_current_weather", "get_weather_forecast", "get_climate_data", "get_soil_properties",
		"get_soil_carbon", "get_country_indicators", "get_world_bank_data", "search_indicators", "search_methods", "get_indicator_details", "find_feasible_methods",
		"compare_indicators", "export_indicator_selection", "find_indicators_by_principle", "find_indicators_by_class",
		"list_available_classes", "list_knowledge_base_stats", "get_knowledge_version", "search_usecases"}
	fullTools = reducedTools
	helpTools = cba.HelpTools
)

// withHelp is names followed by the help tools, as the model gets them.
func withHelp(names []string) []string { return append(append([]string{}, names...), helpTools...) }

// The built-in configurations of scenarios/cba.yaml.
var (
	cfgFull        = map[string]any{"tools": "full", "prompt": "full"}
	cfgMinimal     = map[string]any{"tools": "reduced", "prompt": "minimal", "help": false}
	cfgMinimalHelp = map[string]any{"tools": "reduced", "prompt": "minimal-help", "help": true}
)

// fixture returns the bytes of a file under fixtures/cba.
func fixture(name string) []byte {
	GinkgoHelper()
	b, err := os.ReadFile("../../fixtures/cba/" + name)
	Expect(err).NotTo(HaveOccurred())
	return b
}

// promptFile returns one of the agent's built-in prompts as committed.
func promptFile(name string) string {
	GinkgoHelper()
	b, err := os.ReadFile("prompts/" + name + ".md")
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

// calls is a model that makes the given steps of tool calls, one model
// answer per step, then answers "done".
func calls(steps ...[]llm.ToolCall) *fake {
	return &fake{Next: func(i int, _ llm.Request) llm.Message {
		if i < len(steps) {
			return llm.Message{Role: llm.RoleAssistant, ToolCalls: steps[i]}
		}
		return llm.Message{Role: llm.RoleAssistant, Content: "done"}
	}}
}

// call is one tool call with JSON arguments.
func call(id, name, arguments string) []llm.ToolCall {
	return []llm.ToolCall{{ID: id, Name: name, Arguments: json.RawMessage(arguments)}}
}

// callOnce is a model that calls one tool, then answers "done".
func callOnce(name, arguments string) *fake { return calls(call("fake_1", name, arguments)) }

// failing is a model whose every call fails.
type failing struct{}

func (failing) Chat(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, &llm.StatusError{Code: 503, Body: "model unavailable"}
}

// world is one agent's surroundings: the stand-in model and the fixture
// upstreams on loopback, behind the hosts the agent calls.
type world struct {
	transport *transport
	tracer    *tracer
	model     *recording
	http      *http.Client
	cache     *agents.Cache // shared by the agents w makes, as by a run's; nil: none
}

// newWorld starts the stand-in and the upstream stub for one spec; the
// model is the stand-in behind the agent's default Ollama endpoint.
func newWorld() *world {
	GinkgoHelper()
	stubs, err := standintest.Start("../../fixtures/cba/routes.yaml")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(stubs.Close)

	w := &world{tracer: &tracer{}}
	base := &http.Transport{}
	DeferCleanup(base.CloseIdleConnections)
	w.transport = agenttest.NewTransport(base)
	w.transport.Route(ollamaHost, agenttest.HostOf(stubs.Model))
	w.transport.Route(geminiHost, agenttest.HostOf(stubs.Model))
	w.transport.Route(geocodingHost, agenttest.HostOf(stubs.Upstream))
	w.transport.Route(forecastHost, agenttest.HostOf(stubs.Upstream))
	w.transport.Route(climateHost, agenttest.HostOf(stubs.Upstream))
	w.transport.Route(soilHost, agenttest.HostOf(stubs.Upstream))
	w.transport.Route(countriesHost, agenttest.HostOf(stubs.Upstream))
	w.transport.Route(worldBankHost, agenttest.HostOf(stubs.Upstream))
	w.http = &http.Client{Transport: w.transport}
	info := cba.Info()
	w.model = llmtest.NewRecording(openai.New(info.Model.BaseURL, info.Model.Model, "", w.http))
	return w
}

// useModel replaces the stand-in model with m (still recorded).
func (w *world) useModel(m llm.Client) { w.model.Use(m) }

// useGemini puts the stand-in behind Google's Gemini endpoint, through the
// Gemini adapter, as the minimal-help variant runs.
func (w *world) useGemini() {
	GinkgoHelper()
	c, err := gemini.New(context.Background(), "", "gemini-2.5-flash", "test-key", w.http)
	Expect(err).NotTo(HaveOccurred())
	w.useModel(c)
}

// config is the agents.Config of w with variant.
func (w *world) config(variant map[string]any) agents.Config {
	return agents.Config{
		Model:   w.model,
		HTTP:    w.http,
		Clock:   func() time.Time { return time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC) },
		Tracer:  w.tracer,
		Variant: variant,
		Data:    os.DirFS("../../fixtures/cba"),
		Cache:   w.cache,
	}
}

// agent builds the agent through cba.New.
func (w *world) agent(variant map[string]any) *cba.Agent {
	GinkgoHelper()
	a, err := cba.New(w.config(variant))
	Expect(err).NotTo(HaveOccurred())
	ca, ok := a.(*cba.Agent)
	Expect(ok).To(BeTrue(), "cba.New returned %T", a)
	return ca
}

// run answers turns and returns each turn's structured reply.
func run(a agents.Agent, turns ...string) []cba.Reply {
	GinkgoHelper()
	out, err := agenttest.Replies(context.Background(), a, agents.Input{Turns: turns}, func(r cba.Reply) string { return r.Text })
	Expect(err).NotTo(HaveOccurred())
	return out
}

// ask runs one turn.
func ask(a agents.Agent, q string) cba.Reply {
	GinkgoHelper()
	return run(a, q)[0]
}

// tool runs one tool of an agent built with variant, called by a scripted
// model with arguments, and returns what the agent reported for it.
func (w *world) tool(variant map[string]any, name, arguments string) agenttest.ToolReport {
	GinkgoHelper()
	w.useModel(callOnce(name, arguments))
	reply := ask(w.agent(variant), "question")
	Expect(reply.Tools).To(Equal([]string{name}))
	reports := w.tracer.Reports("")
	Expect(reports).NotTo(BeEmpty())
	r := reports[len(reports)-1]
	Expect(r.Name).To(Equal(name))
	Expect(r.Args).To(MatchJSON(arguments))
	// the model reads exactly what the tracer reports as context
	reqs := w.model.Requests()
	last := reqs[len(reqs)-1].Messages
	Expect(last[len(last)-1].Role).To(Equal(llm.RoleTool))
	Expect(last[len(last)-1].Name).To(Equal(name))
	Expect(last[len(last)-1].Content).To(Equal(r.Context))
	Expect(r.ID).NotTo(BeEmpty(), "the report names the model's call it ran")
	Expect(r.ID).To(Equal(last[len(last)-1].ToolCallID))
	return r
}

// kbTool runs a knowledge-base tool of the full set and returns its output,
// which must not be an error.
func (w *world) kbTool(name, arguments string) string {
	GinkgoHelper()
	r := w.tool(cfgFull, name, arguments)
	Expect(r.Err).NotTo(HaveOccurred())
	Expect(string(r.Raw)).To(Equal(r.Context), "a knowledge-base tool reports its own output as raw")
	return r.Context
}

// toolNames returns the names of tools.
func toolNames(tools []llm.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

// lines splits s into lines.
func lines(s string) []string { return strings.Split(s, "\n") }
