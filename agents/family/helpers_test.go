package family_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/agenttest"
	"github.com/agentreplay/testbed/agents/family"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/openai"
	"github.com/agentreplay/testbed/harness/standin/standintest"
)

// tracer records what the agent reports.
type tracer = agenttest.Tracer

// transport sends the agent's hosts to loopback servers and logs requests.
type transport = agenttest.Transport

// Logical hosts the agent calls by default (family.Info).
const (
	modelHost = "api.openai.com"
	haHost    = "homeassistant.local:8123"
)

// Profile names, as the agent puts them in llm.Request.Role.
const (
	roleDefault = "default"
	roleViz     = "data_visualization"
)

// The reminder the agent sends a data_visualization model that tries to
// finish without its chart.
const reminder = "You must call create_vega_chart"

// clockAt is the suite's clock (scenarios/family.yaml); nothing moves it.
func clockAt() time.Time { return time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC) }

// fixture returns the bytes of a file under fixtures/family.
func fixture(name string) []byte {
	b, err := os.ReadFile("../../fixtures/family/" + name)
	Expect(err).NotTo(HaveOccurred())
	return b
}

// prompt returns one of the agent's prompt files.
func prompt(name string) string {
	b, err := os.ReadFile("prompts/" + name)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

// attachment is a user attachment as the runner builds it from a fixture.
func attachment(file, mime, description string) agents.Attachment {
	return agents.Attachment{Name: file[strings.LastIndex(file, "/")+1:], MIME: mime, Description: description, Data: fixture(file)}
}

// artifacts returns the artifacts noted, in order.
func artifacts(t *tracer) []agents.Artifact {
	var out []agents.Artifact
	for _, v := range t.Noted(agents.NoteArtifact) {
		a, ok := v.(agents.Artifact)
		Expect(ok).To(BeTrue(), "artifact note holds %T", v)
		out = append(out, a)
	}
	return out
}

// step is one scripted model answer; say and failWith are agenttest's.
type step = agenttest.Answer

var say, failWith = agenttest.Say, agenttest.Fail

// call answers with one tool call.
func call(name, arguments string) step {
	return func(llm.Request) (llm.Message, error) {
		return llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{Name: name, Arguments: json.RawMessage(arguments)}}}, nil
	}
}

// fake is a scripted model: each profile (llm.Request.Role) has its own
// queue of answers. It records a deep copy of every request, numbers the
// tool calls it makes ("fake_1", …) and never touches the network. A
// request with no answer left gets an error.
type fake struct {
	mu      sync.Mutex
	scripts map[string][]step
	calls   []llm.Request
	ids     int
}

func (f *fake) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	req.Messages = slices.Clone(req.Messages)
	req.Tools = slices.Clone(req.Tools)
	f.mu.Lock()
	f.calls = append(f.calls, req)
	queue := f.scripts[req.Role]
	if len(queue) == 0 {
		f.mu.Unlock()
		return llm.Response{}, fmt.Errorf("fake model: nothing scripted left for profile %q", req.Role)
	}
	next := queue[0]
	f.scripts[req.Role] = queue[1:]
	f.mu.Unlock()

	msg, err := next(req)
	if err != nil {
		return llm.Response{}, err
	}
	f.mu.Lock()
	for i := range msg.ToolCalls {
		if msg.ToolCalls[i].ID == "" {
			f.ids++
			msg.ToolCalls[i].ID = fmt.Sprintf("fake_%d", f.ids)
		}
	}
	f.mu.Unlock()
	return llm.Response{Message: msg, FinishReason: "stop"}, nil
}

// requests returns the requests of profile role ("" for all), in order.
func (f *fake) requests(role string) []llm.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []llm.Request
	for _, r := range f.calls {
		if role == "" || r.Role == role {
			out = append(out, r)
		}
	}
	return out
}

// world is one agent's surroundings: the stand-in model and the Home
// Assistant stub on loopback, behind the hosts the agent calls, unless a
// spec scripts the model.
type world struct {
	transport *transport
	tracer    *tracer
	http      *http.Client
	model     llm.Client
	fake      *fake
	secrets   map[string]string
}

// newWorld starts the stand-in and the Home Assistant stub for one spec.
func newWorld() *world {
	stubs, err := standintest.Start("../../fixtures/family/routes.yaml")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(stubs.Close)

	w := &world{tracer: &tracer{}}
	base := &http.Transport{}
	DeferCleanup(base.CloseIdleConnections)
	w.transport = agenttest.NewTransport(base)
	w.transport.Route(modelHost, agenttest.HostOf(stubs.Model))
	w.transport.Route(haHost, agenttest.HostOf(stubs.Upstream))
	w.http = &http.Client{Transport: w.transport}
	info := family.Info()
	w.model = openai.New(info.Model.BaseURL, info.Model.Model, "", w.http)
	return w
}

