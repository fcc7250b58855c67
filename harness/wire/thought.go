package wire

import (
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// Gemini's thoughts, from Gemini's API reference ("Thinking"): a thinking
// model (Gemini 2.5 and 3) asked for its thoughts (thinkingConfig
// includeThoughts) answers with thought parts ("thought": true) before
// its answer, their tokens counted as thoughtsTokenCount beside the
// candidates' and in totalTokenCount. The stand-in's thought is the line
// its other providers' thinking shows (thinkingOf).

// geminiThinks reports whether model thinks (Gemini 2.5 and 3), and so
// shows its thoughts when a request asks for them.
func geminiThinks(model string) bool {
	return strings.HasPrefix(model, "gemini-2.5") || strings.HasPrefix(model, "gemini-3")
}

// geminiThought is the thought part the answer msg of model shows when
// its request asks for thoughts (includeThoughts), nil when model does not
// think: what the stand-in decided, in a line (thinkingOf). Its tokens,
// in each of n candidates, are added to whole's usage as
// thoughtsTokenCount, as Gemini counts thinking beside the candidates'.
func geminiThought(whole map[string]any, model string, msg llm.Message, n int) (map[string]any, error) {
	if !geminiThinks(model) {
		return nil, nil
	}
	text := thinkingOf(msg)
	toks, err := answerTokens(text)
	if err != nil {
		return nil, err
	}
	usage := whole["usageMetadata"].(map[string]any)
	usage["thoughtsTokenCount"] = len(toks) * n
	usage["totalTokenCount"] = usage["totalTokenCount"].(int) + len(toks)*n
	return map[string]any{"text": text, "thought": true}, nil
}
