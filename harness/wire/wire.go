// Package wire is the codec of the model wire formats testbed reads and
// speaks: OpenAI Chat Completions and Responses, Gemini generateContent,
// Anthropic Messages, Ollama's native chat and Gemini's Interactions API
// (and the OpenAI, Gemini and Ollama embeddings). It decodes a
// provider's request into the provider-neutral Request, checks it as the
// real API does (Validate), and encodes an answer (an llm.Message) as the
// provider's response body, its server-sent event stream (Ollama's:
// newline-delimited JSON), or its error body, with ids derived from the
// request. The stand-in model
// (harness/standin) answers through it, the proxy (harness/proxy) shapes
// its own errors with it, and the traffic scorer (harness/external) reads
// an outside agent's model requests with it.
//
// It holds no policy: what to answer is the caller's, as are latency,
// faults and sampling.
package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentreplay/testbed/agents/llm"
)

// Request is a chat request as read from the wire, whatever its dialect.
type Request struct {
	Model     string
	Messages  []llm.Message
	Tools     []llm.Tool
	MaxTokens int
	// Output is the output the request asks for explicitly, "" when it
	// asks for none (see outputs): json for a JSON object
	// (response_format json_object or json_schema, …), text, image or
	// speech. Schema is the JSON output's schema, if one was given.
	Output llm.Output
	Schema json.RawMessage
	// Shape names the output shape the request asks for: the json_schema's
	// name (OpenAI), the tool forced by tool_choice (Anthropic) or the
	// responseSchema's title (Gemini); "" when it names none.
	Shape string
	// Choice is what the request lets the answer call.
	Choice Choice
	// Temperature and Sampling are the request's sampling settings, each
	// as it gave it (nil when it gave none). Sampling's Stop are the
	// sequences at which the answer's text must end (Chat's stop,
	// Anthropic's stop_sequences, Gemini's stopSequences); see StopAt.
	Temperature *float64
	llm.Sampling
	// Conversation is the id of the provider's conversation the request
	// names (the Responses API's conversation, given as its id or as an
	// object with it), "" when it names none. A previous_response_id
	// names a response, not a conversation, and is no conversation id.
	Conversation string
}

// LimitAt ends msg where a model given r's token limit (MaxTokens) would
// stop, when msg takes out output tokens, more than that: its text after
// the limit's worth of tokens (less a character the last of them would
// split) is never written, nor are the calls that would come after it,
// even when the limit falls inside them. It returns what is left, the
// output tokens to report (the limit) and whether it cut; msg and out as
// they were when r has no limit or msg fits.
func (r Request) LimitAt(msg llm.Message, out int) (llm.Message, int, bool, error) {
	if r.MaxTokens <= 0 || out <= r.MaxTokens {
		return msg, out, false, nil
	}
	toks, err := answerTokens(msg.Content)
	if err != nil {
		return msg, out, false, err
	}
	if len(toks) > r.MaxTokens {
		text := strings.Join(toks[:r.MaxTokens], "")
		for len(text) > 0 && !utf8.ValidString(text) {
			text = text[:len(text)-1]
		}
		msg.Content = text
	}
	msg.ToolCalls = nil
	return msg, r.MaxTokens, true, nil
}

// StopAt ends msg where a model given r's stop sequences would stop: at
// the first place in its text where one of them starts, leaving the
// sequence out; the calls after that text are never made. It returns the
// sequence it met ("" when none, and msg as it was).
func (r Request) StopAt(msg llm.Message) (llm.Message, string) {
	at, met := -1, ""
	for _, s := range r.Stop {
		if i := strings.Index(msg.Content, s); s != "" && i >= 0 && (at < 0 || i < at) {
			at, met = i, s
		}
	}
	if at < 0 {
		return msg, ""
	}
	msg.Content, msg.ToolCalls = msg.Content[:at], nil
	return msg, met
}