// script replaces the stand-in with a fake model answering profile role
// with steps; further calls add to the same fake.
func (w *world) script(role string, steps ...step) *fake {
	if w.fake == nil {
		w.fake = &fake{scripts: map[string][]step{}}
		w.model = w.fake
	}
	w.fake.scripts[role] = append(w.fake.scripts[role], steps...)
	return w.fake
}

// serveHomeAssistant sends the Home Assistant host to h instead of the stub.
func (w *world) serveHomeAssistant(h http.Handler) {
	srv := httptest.NewServer(h)
	DeferCleanup(srv.Close)
	w.transport.Route(haHost, agenttest.HostOf(srv.URL))
}

// config is the agents.Config of w with variant.
func (w *world) config(variant map[string]any) agents.Config {
	return agents.Config{
		Model:     w.model,
		HTTP:      w.http,
		Clock:     clockAt,
		Tracer:    w.tracer,
		Upstreams: family.Info().Upstreams,
		Variant:   variant,
		Secrets:   w.secrets,
		Data:      os.DirFS("../../fixtures/family"),
	}
}

// agent builds the agent through family.New.
func (w *world) agent(variant map[string]any) agents.Agent {
	a, err := family.New(w.config(variant))
	Expect(err).NotTo(HaveOccurred())
	return a
}

// run answers in and returns each turn's structured reply.
func run(a agents.Agent, in agents.Input) []family.Reply {
	GinkgoHelper()
	out, err := agenttest.Replies(context.Background(), a, in, func(r family.Reply) string { return r.Text })
	Expect(err).NotTo(HaveOccurred())
	return out
}

// ask runs one turn with the user's attachments.
func ask(a agents.Agent, q string, atts ...agents.Attachment) family.Reply {
	return run(a, agents.Input{Turns: []string{q}, Attachments: atts})[0]
}

// toolMessages returns the tool messages of req, in order.
func toolMessages(req llm.Request) []llm.Message {
	var out []llm.Message
	for _, m := range req.Messages {
		if m.Role == llm.RoleTool {
			out = append(out, m)
		}
	}
	return out
}

// lastTool returns the content of the last tool message of req.
func lastTool(req llm.Request) string {
	msgs := toolMessages(req)
	Expect(msgs).NotTo(BeEmpty(), "request has no tool message")
	return msgs[len(msgs)-1].Content
}

// afterLastTool returns the messages that follow the last tool message of req.
func afterLastTool(req llm.Request) []llm.Message {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llm.RoleTool {
			return req.Messages[i+1:]
		}
	}
	Fail("request has no tool message")
	return nil
}

// userMessages returns the contents of the user messages of req.
func userMessages(req llm.Request) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser {
			out = append(out, m.Content)
		}
	}
	return out
}

// toolNames returns the names of the tools offered in req.
func toolNames(req llm.Request) []string {
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Name)
	}
	return out
}

// jsonArgs encodes tool arguments.
func jsonArgs(v any) string {
	b, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

// historyFile is the attachment download_state_history is meant to save.
type historyFile struct {
	StartTime              string          `json:"start_time"`
	EndTime                string          `json:"end_time"`
	SignificantChangesOnly bool            `json:"significant_changes_only"`
	Entities               []entityHistory `json:"entities"`
}

type entityHistory struct {
	EntityID string           `json:"entity_id"`
	States   []map[string]any `json:"states"`
}

// expectedHistory builds, from a Home Assistant answer under fixtures/family,
// the attachment download_state_history should save for the window.
func expectedHistory(file, start, end string) []byte {
	var lists [][]map[string]any
	Expect(json.Unmarshal(fixture(file), &lists)).To(Succeed())
	h := historyFile{StartTime: start, EndTime: end}
	for _, l := range lists {
		h.Entities = append(h.Entities, entityHistory{EntityID: l[0]["entity_id"].(string), States: l})
	}
	b, err := json.Marshal(h)
	Expect(err).NotTo(HaveOccurred())
	return b
}

// Pool history, route 1 of fixtures/family/routes.yaml.
const (
	poolStart = "2026-02-24T00:00:00+00:00"
	windowEnd = "2026-03-01T00:00:00+00:00"
	poolArgs  = `{"entity_ids":["sensor.pool_temperature"],"start":"2026-02-24T00:00:00Z","end":"2026-03-01T00:00:00Z"}`
	// poolMinAt is when the pool was coldest (24.2 °C); it appears nowhere
	// but in the data itself.
	poolMinAt = "2026-02-26T19:54:55.514116+00:00"
	// poolProgram turns the pool history into {time, temperature} records.
	poolProgram = `.entities[0].states | map({time: .last_changed, temperature: (.state | tonumber?)}) | map(select(.temperature != null))`
)

// poolHistory is the attachment the agent saves for the pool's 5 days.
func poolHistory() []byte {
	return expectedHistory("history/pool-temperature-5d.json", poolStart, windowEnd)
}
