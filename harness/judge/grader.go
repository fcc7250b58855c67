package judge

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	anthropic "github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	openai "github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"
	"google.golang.org/genai"

	"github.com/agentreplay/testbed/agents/llm"
	oadapter "github.com/agentreplay/testbed/agents/llm/openai"
)

// MaxTokens bounds a grader's answer on every wire (OpenAI's
// max_completion_tokens, Anthropic's max_tokens, Gemini's maxOutputTokens):
// a grade is a JSON object of a score and a reason of a sentence or two,
// a few dozen tokens, and a preference one of a choice and a reason. It
// is also what record --max-cost books for a grader's request, which
// would otherwise be the 4,096 of a request that sets none.
const MaxTokens = 512

// Grader is one grader model behind one endpoint.
type Grader struct {
	ep     llm.Endpoint
	prompt string
	ask    func(ctx context.Context, msgs []llm.Message, name string, schema map[string]any) (string, llm.Usage, error)
}

// Option changes how a grader asks.
type Option func(*options)

type options struct{ reasoning *bool }

// Reasoning says whether the grader's model reasons before it answers,
// over what its name says (Thinks): an Azure deployment named otherwise
// than its model, a model newer than the table.
func Reasoning(on bool) Option { return func(o *options) { o.reasoning = &on } }

// New returns a grader for ep that sends every request through hc with key;
// prompt, when not empty, is the text/template that replaces the built-in
// grading instructions (see Subject for what it sees).
func New(ctx context.Context, ep llm.Endpoint, key string, hc *http.Client, prompt string, opts ...Option) (*Grader, error) {
	g := &Grader{ep: ep, prompt: prompt}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	thinks := Thinks(ep.Provider, ep.Model)
	if o.reasoning != nil {
		thinks = *o.reasoning
	}
	switch ep.Provider {
	case llm.ProviderOpenAI, llm.ProviderAzure:
		copts := []ooption.RequestOption{ooption.WithBaseURL(ep.BaseURL), ooption.WithAPIKey(key), ooption.WithHTTPClient(hc), ooption.WithMaxRetries(0)}
		if ep.Provider == llm.ProviderAzure {
			copts = oadapter.AzureOptions(ep.BaseURL, ep.Model, ep.AzureVersion(), key, hc)
		}
		c := openai.NewClient(copts...)
		g.ask = func(ctx context.Context, msgs []llm.Message, name string, schema map[string]any) (string, llm.Usage, error) {
			out, err := c.Chat.Completions.New(ctx, openAIParams(ep.Model, thinks, msgs, name, schema))
			if err != nil {
				return "", llm.Usage{}, err
			}
			u := llm.Usage{InputTokens: int(out.Usage.PromptTokens), OutputTokens: int(out.Usage.CompletionTokens)}
			if len(out.Choices) == 0 {
				return "", u, fmt.Errorf("%w: no choices", ErrUnparsable)
			}
			c := out.Choices[0]
			if c.FinishReason == "length" && c.Message.Content == "" {
				return "", u, cutOff("finish_reason length", u)
			}
			return c.Message.Content, u, nil
		}
	case llm.ProviderAnthropic:
		c := anthropic.NewClient(aoption.WithoutEnvironmentDefaults(), aoption.WithBaseURL(ep.BaseURL), aoption.WithAPIKey(key), aoption.WithHTTPClient(hc), aoption.WithMaxRetries(0))
		g.ask = func(ctx context.Context, msgs []llm.Message, name string, schema map[string]any) (string, llm.Usage, error) {
			out, err := c.Messages.New(ctx, anthropicParams(ep.Model, thinks, msgs, name, schema))
			if err != nil {
				return "", llm.Usage{}, err
			}
			u := llm.Usage{InputTokens: int(out.Usage.InputTokens + out.Usage.CacheReadInputTokens + out.Usage.CacheCreationInputTokens), OutputTokens: int(out.Usage.OutputTokens)}
			var text strings.Builder
			for _, b := range out.Content {
				switch {
				case b.Type == "tool_use" && b.Name == name:
					return string(b.Input), u, nil
				case b.Type == "text":
					text.WriteString(b.Text)
				}
			}
			switch {
			case out.StopReason == anthropic.StopReasonMaxTokens:
				return "", u, cutOff("stop_reason max_tokens", u)
			case thinks:
				return text.String(), u, nil // the shape as the answer (output_config)
			}
			return "", u, fmt.Errorf("%w: no call to the forced tool %s", ErrUnparsable, name)
		}
	case llm.ProviderGemini:
		c, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: key, Backend: genai.BackendGeminiAPI, HTTPClient: hc, HTTPOptions: genai.HTTPOptions{BaseURL: ep.BaseURL}})
		if err != nil {
			return nil, fmt.Errorf("judge: gemini: %w", err)
		}
		g.ask = func(ctx context.Context, msgs []llm.Message, name string, schema map[string]any) (string, llm.Usage, error) {
			contents, cfg := geminiParams(thinks, msgs, schema)
			out, err := c.Models.GenerateContent(ctx, ep.Model, contents, cfg)
			if err != nil {
				return "", llm.Usage{}, err
			}
			var u llm.Usage
			if m := out.UsageMetadata; m != nil {
				// Thoughts are output, billed beside the candidates'; what
				// built-in tools added to the prompt is input.
				u = llm.Usage{InputTokens: int(m.PromptTokenCount + m.ToolUsePromptTokenCount), OutputTokens: int(m.CandidatesTokenCount + m.ThoughtsTokenCount)}
			}
			text := out.Text()
			if text == "" && len(out.Candidates) > 0 && out.Candidates[0].FinishReason == genai.FinishReasonMaxTokens {
				return "", u, cutOff("finishReason MAX_TOKENS", u)
			}
			return text, u, nil
		}
	default:
		return nil, fmt.Errorf("judge: unknown provider %q (want %v)", ep.Provider, llm.Providers())
	}
	return g, nil
}

