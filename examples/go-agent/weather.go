// Package weather is a small weather assistant: a tool-calling agent that
// answers questions about the coming days' weather in a city from one
// forecast API, over testbed's provider-neutral model client.
//
// It is the example of a Go agent kept in its own module and tested with
// testbed's replaytest package (see weather_test.go): New is the same
// constructor in production, where the caller passes a real model client,
// http.DefaultClient, time.Now and agents.NopTracer, and under test, where
// testbed passes its recording or replaying ones.
package weather

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
)

// Name is the agent's name; its suites, fixtures and cassettes go by it.
const Name = "weather"

// Info is where the agent calls by default: a small model on a local
// Ollama and the SkyCast forecast API. The suite under testdata describes
// the same endpoints for replaytest.
func Info() agents.Info {
	return agents.Info{
		Name:      Name,
		Model:     llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "http://localhost:11434/v1", Model: "gemma3:4b"},
		Upstreams: map[string]string{"skycast": "https://api.skycast.example"},
	}
}

// settings are what a variant may change (its config: block).
type settings struct {
	// Trim puts only the daily summary of the asked days into the model's
	// context instead of the API's whole answer, hourly readings included.
	Trim bool `json:"trim"`
	// MaxSteps bounds the model calls per user turn (default 4).
	MaxSteps int `json:"max_steps"`
}

// Agent is one conversation's weather assistant.
type Agent struct {
	cfg      agents.Config
	set      settings
	forecast *forecastClient
}

// New builds the assistant from cfg. It calls the upstream named skycast
// in cfg.Upstreams, and refuses a variant config it does not know.
func New(cfg agents.Config) (agents.Agent, error) {
	set := settings{MaxSteps: 4}
	if err := agents.DecodeVariant(cfg.Variant, &set); err != nil {
		return nil, fmt.Errorf("weather: variant config: %w (known keys: trim, max_steps)", err)
	}
	if set.MaxSteps < 1 {
		return nil, fmt.Errorf("weather: variant config: max_steps %d: want 1 or more", set.MaxSteps)
	}
	if cfg.Tracer == nil {
		cfg.Tracer = agents.NopTracer{}
	}
	base := strings.TrimRight(cfg.Upstreams["skycast"], "/")
	return &Agent{cfg: cfg, set: set, forecast: &forecastClient{http: cfg.HTTP, base: base}}, nil
}

// systemPrompt tells the model what it is for, what day it is and when to
// use its one tool.
func (a *Agent) systemPrompt() string {
	today := a.cfg.Clock()
	return fmt.Sprintf(`You are a weather assistant. Today is %s (%s).
When the user asks about the weather somewhere, call get_forecast with the city and the number of days you need, then answer from its result only: say the temperatures in °C and whether to expect rain.
If the question is not about the weather, answer briefly without calling a tool.`,
		today.Format("2006-01-02"), today.Weekday())
}

// tools is the model's one tool.
var tools = []llm.Tool{{
	Name:        "get_forecast",
	Description: "Get the daily weather forecast (temperatures, rain, wind) for a city for the next 1 to 3 days.",
	Parameters: json.RawMessage(`{"type":"object","properties":{` +
		`"city":{"type":"string","description":"the city's name, such as Oslo"},` +
		`"days":{"type":"integer","minimum":1,"maximum":3,"description":"how many days, starting today (default 3)"}},` +
		`"required":["city"]}`),
}}

// Run answers every turn in order, keeping the conversation between them.
func (a *Agent) Run(ctx context.Context, in agents.Input) (agents.Answer, error) {
	history := []llm.Message{{Role: llm.RoleSystem, Content: a.systemPrompt()}}
	var ans agents.Answer
	for i, turn := range in.Turns {
		a.cfg.Tracer.Note(agents.NoteTurn, i)
		history = append(history, llm.Message{Role: llm.RoleUser, Content: turn})
		var reply string
		var err error
		reply, history, err = a.turn(ctx, history)
		if err != nil {
			return ans, fmt.Errorf("weather: turn %d: %w", i+1, err)
		}
		ans.Replies = append(ans.Replies, agents.Reply{Text: reply})
	}
	return ans, nil
}

// turn calls the model until it answers without a tool call, running the
// tool calls it asks for in between, and returns its answer and the
// conversation so far.
func (a *Agent) turn(ctx context.Context, history []llm.Message) (string, []llm.Message, error) {
	route := agents.Route{Mode: "chat"}
	for range a.set.MaxSteps {
		resp, err := a.cfg.Model.Chat(ctx, llm.Request{Role: "assistant", Messages: history, Tools: tools})
		if err != nil {
			return "", history, fmt.Errorf("model: %w", err)
		}
		history = append(history, resp.Message)
		if len(resp.Message.ToolCalls) == 0 {
			a.cfg.Tracer.Note(agents.NoteRoute, route)
			return resp.Message.Content, history, nil
		}
		for _, call := range resp.Message.ToolCalls {
			route = agents.Route{Mode: "tool", Tool: call.Name}
			history = append(history, llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, Name: call.Name, Content: a.call(ctx, call)})
		}
	}
	a.cfg.Tracer.Note(agents.NoteRoute, route)
	return "Sorry, I could not finish looking that up.", history, nil
}

// call runs one tool call and returns what the model is told: the result,
// or what went wrong, so that it can say so.
func (a *Agent) call(ctx context.Context, call llm.ToolCall) string {
	if call.Name != "get_forecast" {
		err := fmt.Errorf("no tool named %q", call.Name)
		a.cfg.Tracer.Tool(call.Name, call.Arguments, nil, err.Error(), err)
		return "error: " + err.Error()
	}
	var args struct {
		City string `json:"city"`
		Days int    `json:"days"`
	}
	if err := json.Unmarshal(call.Arguments, &args); err != nil || strings.TrimSpace(args.City) == "" {
		err := fmt.Errorf("get_forecast needs a city, as {\"city\": \"Oslo\"}")
		a.cfg.Tracer.Tool(call.Name, call.Arguments, nil, err.Error(), err)
		return "error: " + err.Error()
	}
	if args.Days == 0 {
		args.Days = 3
	}
	args.Days = min(max(args.Days, 1), 3)
	raw, fc, err := a.forecast.get(ctx, args.City, args.Days)
	if err != nil {
		a.cfg.Tracer.Tool(call.Name, call.Arguments, raw, "error: "+err.Error(), err)
		return "error: " + err.Error()
	}
	text := string(raw)
	if a.set.Trim {
		text = fc.summary(args.Days)
	}
	a.cfg.Tracer.Tool(call.Name, call.Arguments, raw, text, nil)
	return text
}
