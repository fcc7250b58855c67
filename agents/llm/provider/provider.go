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
	switch ep.Provider {
	case llm.ProviderOpenAI:
		return openai.New(ep.BaseURL, ep.Model, key, hc).Streaming(ep.Stream), nil
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
	}
	return nil, fmt.Errorf("unknown model provider %q (want %s)", ep.Provider, strings.Join(llm.Providers(), ", "))
}

// NewEmbedder returns an embedder for ep that sends every request through hc.
func NewEmbedder(ep llm.Endpoint, key string, hc *http.Client) (llm.Embedder, error) {
	if ep.Provider != llm.ProviderOpenAI {
		return nil, fmt.Errorf("embeddings: provider %q is not supported (want %s)", ep.Provider, llm.ProviderOpenAI)
	}
	return openai.NewEmbedder(ep.BaseURL, ep.Model, key, ep.Dimensions, hc), nil
}
