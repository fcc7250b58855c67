package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/agentreplay/testbed/agents/llm"
)

// Answering Ollama's native API. An /api/chat answer is one chunk (whole)
// or newline-delimited chunks (streamed: its text in pieces, each tool
// call whole in a chunk of its own, as Ollama sends them, then the done
// chunk with the counts); its created_at is the epoch and its durations 0,
// as the stand-in's answers carry no wall clock. The model listing (GET
// …/api/tags), a model's details (POST …/api/show), the server's version
// (GET …/api/version) and embeddings (POST …/api/embed) are answered in
// Ollama's shapes too.

// OllamaVersion is the Ollama version the stand-in says it is.
const OllamaVersion = "0.12.3"

// ollamaEpoch is the created_at of every answer.
const ollamaEpoch = "1970-01-01T00:00:00Z"

// readOllama reads an /api/chat or /api/generate request body (to path)
// for answering: a request without a model, or with a format it cannot
// read, is refused as Ollama refuses it.
func readOllama(path string, body []byte) (Call, error) {
	or, err := parse[ollamaRequest](body)
	if err != nil {
		return Call{}, err
	}
	if or.Model == "" {
		return Call{}, errors.New("model is required")
	}
	req, err := or.at(path).decode()
	if err != nil {
		return Call{}, err
	}
	thinks, err := or.thinks()
	if err != nil {
		return Call{}, err
	}
	return Call{req, ollamaEncoder(or.streams(), ollamaGenerate(path), thinks)}, nil
}

// ollamaText puts an answer's text, its calls and its thinking where an
// /api/chat answer has them (a message) or an /api/generate one (response
// and thinking): the key and value of each, the thinking's key "" when
// there is none.
type ollamaText func(content string, calls []any, thinking string) (k string, v any, tk string, tv string)

// ollamaEncoder answers an /api/chat request, or an /api/generate one
// when generate (its text in "response"), streamed when stream, with the
// stand-in's thinking (thinkingOf) when thinks.
func ollamaEncoder(stream, generate, thinks bool) Encoder {
	text := ollamaText(func(content string, calls []any, thinking string) (string, any, string, string) {
		m := answerMessage(content, calls)
		if thinking != "" {
			m["thinking"] = thinking
		}
		return "message", m, "", ""
	})
	if generate {
		text = func(content string, _ []any, thinking string) (string, any, string, string) {
			if thinking != "" {
				return "response", content, "thinking", thinking
			}
			return "response", content, "", ""
		}
	}
	// thought is the thinking shown before msg and its tokens, when asked.
	thought := func(msg llm.Message) (string, int, error) {
		if !thinks {
			return "", 0, nil
		}
		t := thinkingOf(msg)
		toks, err := answerTokens(t)
		return t, len(toks), err
	}
	e := Encoder{
		Error:     ollamaError,
		Malformed: `{"model": "m", "created_at": "` + ollamaEpoch + `", "message": {"role": "assistant", "content": "unterminated`,
		Completion: func(model string, msg llm.Message, end End, in, out int) (any, error) {
			calls, err := ollamaCalls(msg.ToolCalls)
			if err != nil {
				return nil, err
			}
			t, n, err := thought(msg)
			if err != nil {
				return nil, err
			}
			return ollamaDone(model, text, msg.Content, calls, t, end, msg, in, out+n), nil
		},
	}
	if stream {
		e.Lines = true
		e.Events = func(model string, msg llm.Message, end End, in, out int) ([]Event, error) {
			t, n, err := thought(msg)
			if err != nil {
				return nil, err
			}
			return ollamaEvents(text, model, msg, t, n, end, in, out)
		}
	}
	return e
}

// ollamaEvents are the chunks of a streamed answer, its text where text
// puts it: the thinking (its n tokens, when asked) in a chunk of its own,
// a chunk a piece of text, a chunk a tool call, then the done chunk.
func ollamaEvents(text ollamaText, model string, msg llm.Message, thinking string, n int, end End, in, out int) ([]Event, error) {
	calls, err := ollamaCalls(msg.ToolCalls)
	if err != nil {
		return nil, err
	}
	chunk := func(content string, calls []any, thinking string, before int) Event {
		k, v, tk, tv := text(content, calls, thinking)
		data := map[string]any{"model": model, "created_at": ollamaEpoch, k: v, "done": false}
		if tk != "" {
			data[tk] = tv
		}
		return Event{Kind: EventContent, Before: before, Data: data}
	}
	var events []Event
	if thinking != "" {
		events = append(events, chunk("", nil, thinking, 0))
	}
	for _, p := range pieces(msg, out, cut(msg.Content, true)) {
		switch {
		case p.call < 0:
			events = append(events, chunk(p.text, nil, "", n+p.before))
		case p.start:
			events = append(events, chunk("", calls[p.call:p.call+1], "", n+p.before))
		}
		// a call's arguments go whole with its start
	}
	events = append(events, Event{Kind: EventTail, Before: out + n, Data: ollamaDone(model, text, "", nil, "", end, msg, in, out+n)})
	return events, nil
}

