package judge

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// ThinkingMaxTokens bounds the answer of a grader model that reasons
// before it answers (Thinks): its reasoning counts against the bound on
// every wire (OpenAI's reasoning tokens, Anthropic's adaptive thinking,
// Gemini's thoughts), and a grade cut off mid-thought is no grade. It is
// also what record --max-cost books for such a grader's request.
const ThinkingMaxTokens = 4096

var (
	// openAIReasoning names OpenAI's reasoning models: the o-series and
	// GPT-5 on (gpt-5-mini, gpt-5.1, …), not the chat models beside them
	// (gpt-5-chat-latest).
	openAIReasoning = regexp.MustCompile(`^(o[1-9]|gpt-([5-9]|[1-9][0-9]))([.-]|$)`)
	// claudeVersion finds a Claude model's version: claude-sonnet-5,
	// claude-opus-4-7, claude-haiku-4-5-20251001, claude-3-7-sonnet-….
	claudeVersion = regexp.MustCompile(`^claude-(?:[a-z]+-)?(\d+)(?:-(\d{1,2}))?(?:-|$)`)
	// geminiVersion finds a Gemini model's version: gemini-2.5-flash,
	// gemini-3-pro-preview.
	geminiVersion = regexp.MustCompile(`^gemini-(\d+)(?:\.(\d+))?-`)
)

// DefaultTemperatureOnly reports whether provider's model refuses any
// temperature but its default, 1, while it does not reason (Thinks):
// OpenAI's chat models of the GPT-5 family (gpt-5-chat-latest,
// gpt-5.2-chat-latest), which answer temperature 0 with 400 "Unsupported
// value: 'temperature' does not support 0 with this model". A grader of
// such a model is asked without temperature.
func DefaultTemperatureOnly(provider, model string) bool {
	m := bareModel(model)
	return (provider == llm.ProviderOpenAI || provider == llm.ProviderAzure) &&
		openAIReasoning.MatchString(m) && strings.Contains(m, "-chat")
}

// bareModel is model lowercased, without a fine-tune's ft: prefix or a
// path (models/gemini-2.5-flash, openai/gpt-5).
func bareModel(model string) string {
	m := strings.TrimPrefix(strings.ToLower(model), "ft:")
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	return m
}

// Thinks reports whether provider's model reasons before it answers, by
// its name, as the providers document them:
//   - OpenAI (and Azure, by deployment name): the o-series and GPT-5 on,
//     which refuse temperature 0 and spend output tokens reasoning, medium
//     effort unless told;
//   - Anthropic: Claude 5 on and Claude Opus 4.7 on, which think
//     adaptively by default and refuse temperature ("deprecated for this
//     model");
//   - Gemini: 2.5 on and the -latest aliases, whose thoughts count against
//     maxOutputTokens.
//
// A grader that thinks is asked as it accepts (see OpenAIParams,
// AnthropicParams, GeminiParams), its answer bounded by ThinkingMaxTokens.
func Thinks(provider, model string) bool {
	m := bareModel(model)
	switch provider {
	case llm.ProviderOpenAI, llm.ProviderAzure:
		return openAIReasoning.MatchString(m) && !strings.Contains(m, "-chat")
	case llm.ProviderAnthropic:
		v := claudeVersion.FindStringSubmatch(m)
		if v == nil {
			return false
		}
		major, _ := strconv.Atoi(v[1])
		minor, _ := strconv.Atoi(v[2])
		return major >= 5 || major == 4 && minor >= 7
	case llm.ProviderGemini:
		if strings.HasSuffix(m, "-latest") && strings.HasPrefix(m, "gemini-") && !geminiVersion.MatchString(m) {
			return true // gemini-flash-latest, gemini-pro-latest
		}
		v := geminiVersion.FindStringSubmatch(m)
		if v == nil {
			return false
		}
		major, _ := strconv.Atoi(v[1])
		minor, _ := strconv.Atoi(v[2])
		return major >= 3 || major == 2 && minor >= 5
	}
	return false
}
