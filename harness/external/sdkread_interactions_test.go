package external_test

import (
	"encoding/json"

	"google.golang.org/genai/interactions/models/interactions"

	"github.com/agentreplay/testbed/agents/llm"
)

// sdkInteraction reads a whole Interactions API answer into genai's
// interactions.Interaction: its OutputText (the turn's trailing model
// text), its function_call steps, status, model, service tier and usage
// (thinking and the built-in tools' prompt counted in, as for
// generateContent; the audio by modality, the input's less the cache's).
func sdkInteraction(b []byte) (reading, error) {
	var in interactions.Interaction
	if err := json.Unmarshal(b, &in); err != nil {
		return reading{}, err
	}
	r := reading{Finish: string(in.Status)}
	if in.OutputText != nil {
		r.Text = *in.OutputText
	}
	if in.Model != nil {
		r.Model = string(*in.Model)
	}
	for _, s := range in.Steps {
		if f := s.FunctionCallStep; f != nil {
			args, _ := json.Marshal(f.Arguments)
			r.Calls = append(r.Calls, call(f.ID, f.Name, string(args)))
		}
	}
	if u := in.Usage; u != nil {
		n := func(p *int) int {
			if p == nil {
				return 0
			}
			return *p
		}
		audio := func(m []interactions.ModalityTokens) int {
			t := 0
			for _, d := range m {
				if d.Modality != nil && *d.Modality == interactions.ResponseModalityAudio {
					t += n(d.Tokens)
				}
			}
			return t
		}
		r.Usage = llm.Usage{InputTokens: n(u.TotalInputTokens) + n(u.TotalToolUseTokens), OutputTokens: n(u.TotalOutputTokens) + n(u.TotalThoughtTokens),
			ReasoningTokens: n(u.TotalThoughtTokens), CacheReadTokens: n(u.TotalCachedTokens), CacheReadAudioTokens: audio(u.CachedTokensByModality),
			InputAudioTokens:  max(audio(u.InputTokensByModality)+audio(u.ToolUseTokensByModality)-audio(u.CachedTokensByModality), 0),
			OutputAudioTokens: audio(u.OutputTokensByModality)}
	}
	if in.ServiceTier != nil {
		r.Usage.ServiceTier = llm.StandardTier(string(*in.ServiceTier))
	}
	return r, nil
}
