package provider

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// Real describes a real provider's model, with its base URL (the
// provider's own when baseURL is empty), and finds its key with getenv
// (none for ollama). Azure reads its resource from AZURE_OPENAI_ENDPOINT
// and its api-version from OPENAI_API_VERSION, as OpenAI's SDKs do; its
// model is the deployment.
func Real(prov, model, baseURL string, getenv func(string) string) (llm.Endpoint, string, error) {
	ep := llm.Endpoint{Provider: prov, Model: model, BaseURL: baseURL}
	switch prov {
	case llm.ProviderOpenAI:
		ep.KeyEnv = "OPENAI_API_KEY"
		if ep.BaseURL == "" {
			ep.BaseURL = "https://api.openai.com/v1"
		}
	case llm.ProviderGemini:
		ep.KeyEnv = "GEMINI_API_KEY"
	case llm.ProviderAnthropic:
		ep.KeyEnv = "ANTHROPIC_API_KEY"
		if ep.BaseURL == "" {
			ep.BaseURL = llm.DefaultBaseURL(prov)
		}
	case llm.ProviderAzure:
		ep.KeyEnv, ep.APIVersion = "AZURE_OPENAI_API_KEY", getenv("OPENAI_API_VERSION")
		if ep.BaseURL == "" {
			ep.BaseURL = getenv("AZURE_OPENAI_ENDPOINT")
		}
		if ep.BaseURL == "" {
			return ep, "", errors.New("provider azure needs the resource's endpoint: a base URL https://<resource>.openai.azure.com, or AZURE_OPENAI_ENDPOINT")
		}
	case llm.ProviderOllama:
		// A local server, which takes no key.
		if ep.BaseURL == "" {
			ep.BaseURL = llm.DefaultBaseURL(prov)
		}
	default:
		return ep, "", fmt.Errorf("provider %q: want %s", prov, strings.Join(llm.Providers(), ", "))
	}
	if model == "" {
		return ep, "", fmt.Errorf("provider %s needs a model", prov)
	}
	if ep.KeyEnv == "" {
		return ep, "", nil
	}
	key := getenv(ep.KeyEnv)
	if key == "" {
		return ep, "", fmt.Errorf("provider %s needs a key in %s", prov, ep.KeyEnv)
	}
	return ep, key, nil
}
