package openai

import (
	"net/http"
	"net/url"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Azure OpenAI serves OpenAI's wire formats under a resource's /openai/
// path: Chat Completions at /openai/deployments/<deployment>/chat/completions
// and the Responses API at /openai/responses (the deployment named as the
// body's model), each with the api-version query and the key in the
// api-key header. The clients below are the same adapters over the same
// SDK, pointed there with its options.

// NewAzure returns a Chat Completions client for deployment on the Azure
// OpenAI resource at endpoint (https://<resource>.openai.azure.com), at
// apiVersion, sending every request through hc.
func NewAzure(endpoint, deployment, apiVersion, key string, hc *http.Client) *Client {
	return &Client{model: deployment, sdk: sdk.NewClient(AzureOptions(endpoint, deployment, apiVersion, key, hc)...), tools: &schemas{}}
}

// NewAzureResponses returns a Responses client for deployment on the Azure
// OpenAI resource at endpoint, at apiVersion, sending every request
// through hc.
func NewAzureResponses(endpoint, deployment, apiVersion, key string, hc *http.Client) *Responses {
	return &Responses{model: deployment, sdk: sdk.NewClient(AzureOptions(endpoint, "", apiVersion, key, hc)...), tools: &schemas{}}
}

// NewAzureEmbedder returns an embedder for deployment on the Azure OpenAI
// resource at endpoint, at apiVersion; dimensions as NewEmbedder says.
func NewAzureEmbedder(endpoint, deployment, apiVersion, key string, dimensions int, hc *http.Client) *Embedder {
	return &Embedder{model: deployment, dimensions: dimensions, sdk: sdk.NewClient(AzureOptions(endpoint, deployment, apiVersion, key, hc)...)}
}

// AzureOptions are the SDK options of a client of the Azure OpenAI
// resource at endpoint: its calls go below deployment's path
// (/openai/deployments/<deployment>), or below /openai when deployment is
// "" (the Responses API, whose body names it), with the api-version query,
// the key in api-key and never an Authorization header (not even one from
// OPENAI_API_KEY, which is OpenAI's key, not this resource's), retries off.
func AzureOptions(endpoint, deployment, apiVersion, key string, hc *http.Client) []option.RequestOption {
	base := strings.TrimRight(endpoint, "/") + "/openai"
	if deployment != "" {
		base += "/deployments/" + url.PathEscape(deployment)
	}
	return []option.RequestOption{
		option.WithBaseURL(base),
		option.WithAPIKey(""),
		option.WithAdminAPIKey(""),
		option.WithQueryAdd("api-version", apiVersion),
		option.WithHeader("Api-Key", key),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
	}
}
