package wire

import (
	"encoding/json"
	"errors"
	"strings"
)

// Token counting: each provider counts a request's input tokens without
// answering it, at its own path, and the SDKs call it to fit a
// conversation into the context window. Anthropic's POST
// …/v1/messages/count_tokens takes a Messages body without max_tokens and
// answers {"input_tokens"}; Gemini's …/models/<model>:countTokens takes
// {"contents"} or {"generateContentRequest"} and answers {"totalTokens",
// "promptTokensDetails"}; OpenAI's POST …/v1/responses/input_tokens takes a
// Responses body and answers {"object": "response.input_tokens",
// "input_tokens"}. An Anthropic count of a request asking for context
// edits counts the conversation edited, and says the count before them
// (ManagedCountBody).

// CountDialect returns the dialect whose token count path is path, and
// whether it is one.
func CountDialect(path string) (Dialect, bool) {
	switch {
	case strings.HasSuffix(path, "/v1/messages/count_tokens"):
		return Anthropic, true
	case strings.HasSuffix(path, ":countTokens") && strings.Contains(path, "/models/"):
		return Gemini, true
	case strings.HasSuffix(path, "/responses/input_tokens"):
		return Responses, true
	}
	return 0, false
}

// ReadCount reads a token count request of dialect d as the request whose
// input it counts, as Threads.ReadCount with no answers kept.
func ReadCount(d Dialect, body []byte) (Request, Manage, error) {
	return (*Threads)(nil).ReadCount(d, body)
}

// ReadCount reads a token count request of dialect d as the request whose
// input it counts. It reads as Decode does: what it cannot read as text is
// left out, as it adds no text to count. A Responses API request that
// continues an answer (previous_response_id) is read after its
// conversation, which t must have kept, as the API counts it. An
// Anthropic request asking for context edits comes with its Manage, to
// count the conversation edited.
func (t *Threads) ReadCount(d Dialect, body []byte) (Request, Manage, error) {
	switch d {
	case Anthropic:
		ar, err := parse[anthropicRequest](body)
		if err != nil {
			return Request{}, nil, err
		}
		if err := ar.ContextManagement.check(); err != nil {
			return Request{}, nil, err
		}
		if ar.MaxTokens == nil {
			ar.MaxTokens = new(int) // counting takes none
		}
		r, _, err := ar.decode(false, nil)
		var manage Manage
		if cm := ar.ContextManagement; cm != nil && len(cm.Edits) > 0 && err == nil {
			manage = cm.manage("", ar.thinkingTurns(), &anthropicManaged{})
		}
		return r, manage, err
	case Gemini:
		var c struct {
			Contents []json.RawMessage `json:"contents"`
			Request  json.RawMessage   `json:"generateContentRequest"`
		}
		if err := json.Unmarshal(body, &c); err != nil {
			return Request{}, nil, err
		}
		if len(c.Request) > 0 && len(c.Contents) == 0 {
			body = c.Request
		}
		gr, err := parse[geminiRequest](body)
		if err != nil {
			return Request{}, nil, err
		}
		if gr, _, err = t.withCache(gr, "", true); err != nil {
			return Request{}, nil, err
		}
		r, err := gr.decode("", false)
		return r, nil, err
	case Responses:
		rr, err := parse[responsesRequest](body)
		if err != nil {
			return Request{}, nil, err
		}
		prior, err := t.priorOf(rr)
		if err == nil {
			rr.Input, err = t.resolve(rr.Input, true)
		}
		if err != nil {
			return Request{}, nil, err
		}
		r, _, err := rr.decode(false, prior)
		return r, nil, err
	}
	return Request{}, nil, errors.New("no token count in the " + d.String() + " API")
}

// ManagedCountBody is Anthropic's answer to a token count of a request
// asking for context edits: n input tokens once edited, original before.
func ManagedCountBody(n, original int) any {
	return map[string]any{"input_tokens": n, "context_management": map[string]any{"original_input_tokens": original}}
}

// CountBody is dialect d's answer to a token count: n input tokens.
func CountBody(d Dialect, n int) any {
	switch d {
	case Gemini:
		return map[string]any{"totalTokens": n, "promptTokensDetails": []any{map[string]any{"modality": "TEXT", "tokenCount": n}}}
	case Responses:
		return map[string]any{"object": "response.input_tokens", "input_tokens": n}
	}
	return map[string]any{"input_tokens": n}
}
