package standin_test

// What the official Go SDKs send, as they send it: each entry drives the
// SDK's own client against a stand-in of the echo policy, so the bytes on
// the wire are the SDK's. A request the stand-in cannot serve is refused in
// the provider's error shape, saying why, rather than answered as if a part
// of it were not there; one it serves is read as the API reads it.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	anthropic "github.com/anthropics/anthropic-sdk-go"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/option"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
	"google.golang.org/genai"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin"
)

// refusal is what an official SDK's error says of a refused request: the
// HTTP status and the message, as the SDK read them from the provider's
// error body (an error it could not read so is none).
type refusal struct {
	status  int
	message string
}

// refusalOf reads err as the error of one of the official SDKs, false
// when it is none of theirs or the SDK could not read the body as its
// provider's error.
func refusalOf(err error) (refusal, bool) {
	var openAIErr *sdk.Error
	if errors.As(err, &openAIErr) {
		return refusal{openAIErr.StatusCode, openAIErr.Message}, openAIErr.Message != ""
	}
	var anthropicErr *anthropic.Error
	if errors.As(err, &anthropicErr) {
		var body anthropicError
		if json.Unmarshal([]byte(anthropicErr.RawJSON()), &body) != nil || body.Type != "error" {
			return refusal{}, false
		}
		return refusal{anthropicErr.StatusCode, body.Error.Message}, body.Error.Message != ""
	}
	var geminiErr genai.APIError
	if errors.As(err, &geminiErr) {
		return refusal{geminiErr.Code, geminiErr.Message}, geminiErr.Status == "INVALID_ARGUMENT"
	}
	return refusal{}, false
}

// echoStandin is a stand-in of the echo policy for one spec.
func echoStandin() *standin.Server {
	return startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
}

// officialAnthropic is the official Anthropic SDK's client of srv.
func officialAnthropic(srv *standin.Server) anthropic.Client {
	return anthropic.NewClient(anthropicoption.WithoutEnvironmentDefaults(), anthropicoption.WithBaseURL(srv.URL()),
		anthropicoption.WithAPIKey("sk-ant-test"), anthropicoption.WithMaxRetries(0))
}

// chatWith is a Chat Completions request of the echo policy's system
// prompt and user, changed by with.
func chatWith(user string, with func(*sdk.ChatCompletionNewParams)) sdk.ChatCompletionNewParams {
	p := sdk.ChatCompletionNewParams{Model: "gpt-5-mini", Messages: []sdk.ChatCompletionMessageParamUnion{
		sdk.DeveloperMessage(echoPrompt), sdk.UserMessage(user)}}
	with(&p)
	return p
}

// sstFunction is the get_sst function as Chat Completions offers it.
var sstFunction = sdk.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: "get_sst",
	Parameters: shared.FunctionParameters{"type": "object", "properties": map[string]any{"lon": map[string]any{"type": "number"}}}})

var _ = DescribeTable("an official SDK's request the stand-in cannot serve is refused in the provider's error shape, saying why",
	func(send func(srv *standin.Server) error, says string) {
		err := send(echoStandin())
		Expect(err).To(HaveOccurred(), "refused, not answered as if that part were not there")
		got, ok := refusalOf(err)
		Expect(ok).To(BeTrue(), "the SDK reads the provider's error shape: %v", err)
		Expect(got.status).To(Equal(http.StatusBadRequest))
		Expect(got.message).To(ContainSubstring(says))
	},
	Entry("Chat Completions: a custom tool (type custom), which is called with free text", func(srv *standin.Server) error {
		c := officialOpenAI(srv)
		_, err := c.Chat.Completions.New(context.Background(), chatWith("Raise the Vis fare.", func(p *sdk.ChatCompletionNewParams) {
			p.Tools = []sdk.ChatCompletionToolUnionParam{sstFunction,
				sdk.ChatCompletionCustomTool(sdk.ChatCompletionCustomToolCustomParam{Name: "apply_patch", Description: sdk.String("Edit files with a patch.")})}
		}))
		return err
	}, `tools[1]: the stand-in serves function tools, not "custom"`),
	Entry("Messages (beta): an MCP server the API would call itself (mcp_servers)", func(srv *standin.Server) error {
		c := officialAnthropic(srv)
		_, err := c.Beta.Messages.New(context.Background(), anthropic.BetaMessageNewParams{
			Model: claude, MaxTokens: 512, System: []anthropic.BetaTextBlockParam{{Text: echoPrompt}},
			Messages:   []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock("Which tickets are open?"))},
			MCPServers: []anthropic.BetaRequestMCPServerURLDefinitionParam{{Name: "tickets", URL: "https://mcp.tickets.example/mcp"}},
			Betas:      []anthropic.AnthropicBeta{anthropic.AnthropicBetaMCPClient2025_11_20},
		})
		return err
	}, `mcp_servers.0: the stand-in runs no server tools: it cannot call the tools of the MCP server "tickets"`),
	Entry("generateContent: Google Search grounding beside functions", func(srv *standin.Server) error {
		return generateWith(srv, &genai.Tool{GoogleSearch: &genai.GoogleSearch{}})
	}, "tools[1]: the stand-in runs no built-in tools: it cannot serve googleSearch"),
	Entry("generateContent: code execution and URL context in one tool", func(srv *standin.Server) error {
		return generateWith(srv, &genai.Tool{CodeExecution: &genai.ToolCodeExecution{}, URLContext: &genai.URLContext{}})
	}, "tools[1]: the stand-in runs no built-in tools: it cannot serve codeExecution, urlContext"),
)

