package kura_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/agenttest"
	"github.com/agentreplay/testbed/agents/kura"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/gemini"
	"github.com/agentreplay/testbed/harness/standin/standintest"
)

// tracer records what the agent reports.
type tracer = agenttest.Tracer

// transport sends the agent's hosts to loopback servers and logs requests.
type transport = agenttest.Transport

// Logical hosts the agent calls by default (kura.Info).
const (
	geminiHost      = "generativelanguage.googleapis.com"
	mapsHost        = "maps.googleapis.com"
	geolocationHost = "www.googleapis.com"
	weatherHost     = "weather.googleapis.com"
	routesHost      = "routes.googleapis.com"
	placesHost      = "places.googleapis.com"
)

// mapsKey is the Maps key the specs hand the agent; it must never appear in
// a URL, a model request or a log.
const mapsKey = "test-maps-key"

// clockAt is the suite's clock (scenarios/kura.yaml); nothing moves it.
func clockAt() time.Time {
	t, err := time.Parse(time.RFC3339, "2025-09-19T18:00:00-04:00")
	Expect(err).NotTo(HaveOccurred())
	return t
}

// upstreamRequests returns the logged requests to any host but the model's.
func upstreamRequests(t *transport) []agenttest.Request {
	var out []agenttest.Request
	for _, s := range t.All() {
		if s.Host != geminiHost {
			out = append(out, s)
		}
	}
	return out
}

// logRecord is one slog record with every attribute it carries, those
// added by Logger.With included, by (group-qualified) key.
type logRecord struct {
	Level   slog.Level
	Message string
	Attrs   map[string]any
}

// logSink keeps the records of every handler derived from it.
type logSink struct {
	mu      sync.Mutex
	records []logRecord
}

// all returns the records, in order.
func (s *logSink) all() []logRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.records)
}

// messages returns the message of every record, in order.
func (s *logSink) messages() []string {
	var out []string
	for _, r := range s.all() {
		out = append(out, r.Message)
	}
	return out
}

// withMessage returns the records with message msg, in order.
func (s *logSink) withMessage(msg string) []logRecord {
	var out []logRecord
	for _, r := range s.all() {
		if r.Message == msg {
			out = append(out, r)
		}
	}
	return out
}

// logHandler is a slog.Handler that records into a logSink.
type logHandler struct {
	sink   *logSink
	attrs  []slog.Attr // qualified keys
	prefix string      // group prefix for later attributes
}

func (h *logHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *logHandler) Handle(_ context.Context, r slog.Record) error {
	rec := logRecord{Level: r.Level, Message: r.Message, Attrs: map[string]any{}}
	for _, a := range h.attrs {
		rec.Attrs[a.Key] = a.Value.Resolve().Any()
	}
	r.Attrs(func(a slog.Attr) bool {
		rec.Attrs[h.prefix+a.Key] = a.Value.Resolve().Any()
		return true
	})
	h.sink.mu.Lock()
	h.sink.records = append(h.sink.records, rec)
	h.sink.mu.Unlock()
	return nil
}

func (h *logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	out := &logHandler{sink: h.sink, attrs: slices.Clone(h.attrs), prefix: h.prefix}
	for _, a := range as {
		out.attrs = append(out.attrs, slog.Attr{Key: h.prefix + a.Key, Value: a.Value})
	}
	return out
}

func (h *logHandler) WithGroup(name string) slog.Handler {
	return &logHandler{sink: h.sink, attrs: slices.Clone(h.attrs), prefix: h.prefix + name + "."}
}

// exchange is one model call as the agent made it and what it got back.
type exchange struct {
	Request  llm.Request
	Response llm.Response
	Err      error
}

// recording is an llm.Client that keeps every exchange it passes on.
type recording struct {
	client llm.Client
	mu     sync.Mutex
	calls  []exchange
}

func (r *recording) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	req.Messages = slices.Clone(req.Messages)
	resp, err := r.client.Chat(ctx, req)
	r.mu.Lock()
	r.calls = append(r.calls, exchange{req, resp, err})
	r.mu.Unlock()
	return resp, err
}

// exchanges returns the recorded exchanges, in order.
func (r *recording) exchanges() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// roles returns the role of every call, in order.
func (r *recording) roles() []string {
	var out []string
	for _, x := range r.exchanges() {
		out = append(out, x.Request.Role)
	}
	return out
}

