// Command stamped is an example agent that does what many real agents do and
// testbed cannot know about: it stamps every request with a fresh UUID and
// the wall-clock time. Each model call carries a new X-Request-Id header,
// the same id and the time in its JSON body (metadata), and the time in its
// system prompt; each call to the weather API carries a request_id and a ts
// (Unix milliseconds) query parameter. Its suite (../scenarios/stamped.yaml)
// declares those with match: rules, so a replay on another day, with other
// UUIDs, matches every recorded call.
//
// It speaks testbed's JSON-lines contract (docs/external-agents.md) and
// reads everything it reaches from its environment:
//
//	OPENAI_BASE_URL, OPENAI_API_KEY  the model (OpenAI Chat Completions)
//	TESTBED_MODEL                    the model name (default gpt-4.1-mini)
//	WEATHER_URL                      the weather API (default https://api.weather.example)
//	STAMPED_CLOCK_OFFSET             a Go duration added to the wall clock
//	                                 (default 0): a spec replays "on another day"
//
// It uses the standard library only, and never TESTBED_NOW: the point is a
// program that reads the system clock (a Go binary cannot be given another
// clock by a preload; see docs/external-agents.md, "The clock").
package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// tools are the functions the model may call.
var tools = []any{map[string]any{
	"type": "function",
	"function": map[string]any{
		"name":        "get_weather",
		"description": "Current weather in a city: temperature, wind and humidity.",
		"parameters": map[string]any{
			"type":       "object",
			"properties": map[string]any{"city": map[string]any{"type": "string", "description": "City name, such as Oslo"}},
			"required":   []string{"city"},
		},
	},
}}

// maxRounds bounds the model calls of one turn.
const maxRounds = 4

// message is a Chat Completions message.
type message struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// used is one tool call as the reply reports it to testbed.
type used struct {
	Name    string          `json:"name"`
	Args    json.RawMessage `json:"args"`
	Raw     string          `json:"raw"`
	Context string          `json:"context"`
	Error   string          `json:"error,omitempty"`
}

// agent holds what every turn uses.
type agent struct {
	model, modelURL, key, weatherURL string
	offset                           time.Duration
	hc                               *http.Client
}

func main() {
	a := &agent{
		model: orDefault(os.Getenv("TESTBED_MODEL"), "gpt-4.1-mini"), modelURL: orDefault(os.Getenv("OPENAI_BASE_URL"), "https://api.openai.com/v1"),
		key: os.Getenv("OPENAI_API_KEY"), weatherURL: orDefault(os.Getenv("WEATHER_URL"), "https://api.weather.example"),
		hc: &http.Client{Timeout: 30 * time.Second},
	}
	if v := os.Getenv("STAMPED_CLOCK_OFFSET"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "stamped: STAMPED_CLOCK_OFFSET: %v\n", err)
			os.Exit(2)
		}
		a.offset = d
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var turn struct {
			Input string `json:"input"`
		}
		if err := json.Unmarshal(in.Bytes(), &turn); err != nil {
			fmt.Fprintf(os.Stderr, "stamped: bad turn: %v\n", err)
			os.Exit(2)
		}
		text, calls, err := a.answer(turn.Input)
		if err != nil {
			text = "error: " + err.Error()
		}
		if err := out.Encode(map[string]any{"text": text, "tools": calls}); err != nil {
			os.Exit(1)
		}
	}
}

// now is the wall clock, moved by STAMPED_CLOCK_OFFSET.
func (a *agent) now() time.Time { return time.Now().Add(a.offset).UTC() }

// answer runs the tool loop for one user message.
func (a *agent) answer(input string) (string, []used, error) {
	system := "You are a concise weather assistant. Use get_weather for current conditions and quote its numbers with their units. " +
		"The time now is " + a.now().Format(time.RFC3339) + "."
	messages := []message{{Role: "system", Content: &system}, {Role: "user", Content: &input}}
	calls := []used{}
	for range maxRounds {
		msg, err := a.chat(messages)
		if err != nil {
			return "", calls, err
		}
		if len(msg.ToolCalls) == 0 {
			if msg.Content == nil {
				return "", calls, nil
			}
			return *msg.Content, calls, nil
		}
		messages = append(messages, msg)
		for _, tc := range msg.ToolCalls {
			raw, context, err := a.tool(tc.Function.Name, tc.Function.Arguments)
			u := used{Name: tc.Function.Name, Args: json.RawMessage(orDefault(tc.Function.Arguments, "{}")), Raw: raw, Context: context}
			if err != nil {
				u.Error = err.Error()
			}
			calls = append(calls, u)
			messages = append(messages, message{Role: "tool", Content: &context, ToolCallID: tc.ID})
		}
	}
	return "I could not finish: too many tool calls.", calls, nil
}

// chat makes one model call, stamped with a fresh request id and the time.
func (a *agent) chat(messages []message) (message, error) {
	id, at := newUUID(), a.now()
	body, err := json.Marshal(map[string]any{
		"model": a.model, "messages": messages, "tools": tools, "temperature": 0,
		"metadata": map[string]string{"request_id": id, "sent_at": at.Format(time.RFC3339Nano)},
	})
	if err != nil {
		return message{}, err
	}
	req, err := http.NewRequest(http.MethodPost, strings.TrimSuffix(a.modelURL, "/")+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return message{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+a.key)
	req.Header.Set("X-Request-Id", id)
	req.Header.Set("X-Tenant", "demo")
	resp, err := a.hc.Do(req)
	if err != nil {
		return message{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return message{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return message{}, fmt.Errorf("model answered %s: %s", resp.Status, clip(string(data)))
	}
	var out struct {
		Choices []struct {
			Message message `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return message{}, fmt.Errorf("model answer: %v", err)
	}
	if len(out.Choices) == 0 {
		return message{}, errors.New("model answer has no choices")
	}
	return out.Choices[0].Message, nil
}

// tool runs one tool call against the weather API, stamped like a model
// call, and returns the API's bytes and what goes back to the model.
func (a *agent) tool(name, arguments string) (raw, context string, err error) {
	if name != "get_weather" {
		return "", fmt.Sprintf(`{"error":"no tool called %s"}`, name), fmt.Errorf("no tool called %s", name)
	}
	var args struct {
		City string `json:"city"`
	}
	if err := json.Unmarshal([]byte(orDefault(arguments, "{}")), &args); err != nil || strings.TrimSpace(args.City) == "" {
		return "", `{"error":"get_weather needs a city"}`, errors.New("get_weather needs a city")
	}
	id := newUUID()
	q := url.Values{"city": {args.City}, "request_id": {id}, "ts": {strconv.FormatInt(a.now().UnixMilli(), 10)}}
	req, err := http.NewRequest(http.MethodGet, strings.TrimSuffix(a.weatherURL, "/")+"/v1/current?"+q.Encode(), nil)
	if err != nil {
		return "", "", err
	}
	req.Header.Set("X-Request-Id", id)
	resp, err := a.hc.Do(req)
	if err != nil {
		msg := fmt.Sprintf("the weather service could not be reached: %v", err)
		return "", fmt.Sprintf(`{"error":%q}`, msg), errors.New(msg)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", "", err
	}
	if resp.StatusCode != http.StatusOK {
		msg := fmt.Sprintf("the weather service answered %s", resp.Status)
		return string(data), fmt.Sprintf(`{"error":%q}`, msg), errors.New(msg)
	}
	return string(data), string(data), nil
}

// newUUID is a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