// cutOff is the error of a grader whose answer was cut off at its bound
// (the provider's reason says so) before the shape was written: a model
// that thinks may spend the bound reasoning.
func cutOff(reason string, u llm.Usage) error {
	return fmt.Errorf("%w: the answer was cut off at its bound (%s, %d output tokens) before it held the shape", ErrUnparsable, reason, u.OutputTokens)
}

// Endpoint is the grader's endpoint.
func (g *Grader) Endpoint() llm.Endpoint { return g.ep }

// Grade asks the grader to score s.
func (g *Grader) Grade(ctx context.Context, s Subject) (Grade, llm.Usage, error) {
	msgs, err := gradeMessages(g.prompt, s)
	if err != nil {
		return Grade{}, llm.Usage{}, err
	}
	text, u, err := g.ask(ctx, msgs, GradeSchema, gradeSchema())
	if err != nil {
		return Grade{}, u, err
	}
	gr, err := parseGrade(text)
	return gr, u, err
}

// Prefer asks the grader which answer of p better meets its rubric.
func (g *Grader) Prefer(ctx context.Context, p Pair) (Preference, llm.Usage, error) {
	text, u, err := g.ask(ctx, preferMessages(p), PreferSchema, preferSchema())
	if err != nil {
		return Preference{}, u, err
	}
	pr, err := parsePreference(text)
	return pr, u, err
}

// OpenAIParams is the Chat Completions request of a grading call: the
// messages and response_format {type: json_schema, json_schema: {name,
// strict: true, schema}}, at temperature 0, its answer bounded by
// max_completion_tokens (MaxTokens; max_tokens is deprecated, and refused
// by OpenAI's reasoning models). A reasoning model (Thinks) refuses
// temperature 0 and reasons at medium effort unless told: it is asked at
// reasoning_effort low, with no temperature, its answer and reasoning
// bounded by ThinkingMaxTokens. A GPT-5 chat model (DefaultTemperatureOnly)
// takes only its default temperature: it is asked without one.
func OpenAIParams(model string, msgs []llm.Message, name string, schema map[string]any) openai.ChatCompletionNewParams {
	return openAIParams(model, Thinks(llm.ProviderOpenAI, model), msgs, name, schema)
}

// openAIParams is OpenAIParams for a model that thinks or not.
func openAIParams(model string, thinks bool, msgs []llm.Message, name string, schema map[string]any) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{
		Model:               shared.ChatModel(model),
		Temperature:         openai.Float(0),
		MaxCompletionTokens: openai.Int(MaxTokens),
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
				Name: name, Strict: openai.Bool(true), Schema: withoutTitle(schema),
			}},
		},
	}
	if !thinks && DefaultTemperatureOnly(llm.ProviderOpenAI, model) {
		p.Temperature = param.Opt[float64]{}
	}
	if thinks {
		p.Temperature = param.Opt[float64]{}
		p.ReasoningEffort = shared.ReasoningEffortLow
		p.MaxCompletionTokens = openai.Int(ThinkingMaxTokens)
	}
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleSystem:
			p.Messages = append(p.Messages, openai.SystemMessage(m.Content))
		default:
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		}
	}
	return p
}