// System returns the concatenated system messages.
func (r Request) System() string {
	var parts []string
	for _, m := range r.Messages {
		if m.Role == llm.RoleSystem {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// LastUser returns the content of the last user message.
func (r Request) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == llm.RoleUser {
			return r.Messages[i].Content
		}
	}
	return ""
}

// Dialect is one of the chat wire formats.
type Dialect int

// The dialects, by the path of their calls.
const (
	Chat         Dialect = iota + 1 // OpenAI Chat Completions: …/chat/completions
	Responses                       // OpenAI Responses: …/v1/responses (Azure: …/openai/responses)
	Gemini                          // Gemini: …/models/<model>:generateContent or :streamGenerateContent
	Anthropic                       // Anthropic Messages: …/v1/messages
	Ollama                          // Ollama's native API: …/api/chat, …/api/generate
	Interactions                    // Gemini's Interactions API: …/v1beta/interactions
)

func (d Dialect) String() string {
	switch d {
	case Chat:
		return "chat completions"
	case Responses:
		return "responses"
	case Gemini:
		return "gemini"
	case Anthropic:
		return "anthropic"
	case Ollama:
		return "ollama"
	case Interactions:
		return "interactions"
	}
	return fmt.Sprintf("dialect(%d)", int(d))
}

// Of returns the dialect of a model call to path, and false when path is
// no chat call of any (an upstream, embeddings).
func Of(path string) (Dialect, bool) {
	switch {
	case strings.HasSuffix(path, ":generateContent") || strings.HasSuffix(path, StreamSuffix):
		return Gemini, true
	case strings.HasSuffix(path, "/v1/messages"):
		return Anthropic, true
	case strings.HasSuffix(path, "/v1/responses") || strings.HasSuffix(path, "/openai/responses"):
		return Responses, true
	case strings.HasSuffix(path, "/chat/completions"):
		return Chat, true
	case IsOllama(path):
		return Ollama, true
	case IsInteractions(path):
		return Interactions, true
	}
	return 0, false
}

// AzureDeployment returns the deployment an Azure OpenAI path names
// (…/openai/deployments/<deployment>/…), and whether it names one: the
// model of a call whose body names none.
func AzureDeployment(path string) (string, bool) {
	_, rest, ok := strings.Cut(path, "/openai/deployments/")
	if !ok {
		return "", false
	}
	d, _, _ := strings.Cut(rest, "/")
	return d, d != ""
}

// Decode reads a request body of dialect d, sent to path (Gemini names the
// model in it), as Request, without Validate's checks: the reading the
// harness scores an outside agent's model calls with. It reads recorded
// traffic rather than answering it, so what Read refuses because the
// stand-in cannot serve it (hosted and server tools, stored responses) is
// left out instead; its error is a body it cannot read at all. Both leave
// out images, documents, files and audio.
func Decode(d Dialect, path string, body []byte) (Request, error) {
	switch d {
	case Chat:
		wr, err := parse[chatRequest](body)
		if err != nil {
			return Request{}, err
		}
		wr.deployed(path)
		return wr.decode(), nil
	case Responses:
		rr, err := parse[responsesRequest](body)
		if err != nil {
			return Request{}, err
		}
		r, _, err := rr.decode(false, nil)
		return r, err
	case Gemini:
		model, _, ok := GeminiModel(path)
		if !ok {
			return Request{}, fmt.Errorf("%s is not a …/models/<model>:generateContent path", path)
		}
		gr, err := parse[geminiRequest](body)
		if err != nil {
			return Request{}, err
		}
		return gr.decode(model, false)
	case Anthropic:
		ar, err := parse[anthropicRequest](body)
		if err != nil {
			return Request{}, err
		}
		r, _, err := ar.decode(false, nil)
		return r, err
	case Ollama:
		or, err := parse[ollamaRequest](body)
		if err != nil {
			return Request{}, err
		}
		return or.at(path).decode()
	case Interactions:
		ir, err := parse[interactionsRequest](body)
		if err != nil {
			return Request{}, err
		}
		r, _, err := ir.decode(false, nil)
		return r, err
	}
	return Request{}, errors.New("unknown dialect " + d.String())
}
