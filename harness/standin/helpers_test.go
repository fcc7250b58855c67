package standin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"google.golang.org/genai"
	"gopkg.in/yaml.v2"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/openai"
	"github.com/agentreplay/testbed/harness/standin"
)

// The ODBchat prompts are read from the agent's source, so that these specs
// break when a prompt edit loses the phrase the stand-in recognises.
const promptDir = "../../agents/odbchat/prompts/"

func prompt(name string) string {
	b, err := os.ReadFile(promptDir + name)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

// now is the date every router request carries, as the agent's clock gives it.
const now = "2025-11-06"

// routerInput is the router's JSON user message, built as the agent builds it.
type routerInput struct {
	Query       string               `json:"query"`
	Now         string               `json:"now"`
	Tz          string               `json:"tz,omitempty"`
	ToolCatalog []map[string]any     `json:"tool_catalog,omitempty"`
	GeoRegistry map[string][]float64 `json:"geo_registry,omitempty"`
}

func toolCatalog() []map[string]any {
	return []map[string]any{
		{"name": "ghrsst.bbox_mean", "description": "Daily mean SST and SST anomaly over a bbox.",
			"args_schema": map[string]string{"bbox": "[lon0,lat0,lon1,lat1] or a geo_registry key", "date": "YYYY-MM-DD", "fields?": "['sst','sst_anomaly']"}},
		{"name": "ghrsst.point_value", "description": "Daily SST and SST anomaly at a point.",
			"args_schema": map[string]string{"longitude": "float", "latitude": "float", "date": "YYYY-MM-DD", "fields?": "['sst','sst_anomaly']"}},
	}
}

func geoRegistry() map[string][]float64 {
	return map[string][]float64{
		"taiwan_nearby":    {118, 20, 123.5, 26.5},
		"hawaiian_islands": {-162.5, 18.5, -153.5, 23},
		"taiwan_strait":    {118, 21.5, 121.5, 26},
	}
}

// routerRequest builds the router call the ODBchat agent makes: the router
// prompt, the few-shot pairs when withFewShots, then the JSON user message.
func routerRequest(query string, withFewShots bool) llm.Request {
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: prompt("router.md")}}
	if withFewShots {
		var shots []struct {
			User routerInput     `json:"user"`
			Plan json.RawMessage `json:"plan"`
		}
		Expect(json.Unmarshal([]byte(prompt("fewshots.json")), &shots)).To(Succeed())
		Expect(shots).NotTo(BeEmpty())
		for _, s := range shots {
			u, err := json.Marshal(s.User)
			Expect(err).NotTo(HaveOccurred())
			var p any
			Expect(json.Unmarshal(s.Plan, &p)).To(Succeed())
			pb, _ := json.Marshal(p)
			msgs = append(msgs,
				llm.Message{Role: llm.RoleUser, Content: string(u)},
				llm.Message{Role: llm.RoleAssistant, Content: string(pb)})
		}
	}
	in, err := json.Marshal(routerInput{Query: query, Now: now, Tz: "Asia/Taipei",
		ToolCatalog: toolCatalog(), GeoRegistry: geoRegistry()})
	Expect(err).NotTo(HaveOccurred())
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: string(in)})
	return llm.Request{Role: "router", Messages: msgs, Temperature: llm.Float(0), MaxTokens: 256, Output: llm.OutputJSON}
}

// classifierRequest builds the legacy two-way classifier call.
func classifierRequest(query string) llm.Request {
	return llm.Request{Role: "classifier", Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: prompt("classifier.md")},
		{Role: llm.RoleUser, Content: query},
	}, Temperature: llm.Float(0), MaxTokens: 64, Output: llm.OutputJSON}
}

// passage is one numbered context passage of a one-pass request.
type passage struct{ title, source, text string }

// onepassRequest builds the one-pass call as the agent formats it.
func onepassRequest(mode, lang, question string, passages ...passage) llm.Request {
	var ctx strings.Builder
	for i, p := range passages {
		fmt.Fprintf(&ctx, "[%d] %s (%s)\n%s\n\n", i+1, p.title, p.source, p.text)
	}
	user := fmt.Sprintf("Mode: %s\nLanguage: %s\nQuestion: %s\n\nContext:\n%s", mode, lang, question, ctx.String())
	return llm.Request{Role: "onepass", Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: prompt("onepass.md")},
		{Role: llm.RoleUser, Content: user},
	}, Temperature: llm.Float(0.2), MaxTokens: 768}
}

