// Package provider builds the llm.Client for an llm.Endpoint.
package provider

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/anthropic"
	"github.com/agentreplay/testbed/agents/llm/gemini"
	"github.com/agentreplay/testbed/agents/llm/openai"
)

// New returns a client for ep that sends every request through hc, and
// streams its calls when ep.Stream.
func New(ctx context.Context, ep llm.Endpoint, key string, hc *http.Client) (llm.Client, error) {
	if ep.API != "" && ep.Provider != llm.ProviderOpenAI && ep.Provider != llm.ProviderAzure {
		return nil, fmt.Errorf("api %q: only an openai or azure endpoint chooses its API", ep.API)
	}
	switch ep.Provider {
	case llm.ProviderAzure:
		switch ep.API {
		case "", llm.APIChat:
			return openai.NewAzure(ep.BaseURL, ep.Model, ep.AzureVersion(), key, hc).Streaming(ep.Stream), nil
		case llm.APIResponses:
			return openai.NewAzureResponses(ep.BaseURL, ep.Model, ep.AzureVersion(), key, hc).Streaming(ep.Stream), nil
		}
		return nil, fmt.Errorf("unknown azure API %q (want %s or %s)", ep.API, llm.APIChat, llm.APIResponses)
	case llm.ProviderOpenAI:
		switch ep.API {
		case "", llm.APIChat:
			return openai.New(ep.BaseURL, ep.Model, key, hc).Streaming(ep.Stream), nil
		case llm.APIResponses:
			return openai.NewResponses(ep.BaseURL, ep.Model, key, hc).Streaming(ep.Stream), nil
		}
		return nil, fmt.Errorf("unknown openai API %q (want %s or %s)", ep.API, llm.APIChat, llm.APIResponses)
	case llm.ProviderGemini:
		c, err := gemini.New(ctx, ep.BaseURL, ep.Model, key, hc)
		if err != nil {
			return nil, err
		}
		return c.Streaming(ep.Stream), nil
	case llm.ProviderAnthropic:
		c, err := anthropic.New(ep.BaseURL, ep.Model, key, hc)
		if err != nil {
			return nil, err
		}
		return c.Streaming(ep.Stream), nil
	case llm.ProviderOllama:
		return outsideOnly{ep.Provider}, nil
	}
	return nil, fmt.Errorf("unknown model provider %q (want %s)", ep.Provider, strings.Join(llm.Providers(), ", "))
}

// NewEmbedder returns an embedder for ep that sends every request through hc.
func NewEmbedder(ep llm.Endpoint, key string, hc *http.Client) (llm.Embedder, error) {
	switch ep.Provider {
	case llm.ProviderOpenAI:
		return openai.NewEmbedder(ep.BaseURL, ep.Model, key, ep.Dimensions, hc), nil
	case llm.ProviderAzure:
		return openai.NewAzureEmbedder(ep.BaseURL, ep.Model, ep.AzureVersion(), key, ep.Dimensions, hc), nil
	}
	return nil, fmt.Errorf("embeddings: provider %q is not supported (want %s or %s)", ep.Provider, llm.ProviderOpenAI, llm.ProviderAzure)
}

// outsideOnly is the client of a provider testbed has no Go client for
// (ollama): an outside agent calls it with its own, and testbed reads and
// answers those calls; a built-in agent's call is an error saying so.
type outsideOnly struct{ provider string }

func (c outsideOnly) Chat(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, fmt.Errorf("provider %s: testbed has no Go client for it; only an outside agent, calling it with its own client, can use it", c.provider)
}