// ofRole returns the exchanges of role, in order.
func (r *recording) ofRole(role string) []exchange {
	var out []exchange
	for _, x := range r.exchanges() {
		if x.Request.Role == role {
			out = append(out, x)
		}
	}
	return out
}

// script answers one model call; text and failing are agenttest's.
type script = agenttest.Answer

var text, failing = agenttest.Say, agenttest.Fail

// scripted is an llm.Client that answers a role with its script and sends
// the roles without one to the stand-in, through the Gemini adapter.
type scripted struct {
	standin llm.Client
	mu      sync.Mutex
	scripts map[string]script
}

func (s *scripted) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	s.mu.Lock()
	f := s.scripts[req.Role]
	s.mu.Unlock()
	if f == nil {
		return s.standin.Chat(ctx, req)
	}
	msg, err := f(req)
	if err != nil {
		return llm.Response{}, err
	}
	return llm.Response{Message: msg, FinishReason: "STOP"}, nil
}

// executorInput is the user message of an executor call.
type executorInput struct {
	Step       kura.Step      `json:"step"`
	WorldState map[string]any `json:"world_state"`
}

// executorInputOf decodes the first user message of an executor call.
func executorInputOf(req llm.Request) executorInput {
	GinkgoHelper()
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser {
			var in executorInput
			Expect(json.Unmarshal([]byte(m.Content), &in)).To(Succeed(), "executor input %s", m.Content)
			return in
		}
	}
	Fail("executor call has no user message")
	return executorInput{}
}

// toolResult returns the tool message of a call, if it has one.
func toolResult(req llm.Request) (llm.Message, bool) {
	for _, m := range req.Messages {
		if m.Role == llm.RoleTool {
			return m, true
		}
	}
	return llm.Message{}, false
}

// stepScript is what a scripted executor does for one step: call one tool
// (or several, or none) and then answer output.
type stepScript struct {
	calls  []llm.ToolCall
	output string
}

// call is a tool call with JSON arguments.
func call(name, arguments string) llm.ToolCall {
	return llm.ToolCall{ID: "fake_" + name, Name: name, Arguments: json.RawMessage(arguments)}
}

// executor is a scripted Executor: for each step id it calls the step's
// tools first and answers its output once a tool result is in the request
// (at once when the step calls no tool).
func executor(steps map[string]stepScript) script {
	return func(req llm.Request) (llm.Message, error) {
		in := executorInputOf(req)
		s, ok := steps[in.Step.ID]
		if !ok {
			return llm.Message{}, fmt.Errorf("scripted executor: no script for step %s", in.Step.ID)
		}
		if _, done := toolResult(req); done || len(s.calls) == 0 {
			return llm.Message{Role: llm.RoleAssistant, Content: s.output}, nil
		}
		return llm.Message{Role: llm.RoleAssistant, ToolCalls: s.calls}, nil
	}
}

// world is one agent's surroundings: the stand-in model behind Gemini's
// host and the Google Maps Platform stub behind the five Maps hosts, on
// loopback, with a recording tracer and logger.
type world struct {
	transport *transport
	tracer    *tracer
	logs      *logSink
	scripts   *scripted
	model     *recording
	http      *http.Client
	secrets   map[string]string
	upstreams map[string]string
	stubURL   string
}

// newWorld starts the stand-in and the Maps stub for one spec.
func newWorld() *world {
	GinkgoHelper()
	stubs, err := standintest.Start("../../fixtures/kura/routes.yaml")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(stubs.Close)

	w := &world{tracer: &tracer{}, logs: &logSink{}, secrets: map[string]string{kura.KeyMaps: mapsKey}, stubURL: stubs.Upstream}
	base := &http.Transport{}
	DeferCleanup(base.CloseIdleConnections)
	w.transport = agenttest.NewTransport(base)
	w.transport.Route(geminiHost, agenttest.HostOf(stubs.Model))
	for _, h := range []string{mapsHost, geolocationHost, weatherHost, routesHost, placesHost} {
		w.transport.Route(h, agenttest.HostOf(stubs.Upstream))
	}
	w.http = &http.Client{Transport: w.transport}
	info := kura.Info()
	c, err := gemini.New(context.Background(), info.Model.BaseURL, info.Model.Model, "test-key", w.http)
	Expect(err).NotTo(HaveOccurred())
	w.scripts = &scripted{standin: c, scripts: map[string]script{}}
	w.model = &recording{client: w.scripts}
	return w
}