// plan is the router's JSON answer as the agent reads it.
type plan struct {
	Decision   string  `json:"decision"`
	Confidence float64 `json:"confidence"`
	Tool       *struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"tool"`
	Rationale string `json:"rationale"`
}

// startStandin serves a stand-in with every policy on loopback for one spec.
func startStandin(opts standin.Options) *standin.Server {
	if opts.Policies == nil {
		opts.Policies = standin.Policies()
	}
	srv, err := standin.New(opts)
	Expect(err).NotTo(HaveOccurred())
	Expect(srv.Start()).To(Succeed())
	DeferCleanup(srv.Close)
	return srv
}

// client is the ODBchat agent's model adapter pointed at srv.
func client(srv *standin.Server) llm.Client {
	tr := &http.Transport{}
	DeferCleanup(tr.CloseIdleConnections)
	return openai.New(srv.URL()+"/v1", "gemma3:4b", "", &http.Client{Transport: tr})
}

func chat(c llm.Client, req llm.Request) llm.Response {
	resp, err := c.Chat(context.Background(), req)
	Expect(err).NotTo(HaveOccurred())
	return resp
}

// wireBody is req as the Chat Completions JSON the openai adapter sends.
func wireBody(req llm.Request) []byte {
	var msgs []map[string]any
	for _, m := range req.Messages {
		msgs = append(msgs, map[string]any{"role": m.Role, "content": m.Content})
	}
	body := map[string]any{"model": "gemma3:4b", "messages": msgs}
	if req.MaxTokens > 0 {
		body["max_tokens"] = req.MaxTokens
	}
	if req.Temperature != nil {
		body["temperature"] = *req.Temperature
	}
	if req.Output == llm.OutputJSON {
		body["response_format"] = map[string]string{"type": "json_object"}
	}
	var tools []map[string]any
	for _, t := range req.Tools {
		tools = append(tools, map[string]any{"type": "function", "function": map[string]any{
			"name": t.Name, "description": t.Description, "parameters": t.Parameters}})
	}
	if len(tools) > 0 {
		body["tools"] = tools
	}
	b, err := json.Marshal(body)
	Expect(err).NotTo(HaveOccurred())
	return b
}

// completion is the part of a Chat Completions response the specs read.
type completion struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// recordedRequest is one request of a committed cassette.
type recordedRequest struct {
	at        string // path and interaction, for failure messages
	url, body string
}

// recordedRequests reads the requests of every cassette the globs match,
// in order; it fails the spec on a file it cannot read.
func recordedRequests(globs ...string) []recordedRequest {
	GinkgoHelper()
	var out []recordedRequest
	for _, g := range globs {
		paths, err := filepath.Glob(g)
		Expect(err).NotTo(HaveOccurred())
		for _, p := range paths {
			data, err := os.ReadFile(p)
			Expect(err).NotTo(HaveOccurred())
			var f struct {
				Interactions []struct {
					Request struct {
						URL  string `yaml:"url"`
						Body string `yaml:"body"`
					} `yaml:"request"`
				} `yaml:"interactions"`
			}
			Expect(yaml.Unmarshal(data, &f)).To(Succeed(), p)
			for i, in := range f.Interactions {
				out = append(out, recordedRequest{at: fmt.Sprintf("%s interaction %d", p, i), url: in.Request.URL, body: in.Request.Body})
			}
		}
	}
	return out
}

// mutated is req with its system prompt rewritten by f: a prompt that
// deletes or inverts one instruction.
func mutated(req llm.Request, f func(string) string) llm.Request {
	msgs := slices.Clone(req.Messages)
	for i, m := range msgs {
		if m.Role == llm.RoleSystem {
			msgs[i].Content = f(m.Content)
		}
	}
	req.Messages = msgs
	return req
}

// dropLines deletes the lines of a prompt that hold sub.
func dropLines(sub string) func(string) string {
	return func(p string) string {
		var keep []string
		for _, l := range strings.Split(p, "\n") {
			if !strings.Contains(l, sub) {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
}

// swapWords swaps every a and b of a prompt.
func swapWords(a, b string) func(string) string {
	return func(p string) string {
		return strings.NewReplacer(a, b, b, a).Replace(p)
	}
}

// verbose is answer as the stand-in ends it when the prompt states no
// length: with its closing offer of more help.
func verbose(answer string) string {
	return answer + " Let me know if there is anything else I can help you with."
}

// officialGemini is the official Go SDK's client of srv's Gemini API.
func officialGemini(srv *standin.Server) (*genai.Client, error) {
	return genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL()}})
}

// officialOpenAI is the official Go SDK's client of srv's OpenAI API,
// which does not retry.
func officialOpenAI(srv *standin.Server) sdk.Client {
	return sdk.NewClient(option.WithBaseURL(srv.URL()+"/v1"), option.WithAPIKey("sk-test"), option.WithMaxRetries(0))
}

// echoOpenAI is officialOpenAI of a stand-in of the echo policy.
func echoOpenAI() sdk.Client {
	return officialOpenAI(startStandin(standin.Options{Policies: []standin.Policy{echo{}}}))
}

// expectInOrder expects n offsets of a stream's events, none before the
// one it follows: a stream's end comes after all of its content.
func expectInOrder(offsets []time.Duration, n int) {
	GinkgoHelper()
	Expect(offsets).To(HaveLen(n))
	for i := 1; i < n; i++ {
		Expect(offsets[i]).To(BeNumerically(">=", offsets[i-1]), "event %d of %v", i, offsets)
	}
}
