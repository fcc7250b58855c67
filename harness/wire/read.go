package wire

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/agentreplay/testbed/agents/llm"
)

// Call is a model request read for answering: what it asks, and how to
// answer it in its dialect.
type Call struct {
	Request Request
	Encoder Encoder
}

// Read reads a request body of dialect d sent to path and checks it as the
// real API does (Validate), as Threads.Read with no answers kept.
func Read(d Dialect, path string, body []byte, sample int) (Call, error) {
	return (*Threads)(nil).Read(d, path, body, sample)
}

// Read reads a request body of dialect d sent to path and checks it as the
// real API does (Validate). The answer's ids derive from the body and
// sample (sample 1, and each other sample, its own). A Responses API
// request is read after the conversation of the answer it continues
// (previous_response_id), which t must have kept; its own answer is kept
// in t unless it says store: false. Its error is the request's refusal:
// answer it with 400 and Refusal.
func (t *Threads) Read(d Dialect, path string, body []byte, sample int) (Call, error) {
	switch d {
	case Chat:
		wr, err := parse[chatRequest](body)
		if err != nil {
			return Call{}, err
		}
		wr.deployed(path)
		if err := validateChat(wr); err != nil {
			return Call{}, err
		}
		if err := wr.served(); err != nil {
			return Call{}, err
		}
		req := wr.decode()
		if rf := wr.ResponseFormat; rf != nil && rf.Type == "json_object" && !mentionsJSON(req.Messages) {
			return Call{}, &invalid{msg: "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.", param: "messages"}
		}
		return Call{req, chatEncoder(body, sample, wr)}, nil
	case Responses:
		rr, err := parse[responsesRequest](body)
		if err != nil {
			return Call{}, err
		}
		prior, err := t.priorOf(rr)
		if err == nil {
			rr.Input, err = t.resolve(rr.Input, true)
		}
		if err == nil {
			err = t.checkReasoning(rr)
		}
		if err != nil {
			return Call{}, err
		}
		req, own, err := rr.decode(true, prior)
		if err != nil {
			return Call{}, err
		}
		var keep func(string, llm.Message, map[string]any, []llm.Message)
		if t != nil {
			keep = func(id string, answer llm.Message, resp map[string]any, compacted []llm.Message) {
				output := resp["output"].([]any)
				stored := storedAnswer{whole: resp, input: rr.Input, prev: rr.PreviousResponseID, conv: conversationOf(rr.Conversation)}
				if stored.conv != "" {
					stored.made = t.extend(stored.conv, rr.Input, output)
				}
				t.keepReasoning(output, rr.Store == nil || *rr.Store)
				if rr.Store == nil || *rr.Store {
					kept := &thread{prev: rr.PreviousResponseID, msgs: append(slices.Clip(own), answer)}
					if compacted != nil {
						// Continued from its compaction item.
						kept = &thread{msgs: append(slices.Clip(compacted), answer)}
					}
					t.keep(id, kept)
					t.keepOutput(output)
				}
				if rr.Store == nil || *rr.Store || rr.Background {
					// A background response is got again when done,
					// kept or not.
					t.keepStored(id, stored)
				}
			}
		}
		return Call{req, responsesEncoder(rr, body, sample, t, keep)}, nil
	case Gemini:
		model, stream, ok := GeminiModel(path)
		if !ok {
			return Call{}, errors.New(path + " is not a …/models/<model>:generateContent path")
		}
		gr, err := parse[geminiRequest](body)
		if err != nil {
			return Call{}, err
		}
		gr, cached, err := t.withCache(gr, model, true)
		if err != nil {
			return Call{}, err
		}
		if err := validateGemini(gr); err != nil {
			return Call{}, err
		}
		if err := gr.GenerationConfig.validateThinking(model); err != nil {
			return Call{}, err
		}
		if err := validateSignatures(model, gr); err != nil {
			return Call{}, err
		}
		req, err := gr.decode(model, true)
		if err != nil {
			return Call{}, err
		}
		return Call{req, geminiEncoder(body, sample, stream, max(1, gr.GenerationConfig.CandidateCount), gr.GenerationConfig.logprobsAsked(), gr.GenerationConfig.thoughtsAsked(), cached)}, nil
	case Anthropic:
		ar, err := parse[anthropicRequest](body)
		if err != nil {
			return Call{}, err
		}
		prior, err := t.continuing(ar)
		if err != nil {
			return Call{}, err
		}
		req, own, err := ar.decode(true, prior)
		if err == nil {
			err = validateAnthropic(ar)
		}
		if err == nil {
			err = ar.ContextManagement.check()
		}
		if err != nil {
			return Call{}, err
		}
		var keep func(string, llm.Message)
		if t != nil && ar.Thread != nil {
			keep = func(id string, answer llm.Message) { t.keep(id, ar.kept(prior, req, own, answer)) }
		}
		var managed *anthropicManaged
		if cm := ar.ContextManagement; cm != nil && len(cm.Edits) > 0 {
			managed = &anthropicManaged{}
		}
		d := anthropicEncoder(body, sample, ar.Stream, ar.display(), managed, keep)
		if managed != nil {
			sum := requestHash(body, sample)
			d.Context = ar.ContextManagement.manage(hex.EncodeToString(sum[:]), ar.thinkingTurns(), managed)
		}
		return Call{req, d}, nil
	case Ollama:
		return readOllama(path, body)
	case Interactions:
		return t.readInteractions(body, sample)
	}
	return Call{}, errors.New("unknown dialect " + d.String())
}

// Validate returns what the real API refuses in a request body of dialect
// d sent to path, or nil: Read's checks, without the answer.
func Validate(d Dialect, path string, body []byte) error {
	_, err := Read(d, path, body, 1)
	return err
}

// parse reads a request body of type T.
func parse[T any](body []byte) (T, error) {
	var r T
	if err := json.Unmarshal(body, &r); err != nil {
		return r, fmt.Errorf("request is not JSON: %w", err)
	}
	if f, ok := any(&r).(interface{ fold() }); ok {
		f.fold()
	}
	return r, nil
}
