package proxy

import (
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
)

// BaseURLEnv names the variable that holds the base URL of provider's SDKs:
// GEMINI_BASE_URL, ANTHROPIC_BASE_URL, AZURE_OPENAI_ENDPOINT, OLLAMA_HOST
// or OPENAI_BASE_URL.
func BaseURLEnv(provider string) string {
	switch provider {
	case llm.ProviderOllama:
		return "OLLAMA_HOST"
	case llm.ProviderGemini:
		return "GEMINI_BASE_URL"
	case llm.ProviderAnthropic:
		return "ANTHROPIC_BASE_URL"
	case llm.ProviderAzure:
		return "AZURE_OPENAI_ENDPOINT"
	}
	return "OPENAI_BASE_URL"
}

// ModelEnv is the environment that points the SDKs of ep's provider at a
// session opened at base (Proxy.Open), with a placeholder key:
// ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY, GEMINI_BASE_URL (and
// GOOGLE_GEMINI_BASE_URL) and GEMINI_API_KEY, AZURE_OPENAI_ENDPOINT,
// AZURE_OPENAI_API_KEY and OPENAI_API_VERSION (what the Azure clients of
// OpenAI's SDKs read), OLLAMA_HOST and OLLAMA_BASE_URL (base: the official
// ollama clients read the first, LangChain.js's ChatOllama and
// OllamaEmbeddings the second; both keep its path and add /api/…; Ollama
// takes no key), or OPENAI_BASE_URL (base/v1) and OPENAI_API_KEY.
func ModelEnv(ep llm.Endpoint, base string) map[string]string {
	switch ep.Provider {
	case llm.ProviderOllama:
		return map[string]string{BaseURLEnv(ep.Provider): base, "OLLAMA_BASE_URL": base}
	case llm.ProviderAzure:
		return map[string]string{BaseURLEnv(ep.Provider): base, llm.KeyEnv(ep.Provider): cassette.PlaceholderKey, "OPENAI_API_VERSION": ep.AzureVersion()}
	case llm.ProviderGemini:
		return map[string]string{BaseURLEnv(ep.Provider): base, "GOOGLE_GEMINI_BASE_URL": base, llm.KeyEnv(ep.Provider): cassette.PlaceholderKey}
	case llm.ProviderAnthropic:
		return map[string]string{BaseURLEnv(ep.Provider): base, llm.KeyEnv(ep.Provider): cassette.PlaceholderKey}
	}
	return map[string]string{BaseURLEnv(ep.Provider): base + "/v1", llm.KeyEnv(ep.Provider): cassette.PlaceholderKey}
}