// generateWith asks srv through the official genai SDK with the get_sst
// function and tool beside it.
func generateWith(srv *standin.Server, tool *genai.Tool) error {
	GinkgoHelper()
	c, err := officialGemini(srv)
	Expect(err).NotTo(HaveOccurred())
	_, err = c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", genai.Text("What is the SST off Keelung?"), &genai.GenerateContentConfig{
		SystemInstruction: genai.NewContentFromText(echoPrompt, genai.RoleUser),
		Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "get_sst", Description: "Sea surface temperature at a point.",
			ParametersJsonSchema: map[string]any{"type": "object", "properties": map[string]any{"lon": map[string]any{"type": "number"}}}}}}, tool},
	})
	return err
}

// anthropicEchoed is the Request the echo policy read of messages, sent
// through the official Anthropic SDK with the echo system prompt.
func anthropicEchoed(srv *standin.Server, messages ...anthropic.MessageParam) standin.Request {
	GinkgoHelper()
	c := officialAnthropic(srv)
	msg, err := c.Messages.New(context.Background(), anthropic.MessageNewParams{Model: claude, MaxTokens: 1024,
		System: []anthropic.TextBlockParam{{Text: echoPrompt}}, Messages: messages, Tools: []anthropic.ToolUnionParam{getSST}})
	Expect(err).NotTo(HaveOccurred())
	return seen(llm.Response{Message: llm.Message{Content: msg.Content[0].Text}})
}

var _ = DescribeTable("an official SDK's request is read as the API reads it",
	func(read func(srv *standin.Server) standin.Request, want []llm.Message) {
		Expect(read(echoStandin()).Messages).To(Equal(want))
	},
	Entry("Messages: a plain text document is text the model reads (its title first), a PDF and an image are left out",
		func(srv *standin.Server) standin.Request {
			fares := anthropic.NewDocumentBlock(anthropic.PlainTextSourceParam{Data: "Vis 5.90\nKorcula 7.10"})
			fares.OfDocument.Title, fares.OfDocument.Citations.Enabled = anthropic.String("Ferry fares"), anthropic.Bool(true)
			return anthropicEchoed(srv, anthropic.NewUserMessage(anthropic.NewTextBlock("What does Vis cost?\n"), fares,
				anthropic.NewDocumentBlock(anthropic.Base64PDFSourceParam{Data: "JVBERi0xLjcK"}),
				anthropic.NewImageBlockBase64("image/png", "iVBORw0KGgo=")))
		},
		[]llm.Message{{Role: llm.RoleSystem, Content: echoPrompt}, {Role: llm.RoleUser, Content: "What does Vis cost?\nFerry fares\nVis 5.90\nKorcula 7.10\n"}}),
	Entry("Messages: a document of content blocks in a tool result is the result's text",
		func(srv *standin.Server) standin.Request {
			doc := anthropic.DocumentBlockParam{Source: anthropic.DocumentBlockParamSourceUnion{OfContent: &anthropic.ContentBlockSourceParam{
				Content: anthropic.ContentBlockSourceContentUnionParam{OfContentBlockSourceContent: []anthropic.ContentBlockSourceContentItemUnionParam{
					{OfText: &anthropic.TextBlockParam{Text: "21.4 C at 06:00"}}, {OfText: &anthropic.TextBlockParam{Text: "21.9 C at 12:00"}}}}}},
				Context: anthropic.String("Buoy 46 readings")}
			return anthropicEchoed(srv, anthropic.NewUserMessage(anthropic.NewTextBlock("call get_sst")),
				anthropic.NewAssistantMessage(anthropic.NewToolUseBlock("toolu_01", map[string]any{"lon": 121.5}, "get_sst")),
				anthropic.NewUserMessage(anthropic.ContentBlockParamUnion{OfToolResult: &anthropic.ToolResultBlockParam{ToolUseID: "toolu_01",
					Content: []anthropic.ToolResultBlockParamContentUnion{{OfDocument: &doc}}}}))
		},
		[]llm.Message{{Role: llm.RoleSystem, Content: echoPrompt}, {Role: llm.RoleUser, Content: "call get_sst"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "toolu_01", Name: "get_sst", Arguments: json.RawMessage(`{"lon":121.5}`)}}},
			{Role: llm.RoleTool, ToolCallID: "toolu_01", Name: "get_sst", Content: "Buoy 46 readings\n21.4 C at 06:00\n21.9 C at 12:00\n"}}),
)

