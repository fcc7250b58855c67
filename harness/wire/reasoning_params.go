package wire

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Reasoning settings by model: what the APIs refuse of a request whose
// reasoning or thinking settings its model does not take.

var (
	// oSeries names OpenAI's o-series reasoning models: o1, o3-mini, o4-mini.
	oSeries = regexp.MustCompile(`^o[1-9]([.-]|$)`)
	// gpt5First names GPT-5's first models, which always reason: gpt-5,
	// gpt-5-mini, gpt-5-nano, dated or not.
	gpt5First = regexp.MustCompile(`^gpt-5(-mini|-nano)?(-\d{4}-\d{2}-\d{2})?$`)
	// openAIChatModels names OpenAI's models before reasoning, which take
	// no reasoning effort: GPT-4o, GPT-4.1, GPT-4 and GPT-3.5, their
	// minis and dated snapshots. A model it does not name (another
	// provider's behind an OpenAI-compatible API, one of OpenAI's it does
	// not know) is not refused.
	openAIChatModels = regexp.MustCompile(`^(gpt-4o|gpt-4\.1|gpt-3\.5)|^gpt-4(-|$)`)
	// anthropicNoThinking names Claude's models before extended thinking:
	// Claude 3 and 3.5 (Haiku, Sonnet, Opus), as the API and Bedrock
	// (anthropic.claude-…) and Vertex AI (claude-…@date) name them.
	anthropicNoThinking = regexp.MustCompile(`(^|[./])claude-3-(5-)?(haiku|sonnet|opus)`)
)

// reasoningParams returns what OpenAI's models refuse in wr by its
// model's name, or nil: a reasoning_effort, even none, from a model that
// does not reason (openAIChatModels: "Unrecognized request argument
// supplied: reasoning_effort", param and code null, as gpt-4o and
// gpt-4o-mini answered in davidmigloz/langchain_dart#712,
// umputun/tg-spam#304 and AAswordman/Operit#1048); max_tokens, which they
// replaced by max_completion_tokens, from the models that reason
// (reasons: the o-series, GPT-5 and Codex, not the chat models beside
// them); a temperature other than the default 1 from the o-series, GPT-5's
// first models, and the later ones (gpt-5.1 on) when they are told to
// reason (a reasoning_effort other than none, their default). Agents
// configured with a reasoning model and the settings of the model before
// it, or the other way round, hit these. A model named with a router's
// prefix is not refused (openAIModel).
func reasoningParams(wr chatRequest) error {
	m, ok := openAIModel(wr.Model)
	if !ok {
		return nil
	}
	if wr.ReasoningEffort != "" && openAIChatModels.MatchString(m) {
		return &invalid{msg: "Unrecognized request argument supplied: reasoning_effort"}
	}
	if !reasons(m) {
		return nil
	}
	if wr.MaxTokens != 0 {
		return &invalid{msg: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
			param: "max_tokens", code: "unsupported_parameter"}
	}
	thinking := oSeries.MatchString(m) || gpt5First.MatchString(m) || wr.ReasoningEffort != "" && wr.ReasoningEffort != "none"
	if t := wr.Temperature; t != nil && *t != 1 && thinking {
		return &invalid{msg: fmt.Sprintf("Unsupported value: 'temperature' does not support %s with this model. Only the default (1) value is supported.", strconv.FormatFloat(*t, 'g', -1, 64)),
			param: "temperature", code: "unsupported_value"}
	}
	return nil
}

// reasoningEffort returns the Responses API's refusal of a
// reasoning.effort (not null) for a model that does not reason
// (openAIChatModels), or nil: "Unsupported parameter: 'reasoning.effort'
// is not supported with this model.", param reasoning.effort, code
// unsupported_parameter, as gpt-4.1 answered in BoundaryML/baml#2708.
func (rr responsesRequest) reasoningEffort() error {
	m, ok := openAIModel(rr.Model)
	if !ok || rr.Reasoning == nil || rr.Reasoning.Effort == nil || !openAIChatModels.MatchString(m) {
		return nil
	}
	return &invalid{msg: "Unsupported parameter: 'reasoning.effort' is not supported with this model.",
		param: "reasoning.effort", code: "unsupported_parameter"}
}

// openAIModel returns model as OpenAI's API names it (lower case), and
// false for a name with a router's prefix (OpenRouter's openai/gpt-4o,
// anthropic/claude-…): a router is not OpenAI's API, and OpenRouter
// ignores a parameter its model does not take ("If the chosen model
// doesn't support a request parameter … then the parameter is ignored.",
// its API reference, "Non-standard parameters"), so the refusals by the
// model's name are OpenAI's alone.
func openAIModel(model string) (string, bool) {
	m := strings.ToLower(model)
	return m, !strings.Contains(m, "/")
}

// anthropicThinks reports whether Claude model takes extended thinking:
// every model but Claude 3 and 3.5 (anthropicNoThinking), which the API
// refuses with "'claude-3-5-haiku-20241022' does not support thinking."
// (anthropics/claude-code#11388, #12914; claude-3-5-sonnet-20241022 in
// #2245). The API names the model by its full id; the stand-in names it
// as the request does.
func anthropicThinks(model string) bool {
	return !anthropicNoThinking.MatchString(strings.ToLower(model))
}