// ollamaCalls are calls as an answer's message carries them: each its
// index, name and arguments as a JSON object.
func ollamaCalls(calls []llm.ToolCall) ([]any, error) {
	var out []any
	for i, tc := range calls {
		args, err := argsObject(tc)
		if err != nil {
			return nil, err
		}
		out = append(out, map[string]any{"function": map[string]any{"index": i, "name": tc.Name, "arguments": args}})
	}
	return out, nil
}

// answerMessage is an answer's message of text content and calls.
func answerMessage(content string, calls []any) map[string]any {
	m := map[string]any{"role": "assistant", "content": content}
	if len(calls) > 0 {
		m["tool_calls"] = calls
	}
	return m
}

// ollamaDone is the chunk that ends an answer carrying msg (whole, it is
// the answer: content, calls and thinking put where text says): why it
// ended and its token counts.
func ollamaDone(model string, text ollamaText, content string, calls []any, thinking string, end End, msg llm.Message, in, out int) map[string]any {
	k, v, tk, tv := text(content, calls, thinking)
	done := map[string]any{
		"model": model, "created_at": ollamaEpoch, k: v, "done": true,
		"done_reason":    finishOf(msg, end, "stop", "length", "stop"),
		"total_duration": 0, "load_duration": 0, "prompt_eval_count": in, "prompt_eval_duration": 0,
		"eval_count": out, "eval_duration": 0,
	}
	if tk != "" {
		done[tk] = tv
	}
	return done
}

// ollamaError is Ollama's error body, whatever the status.
func ollamaError(_ int, msg string) any { return map[string]any{"error": msg} }

// WriteLines writes the data of events as newline-delimited JSON, an
// event a line, as Ollama streams (OllamaStreamType).
func WriteLines(w io.Writer, events []Event) {
	for _, e := range events {
		data, ok := e.Data.(string)
		if !ok {
			b, _ := MarshalPlain(e.Data)
			data = string(b)
		}
		io.WriteString(w, data+"\n")
	}
}

// OllamaModels is Ollama's listing of the models ids (GET …/api/tags).
func OllamaModels(ids []string) map[string]any {
	models := make([]any, 0, len(ids))
	for _, id := range ids {
		models = append(models, map[string]any{"name": id, "model": id, "modified_at": ollamaEpoch, "size": 0,
			"digest": "", "details": ollamaDetails()})
	}
	return map[string]any{"models": models}
}

// OllamaShow is Ollama's description of a model (POST …/api/show): the
// stand-in's, which answers text, calls tools and thinks when asked,
// whatever its name.
func OllamaShow() map[string]any {
	return map[string]any{"modelfile": "", "parameters": "", "template": "{{ .Prompt }}", "details": ollamaDetails(),
		"model_info": map[string]any{}, "capabilities": []string{"completion", "tools", "thinking"}}
}

func ollamaDetails() map[string]any {
	return map[string]any{"format": "gguf", "family": "standin", "parameter_size": "", "quantization_level": ""}
}

// OllamaEmbedBody is Ollama's answer to an /api/embed request e (read
// with ReadEmbeddings: its model and input are OpenAI's): one vector per
// text, and the tokens counted in the texts.
func OllamaEmbedBody(e Embeddings, vectors [][]float64, tokens int) any {
	return map[string]any{"model": e.Model, "embeddings": vectors, "total_duration": 0, "load_duration": 0, "prompt_eval_count": tokens}
}

// ReadOllamaEmbeddings reads a request to Ollama's older …/api/embeddings:
// a model and one prompt, which may be empty.
func ReadOllamaEmbeddings(body []byte) (Embeddings, error) {
	var req struct {
		Model  string `json:"model"`
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return Embeddings{}, fmt.Errorf("request is not JSON: %w", err)
	}
	if req.Model == "" {
		return Embeddings{}, errors.New("model is required")
	}
	return Embeddings{Model: req.Model, Texts: []string{req.Prompt}, Dims: []int{0}}, nil
}

// OllamaEmbeddingsBody is Ollama's answer to an …/api/embeddings request
// e: its one vector (none for an empty prompt, as Ollama answers), no
// count.
func OllamaEmbeddingsBody(e Embeddings, vectors [][]float64, _ int) any {
	if e.Texts[0] == "" {
		return map[string]any{"embedding": []float64{}}
	}
	return map[string]any{"embedding": vectors[0]}
}