// script answers every call of role with f instead of the stand-in.
func (w *world) script(role string, f script) {
	w.scripts.mu.Lock()
	defer w.scripts.mu.Unlock()
	w.scripts.scripts[role] = f
}

// config is the agents.Config of w with variant.
func (w *world) config(variant map[string]any) agents.Config {
	return agents.Config{
		Model:     w.model,
		HTTP:      w.http,
		Clock:     clockAt,
		Tracer:    w.tracer,
		Upstreams: w.upstreams,
		Variant:   variant,
		Secrets:   w.secrets,
		Logger:    slog.New(&logHandler{sink: w.logs}),
	}
}

// agent builds the agent through kura.New.
func (w *world) agent(variant map[string]any) agents.Agent {
	GinkgoHelper()
	a, err := kura.New(w.config(variant))
	Expect(err).NotTo(HaveOccurred())
	return a
}

// run answers turns in one conversation and returns each turn's reply.
func run(a agents.Agent, turns ...string) []kura.Reply {
	GinkgoHelper()
	out, err := agenttest.Replies(context.Background(), a, agents.Input{Turns: turns}, func(r kura.Reply) string { return r.Text })
	Expect(err).NotTo(HaveOccurred())
	return out
}

// ask runs a conversation of one turn.
func ask(a agents.Agent, q string) kura.Reply {
	GinkgoHelper()
	return run(a, q)[0]
}

// asJSON marshals v.
func asJSON(v any) string {
	GinkgoHelper()
	b, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

// fromJSON decodes a JSON object.
func fromJSON(s string) map[string]any {
	GinkgoHelper()
	var m map[string]any
	Expect(json.Unmarshal([]byte(s), &m)).To(Succeed(), "JSON %s", s)
	return m
}

// at walks nested JSON objects; nil when a key is missing.
func at(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			if s, isState := v.(kura.State); isState {
				m = s
			} else {
				return nil
			}
		}
		v = m[k]
	}
	return v
}

// userMessage returns the last user message of a request.
func userMessage(req llm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llm.RoleUser {
			return req.Messages[i].Content
		}
	}
	return ""
}

// coordinate is a number with three or more decimals, as the synthesizer
// must never show.
const coordinate = `-?\d{1,3}\.\d{3,}`

// twoStepPlan is the seed's scripted plan: Geocode Paris, then Weather.
const twoStepPlan = `{"steps": [{"id": "S1", "action": "Geocode", "args": {"address": "Paris"}},` +
	` {"id": "S2", "action": "Weather", "args": {"location": "Paris"}}], "status": "planning", "confidence": 0.9}`

// Scripted executor outputs for Paris, in the prompt's shapes and with the
// fixture's numbers.
const (
	parisPlace   = `{"name": "Paris", "address": "Paris, France", "lat": 48.8566, "lng": 2.3522}`
	parisWeather = `{"location": "Paris", "temp": 54.3, "feels_like": 51.8, "summary": "Partly cloudy", "humidity": 71, "wind_speed": 12, "units": "imperial"}`
	geocodeOut   = `{"deltaState": {"context": {"places": {"Paris": ` + parisPlace + `}}}, "snippet": "Found Paris, France."}`
	weatherOut   = `{"deltaState": {"context": {"weather": {"Paris": ` + parisWeather + `}, "lastWeather": ` + parisWeather + `}}, "snippet": "It is 54.3°F and partly cloudy in Paris."}`
)

// parisExecutor is the seed's scripted Executor for twoStepPlan.
func parisExecutor() script {
	return executor(map[string]stepScript{
		"S1": {calls: []llm.ToolCall{call("geocode", `{"address": "Paris"}`)}, output: geocodeOut},
		"S2": {calls: []llm.ToolCall{call("weather", `{"lat": 48.8566, "lng": 2.3522, "units": "imperial"}`)}, output: weatherOut},
	})
}
