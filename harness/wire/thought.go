package wire

import (
	"regexp"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// Gemini's thoughts, from Gemini's API reference ("Thinking"): a thinking
// model (Gemini 2.5 and 3) asked for its thoughts (thinkingConfig
// includeThoughts) answers with thought parts ("thought": true) before
// its answer, their tokens counted as thoughtsTokenCount beside the
// candidates' and in totalTokenCount. The stand-in's thought is the line
// its other providers' thinking shows (thinkingOf).

// geminiNoThinking names Gemini's models before thinking: 1.0, 1.5 and
// 2.0 (but 2.0 Flash Thinking, an experiment that thinks).
var geminiNoThinking = regexp.MustCompile(`^gemini-(1\.[05]|2\.0)(-|$)|^gemini-pro(-vision)?$`)

// validateThinking returns what the Gemini API refuses of g's thinking
// settings for model, or nil: any thinkingConfig to a model that does not
// think ("thinking_config is not supported.", 400 INVALID_ARGUMENT, as
// gemini-2.0-flash, 2.0-flash-lite and 1.5 answered in
// immersive-translate/immersive-translate#2976 and Veloera/Veloera#41),
// and a thinkingLevel to a model before Gemini 3, which takes a budget
// ("Thinking level is not supported for this model.", gemini-2.5-flash in
// RooCodeInc/Roo-Code#10700; Google's thinking guide: "If you use the
// thinking_level parameter with a model earlier than Gemini 3, the model
// returns an error"). A model it does not name is not refused.
func (g geminiConfig) validateThinking(model string) error {
	for _, t := range []*geminiThinking{g.ThinkingConfig, g.ThinkingConfigSnake} {
		switch {
		case t == nil:
		case geminiNoThinking.MatchString(model) && !strings.Contains(model, "thinking"):
			return &invalid{msg: "thinking_config is not supported."}
		case strings.HasPrefix(model, "gemini-2.5") && (t.ThinkingLevel != "" || t.ThinkingLevelSnake != ""):
			return &invalid{msg: "Thinking level is not supported for this model."}
		}
	}
	return nil
}

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
