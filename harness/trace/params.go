package trace

import (
	"encoding/json"
	"slices"

	"github.com/agentreplay/testbed/agents/llm"
)

// Params are the settings of a model call's request (llm.Request's), as
// the agent gave them: what an adapter sends when the agent gives none (a
// default max_tokens) is not among them.
type Params struct {
	Temperature *float64 `json:"temperature,omitempty"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
	// Output is the kind of output the request asked for
	// (llm.Request.Output: text, json, image or speech). Reports written
	// before it kept only a JSON object's, as "json": true, which is read
	// as Output json (UnmarshalJSON).
	Output llm.Output `json:"output_type,omitempty"`
	// Sampling are its other sampling settings, Conversation the
	// provider's conversation it named (llm.Request's); reports written
	// before leave them out.
	llm.Sampling
	Conversation string `json:"conversation,omitempty"`
}

// UnmarshalJSON reads p, and the "json": true of a report written before
// Output as Output json.
func (p *Params) UnmarshalJSON(b []byte) error {
	type plain Params // without this method
	var v struct {
		plain
		JSON bool `json:"json"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*p = Params(v.plain)
	if v.JSON && p.Output == "" {
		p.Output = llm.OutputJSON
	}
	return nil
}

// ParamsOf returns the settings of req, nil when it gives none.
func ParamsOf(req llm.Request) *Params {
	s := req.Sampling
	if req.Temperature == nil && req.MaxTokens <= 0 && req.Output == "" && req.Conversation == "" &&
		s.TopP == nil && s.TopK == nil && len(s.Stop) == 0 && s.Seed == nil &&
		s.FrequencyPenalty == nil && s.PresencePenalty == nil && s.Choices == 0 {
		return nil
	}
	return &Params{
		Temperature: clone(req.Temperature), MaxTokens: max(req.MaxTokens, 0), Output: req.Output, Conversation: req.Conversation,
		Sampling: llm.Sampling{
			TopP: clone(s.TopP), TopK: clone(s.TopK), Stop: slices.Clone(s.Stop), Seed: clone(s.Seed),
			FrequencyPenalty: clone(s.FrequencyPenalty), PresencePenalty: clone(s.PresencePenalty), Choices: s.Choices,
		},
	}
}

// clone is a copy of *p, nil when p is: the trace keeps no pointer into
// the agent's request.
func clone[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