// AnthropicParams is the Messages request of a grading call: one tool whose
// input schema is the output shape, with strict: true (Anthropic's
// structured outputs for tool inputs: the call's input is validated against
// the schema, additionalProperties false), forced with tool_choice {type:
// tool, name}, at temperature 0. A model that thinks (Thinks: Claude 5 on,
// Opus 4.7 on) refuses temperature and cannot think with a forced tool: it
// is asked for the shape as its answer, output_config {format: json_schema
// (titled name), effort: low}, its thinking and answer bounded by
// ThinkingMaxTokens.
func AnthropicParams(model string, msgs []llm.Message, name string, schema map[string]any) anthropic.MessageNewParams {
	return anthropicParams(model, Thinks(llm.ProviderAnthropic, model), msgs, name, schema)
}

// anthropicParams is AnthropicParams for a model that thinks or not.
func anthropicParams(model string, thinks bool, msgs []llm.Message, name string, schema map[string]any) anthropic.MessageNewParams {
	p := anthropic.MessageNewParams{
		Model:       anthropic.Model(model),
		MaxTokens:   MaxTokens,
		Temperature: anthropic.Float(0),
		Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{
			Name:        name,
			Description: anthropic.String("Report the grade in this shape."),
			InputSchema: anthropic.ToolInputSchemaParam{Properties: schema["properties"], Required: schema["required"].([]string),
				ExtraFields: map[string]any{"additionalProperties": false}},
			Strict: anthropic.Bool(true),
		}}},
		ToolChoice: anthropic.ToolChoiceParamOfTool(name),
	}
	if thinks {
		p = anthropic.MessageNewParams{
			Model:     anthropic.Model(model),
			MaxTokens: ThinkingMaxTokens,
			OutputConfig: anthropic.OutputConfigParam{
				Effort: anthropic.OutputConfigEffortLow,
				Format: anthropic.JSONOutputFormatParam{Schema: schema},
			},
		}
	}
	for _, m := range msgs {
		if m.Role == llm.RoleSystem {
			p.System = append(p.System, anthropic.TextBlockParam{Text: m.Content})
			continue
		}
		p.Messages = append(p.Messages, anthropic.NewUserMessage(anthropic.NewTextBlock(m.Content)))
	}
	return p
}

// GeminiParams is the generateContent request of a grading call to model:
// generationConfig.responseMimeType application/json with responseSchema,
// at temperature 0; the schema's title names the shape. A model that
// thinks (Thinks: 2.5 on) counts its thoughts against maxOutputTokens:
// ThinkingMaxTokens for it.
func GeminiParams(model string, msgs []llm.Message, schema map[string]any) ([]*genai.Content, *genai.GenerateContentConfig) {
	return geminiParams(Thinks(llm.ProviderGemini, model), msgs, schema)
}

// geminiParams is GeminiParams for a model that thinks or not.
func geminiParams(thinks bool, msgs []llm.Message, schema map[string]any) ([]*genai.Content, *genai.GenerateContentConfig) {
	cfg := &genai.GenerateContentConfig{
		Temperature:      genai.Ptr[float32](0),
		MaxOutputTokens:  MaxTokens,
		ResponseMIMEType: "application/json",
		ResponseSchema:   geminiSchema(schema),
	}
	if thinks {
		cfg.MaxOutputTokens = ThinkingMaxTokens
	}
	var contents []*genai.Content
	for _, m := range msgs {
		if m.Role == llm.RoleSystem {
			cfg.SystemInstruction = genai.NewContentFromText(m.Content, genai.RoleUser)
			continue
		}
		contents = append(contents, genai.NewContentFromText(m.Content, genai.RoleUser))
	}
	return contents, cfg
}

// geminiSchema turns a JSON Schema of the grader's shapes into Gemini's
// OpenAPI subset (type, title, description, enum, properties, required).
func geminiSchema(schema map[string]any) *genai.Schema {
	s := &genai.Schema{}
	if t, ok := schema["type"].(string); ok {
		s.Type = genai.Type(map[string]string{"object": "OBJECT", "string": "STRING", "number": "NUMBER"}[t])
	}
	s.Title, _ = schema["title"].(string)
	s.Description, _ = schema["description"].(string)
	s.Enum, _ = schema["enum"].([]string)
	s.Required, _ = schema["required"].([]string)
	if props, ok := schema["properties"].(map[string]any); ok {
		s.Properties = map[string]*genai.Schema{}
		for k, v := range props {
			if m, ok := v.(map[string]any); ok {
				s.Properties[k] = geminiSchema(m)
			}
		}
		s.PropertyOrdering = append([]string(nil), s.Required...)
	}
	return s
}

// withoutTitle is schema without its title: OpenAI names the shape by
// json_schema.name.
func withoutTitle(schema map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range schema {
		if k != "title" {
			out[k] = v
		}
	}
	return out
}