var _ = Describe("an official SDK's settings the answer echoes", func() {
	It("echoes a Responses request's metadata, prompt cache key, safety identifier, truncation, tool call limit, verbosity and service tier, whole and streamed", func() {
		c := officialOpenAI(echoStandin())
		params := responses.ResponseNewParams{
			Model: "gpt-4.1-mini", Instructions: sdk.String(echoPrompt), Input: responses.ResponseNewParamsInputUnion{OfString: sdk.String("Fares to Vis?")},
			Metadata: shared.Metadata{"team": "ferries", "run": "r-17"}, PromptCacheKey: sdk.String("ferry-desk"), SafetyIdentifier: sdk.String("user-4411"),
			Truncation: responses.ResponseNewParamsTruncationAuto, MaxToolCalls: sdk.Int(4), ServiceTier: responses.ResponseNewParamsServiceTierFlex,
			Text: responses.ResponseTextConfigParam{Verbosity: responses.ResponseTextConfigVerbosityLow},
		}
		check := func(r responses.Response) {
			GinkgoHelper()
			Expect(r.Metadata).To(Equal(shared.Metadata{"team": "ferries", "run": "r-17"}))
			Expect(r.PromptCacheKey).To(Equal("ferry-desk"))
			Expect(r.SafetyIdentifier).To(Equal("user-4411"))
			Expect(r.Truncation).To(BeEquivalentTo("auto"))
			Expect(r.MaxToolCalls).To(BeEquivalentTo(4))
			Expect(r.ServiceTier).To(BeEquivalentTo("flex"), "the tier that served it")
			Expect(r.Text.Verbosity).To(BeEquivalentTo("low"))
		}
		whole, err := c.Responses.New(context.Background(), params)
		Expect(err).NotTo(HaveOccurred())
		check(*whole)
		s := c.Responses.NewStreaming(context.Background(), params)
		var done *responses.Response
		for s.Next() {
			if e := s.Current(); e.Type == "response.completed" {
				r := e.AsResponseCompleted().Response
				done = &r
			}
		}
		Expect(s.Err()).NotTo(HaveOccurred())
		Expect(done).NotTo(BeNil())
		check(*done)

		params.ServiceTier = responses.ResponseNewParamsServiceTierAuto
		whole, err = c.Responses.New(context.Background(), params)
		Expect(err).NotTo(HaveOccurred())
		Expect(whole.ServiceTier).To(BeEquivalentTo("default"), "auto is served at the project's tier")
	})

	It("echoes the service tier a Chat Completions request asked for, whole and in every chunk", func() {
		c := officialOpenAI(echoStandin())
		params := chatWith("Fares to Vis?", func(p *sdk.ChatCompletionNewParams) { p.ServiceTier = sdk.ChatCompletionNewParamsServiceTierPriority })
		whole, err := c.Chat.Completions.New(context.Background(), params)
		Expect(err).NotTo(HaveOccurred())
		Expect(whole.ServiceTier).To(BeEquivalentTo("priority"))
		s := c.Chat.Completions.NewStreaming(context.Background(), params)
		chunks := 0
		for s.Next() {
			chunks++
			Expect(s.Current().ServiceTier).To(BeEquivalentTo("priority"))
		}
		Expect(s.Err()).NotTo(HaveOccurred())
		Expect(chunks).To(BeNumerically(">", 1))
	})
})
