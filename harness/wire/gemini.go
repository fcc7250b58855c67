package wire

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// The Gemini wire format. POST …/models/<model>:generateContent (and
// :streamGenerateContent?alt=sse, answered as events: stream_gemini.go) is
// decoded into the same Request the other dialects give, so a reader
// cannot tell them apart:
//
//   - systemInstruction becomes a system message; user and model contents
//     become user and assistant messages (thought parts are dropped);
//   - a function call keeps its id when it has one (newer models give
//     them); one without is numbered call_1, call_2 … by its place among
//     the conversation's calls (CallID). A functionResponse answers
//     the unanswered call of its id when it gives one, else the earliest
//     unanswered call of its name. The tool message's content is response.result (a string as
//     it is, anything else as JSON), or the whole response object when it has
//     no result;
//   - tools take their schema from parametersJsonSchema, else parameters;
//   - generationConfig.responseMimeType application/json is JSON mode;
//     it and responseModalities are the output asked for (output).
//
// Errors use Gemini's body {"error": {"code", "message", "status"}}. The
// API key is ignored. Fields are read by their camelCase names, as the SDKs
// send them, or by their proto names in snake_case (system_instruction,
// generation_config, function_declarations, function_call …), which the API
// accepts too and its REST examples and several clients send.

// geminiRequest is the part of a generateContent request the package reads.
type geminiRequest struct {
	SystemInstruction      *geminiContent    `json:"systemInstruction"`
	SystemInstructionSnake *geminiContent    `json:"system_instruction"`
	Contents               []geminiContent   `json:"contents"`
	Tools                  geminiTools       `json:"tools"`
	GenerationConfig       geminiConfig      `json:"generationConfig"`
	GenerationConfigSnake  *geminiConfig     `json:"generation_config"`
	ToolConfig             *geminiToolConfig `json:"toolConfig"`
	ToolConfigSnake        *geminiToolConfig `json:"tool_config"`
	CachedContent          string            `json:"cachedContent"`
	CachedContentSnake     string            `json:"cached_content"`
}

// geminiTools is a request's tools: an array, or one tool object, which
// the API takes for a repeated field as it does an array of one.
type geminiTools []geminiTool

func (ts *geminiTools) UnmarshalJSON(b []byte) error {
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		var one geminiTool
		if err := json.Unmarshal(b, &one); err != nil {
			return err
		}
		*ts = geminiTools{one}
		return nil
	}
	return json.Unmarshal(b, (*[]geminiTool)(ts))
}

// geminiToolConfig is a request's toolConfig: which functions the answer
// may call.
type geminiToolConfig struct {
	Calling      *geminiCalling `json:"functionCallingConfig"`
	CallingSnake *geminiCalling `json:"function_calling_config"`
}

type geminiCalling struct {
	Mode              string   `json:"mode"`
	AllowedNames      []string `json:"allowedFunctionNames"`
	AllowedNamesSnake []string `json:"allowed_function_names"`
}

// choice reads the request's functionCallingConfig: mode NONE calls no
// function, ANY calls one, and ANY or VALIDATED with allowedFunctionNames
// only one of those.
func (gr geminiRequest) choice() Choice {
	tc := cmp.Or(gr.ToolConfig, gr.ToolConfigSnake)
	if tc == nil {
		return Choice{}
	}
	fc := cmp.Or(tc.Calling, tc.CallingSnake)
	if fc == nil {
		return Choice{}
	}
	names := fc.AllowedNames
	if names == nil {
		names = fc.AllowedNamesSnake
	}
	switch strings.ToUpper(fc.Mode) {
	case "NONE":
		return Choice{None: true}
	case "ANY":
		return Choice{Only: names, Required: true}
	case "VALIDATED":
		return Choice{Only: names}
	}
	return Choice{}
}

type geminiTool struct {
	FunctionDeclarations      []geminiFunction `json:"functionDeclarations"`
	FunctionDeclarationsSnake []geminiFunction `json:"function_declarations"`
	// Builtin names the built-in tools the tool turns on (googleSearch,
	// codeExecution, urlContext, …), which Google runs itself, by the
	// keys they are given under, sorted.
	Builtin []string `json:"-"`
}

func (t *geminiTool) UnmarshalJSON(b []byte) error {
	type plain geminiTool
	if err := json.Unmarshal(b, (*plain)(t)); err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	for k, v := range keys {
		if k != "functionDeclarations" && k != "function_declarations" && string(v) != "null" {
			t.Builtin = append(t.Builtin, k)
		}
	}
	slices.Sort(t.Builtin)
	return nil
}

type geminiFunction struct {
	Name                      string          `json:"name"`
	Description               string          `json:"description"`
	ParametersJSONSchema      json.RawMessage `json:"parametersJsonSchema"`
	ParametersJSONSchemaSnake json.RawMessage `json:"parameters_json_schema"`
	Parameters                json.RawMessage `json:"parameters"`
}

type geminiConfig struct {
	MaxOutputTokens       int             `json:"maxOutputTokens"`
	MaxOutputTokensSnake  int             `json:"max_output_tokens"`
	CandidateCount        int             `json:"candidateCount"`
	CandidateCountSnake   int             `json:"candidate_count"`
	ResponseMIMEType      string          `json:"responseMimeType"`
	ResponseMIMETypeSnake string          `json:"response_mime_type"`
	ResponseSchema        json.RawMessage `json:"responseSchema"`
	ResponseSchemaSnake   json.RawMessage `json:"response_schema"`
	// ResponseJSONSchema is the answer's JSON Schema, which newer clients
	// send instead of responseSchema's OpenAPI subset.
	ResponseJSONSchema      json.RawMessage `json:"responseJsonSchema"`
	ResponseJSONSchemaSnake json.RawMessage `json:"response_json_schema"`
	// ResponseModalities are the outputs asked for (TEXT, IMAGE, AUDIO).
	ResponseModalities      []string `json:"responseModalities"`
	ResponseModalitiesSnake []string `json:"response_modalities"`
	// ResponseLogprobs asks for the answer's token log probabilities,
	// each with Logprobs alternatives (logprobs.go).
	ResponseLogprobs      bool `json:"responseLogprobs"`
	ResponseLogprobsSnake bool `json:"response_logprobs"`
	Logprobs              *int `json:"logprobs"`
	// StopSequences are where the answer's text must end.
	StopSequences      []string `json:"stopSequences"`
	StopSequencesSnake []string `json:"stop_sequences"`
	// The sampling settings, for the trace (Request.Sampling).
	Temperature           *float64 `json:"temperature"`
	TopP                  *float64 `json:"topP"`
	TopPSnake             *float64 `json:"top_p"`
	TopK                  *float64 `json:"topK"`
	TopKSnake             *float64 `json:"top_k"`
	Seed                  *int     `json:"seed"`
	FrequencyPenalty      *float64 `json:"frequencyPenalty"`
	FrequencyPenaltySnake *float64 `json:"frequency_penalty"`
	PresencePenalty       *float64 `json:"presencePenalty"`
	PresencePenaltySnake  *float64 `json:"presence_penalty"`
	// ThinkingConfig's includeThoughts asks for the model's thoughts.
	ThinkingConfig      *geminiThinking `json:"thinkingConfig"`
	ThinkingConfigSnake *geminiThinking `json:"thinking_config"`
}

// geminiThinking is a request's thinkingConfig, as far as the stand-in
// reads it.
type geminiThinking struct {
	IncludeThoughts      bool `json:"includeThoughts"`
	IncludeThoughtsSnake bool `json:"include_thoughts"`
	// ThinkingLevel is Gemini 3's setting (low, high, …), where Gemini
	// 2.5 takes a budget.
	ThinkingLevel      string `json:"thinkingLevel"`
	ThinkingLevelSnake string `json:"thinking_level"`
}

// thoughtsAsked reports whether g asks for the model's thoughts.
func (g geminiConfig) thoughtsAsked() bool {
	for _, t := range []*geminiThinking{g.ThinkingConfig, g.ThinkingConfigSnake} {
		if t != nil && (t.IncludeThoughts || t.IncludeThoughtsSnake) {
			return true
		}
	}
	return false
}

// logprobsAsked is how many alternatives g asks for each token of the
// answer, or -1 when it asks for no log probabilities.
func (g geminiConfig) logprobsAsked() int {
	switch {
	case !g.ResponseLogprobs:
		return -1
	case g.Logprobs != nil:
		return *g.Logprobs
	}
	return 0
}

type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

type geminiPart struct {
	Text                  string              `json:"text"`
	Thought               bool                `json:"thought"`
	FunctionCall          *geminiCall         `json:"functionCall"`
	FunctionCallSnake     *geminiCall         `json:"function_call"`
	FunctionResponse      *geminiCallResponse `json:"functionResponse"`
	FunctionResponseSnake *geminiCallResponse `json:"function_response"`
	ThoughtSignature      string              `json:"thoughtSignature"`
	ThoughtSignatureSnake string              `json:"thought_signature"`
}

type geminiCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type geminiCallResponse struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

// fold moves each field given by its snake_case name to its camelCase one,
// where that one was not given.
func (gr *geminiRequest) fold() {
	gr.SystemInstruction = cmp.Or(gr.SystemInstruction, gr.SystemInstructionSnake)
	gr.CachedContent = cmp.Or(gr.CachedContent, gr.CachedContentSnake)
	if c := gr.GenerationConfigSnake; c != nil {
		g := &gr.GenerationConfig
		g.MaxOutputTokens = cmp.Or(g.MaxOutputTokens, c.MaxOutputTokens, c.MaxOutputTokensSnake)
		g.CandidateCount = cmp.Or(g.CandidateCount, c.CandidateCount, c.CandidateCountSnake)
		g.ResponseMIMEType = cmp.Or(g.ResponseMIMEType, c.ResponseMIMEType, c.ResponseMIMETypeSnake)
		g.ResponseSchema = orNonEmpty(g.ResponseSchema, c.ResponseSchema, c.ResponseSchemaSnake)
		g.ResponseJSONSchema = orNonEmpty(g.ResponseJSONSchema, c.ResponseJSONSchema, c.ResponseJSONSchemaSnake)
		g.ResponseModalities = orNonEmpty(g.ResponseModalities, c.ResponseModalities, c.ResponseModalitiesSnake)
		g.ResponseLogprobs = g.ResponseLogprobs || c.ResponseLogprobs || c.ResponseLogprobsSnake
		g.Logprobs = cmp.Or(g.Logprobs, c.Logprobs)
		g.StopSequences = slices.Concat(g.StopSequences, c.StopSequences, c.StopSequencesSnake)
		g.Temperature, g.Seed = cmp.Or(g.Temperature, c.Temperature), cmp.Or(g.Seed, c.Seed)
		g.TopP = cmp.Or(g.TopP, c.TopP, c.TopPSnake)
		g.TopK = cmp.Or(g.TopK, c.TopK, c.TopKSnake)
		g.FrequencyPenalty = cmp.Or(g.FrequencyPenalty, c.FrequencyPenalty, c.FrequencyPenaltySnake)
		g.PresencePenalty = cmp.Or(g.PresencePenalty, c.PresencePenalty, c.PresencePenaltySnake)
	}
	g := &gr.GenerationConfig
	g.MaxOutputTokens = cmp.Or(g.MaxOutputTokens, g.MaxOutputTokensSnake)
	g.CandidateCount = cmp.Or(g.CandidateCount, g.CandidateCountSnake)
	g.ResponseMIMEType = cmp.Or(g.ResponseMIMEType, g.ResponseMIMETypeSnake)
	g.ResponseSchema = orNonEmpty(g.ResponseSchema, g.ResponseSchemaSnake)
	g.ResponseJSONSchema = orNonEmpty(g.ResponseJSONSchema, g.ResponseJSONSchemaSnake)
	g.ResponseModalities = orNonEmpty(g.ResponseModalities, g.ResponseModalitiesSnake)
	g.ResponseLogprobs = g.ResponseLogprobs || g.ResponseLogprobsSnake
	g.StopSequences = append(g.StopSequences, g.StopSequencesSnake...)
	g.TopP, g.TopK = cmp.Or(g.TopP, g.TopPSnake), cmp.Or(g.TopK, g.TopKSnake)
	g.FrequencyPenalty = cmp.Or(g.FrequencyPenalty, g.FrequencyPenaltySnake)
	g.PresencePenalty = cmp.Or(g.PresencePenalty, g.PresencePenaltySnake)
	for i := range gr.Tools {
		t := &gr.Tools[i]
		t.FunctionDeclarations = append(t.FunctionDeclarations, t.FunctionDeclarationsSnake...)
		for j := range t.FunctionDeclarations {
			f := &t.FunctionDeclarations[j]
			f.ParametersJSONSchema = orNonEmpty(f.ParametersJSONSchema, f.ParametersJSONSchemaSnake)
		}
	}
	for _, c := range gr.Contents {
		for j := range c.Parts {
			p := &c.Parts[j]
			p.FunctionCall = cmp.Or(p.FunctionCall, p.FunctionCallSnake)
			p.FunctionResponse = cmp.Or(p.FunctionResponse, p.FunctionResponseSnake)
			p.ThoughtSignature = cmp.Or(p.ThoughtSignature, p.ThoughtSignatureSnake)
		}
	}
}

// output is the output gr asks for (outputs): JSON for the
// responseMimeType application/json, text for text/plain and for
// text/x.enum (the enum's value in plain text), the modalities of
// responseModalities. A responseSchema or responseJsonSchema without a
// MIME type asks for nothing: the API applies a schema only with a MIME
// type that takes one, and a JSON Schema only with application/json.
func (gr geminiRequest) output() llm.Output {
	g := gr.GenerationConfig
	var out outputs
	for _, m := range g.ResponseModalities {
		out.modality(m)
	}
	switch g.ResponseMIMEType {
	case "application/json":
		out.json = true
	case "text/plain", "text/x.enum":
		out.text = true
	}
	return out.output()
}

// orNonEmpty is the first of vs that was given (is not empty).
func orNonEmpty[S ~[]E, E any](vs ...S) S {
	for _, v := range vs {
		if len(v) > 0 {
			return v
		}
	}
	return nil
}

// text returns the concatenated text parts of c, without thoughts.
func (c geminiContent) text() string {
	var b strings.Builder
	for _, p := range c.Parts {
		if !p.Thought {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// GeminiPath reports whether path is one of the Gemini API's: under
// /v1beta/ or /v1alpha/, or a method of a model (…/models/<model>:<method>).
func GeminiPath(path string) bool {
	if strings.Contains(path, "/v1beta/") || strings.Contains(path, "/v1alpha/") {
		return true
	}
	i := strings.LastIndex(path, "/models/")
	return i >= 0 && strings.Contains(path[i:], ":")
}

// StreamSuffix ends the path of a streamed Gemini call.
const StreamSuffix = ":streamGenerateContent"

// GeminiModel returns the model of a …/models/<model>:generateContent or
// :streamGenerateContent path, and whether it streams.
func GeminiModel(path string) (model string, stream, ok bool) {
	suffix := ":generateContent"
	if strings.HasSuffix(path, StreamSuffix) {
		suffix, stream = StreamSuffix, true
	}
	i := strings.LastIndex(path, "/models/")
	if i < 0 || !strings.HasSuffix(path, suffix) {
		return "", false, false
	}
	model = path[i+len("/models/") : len(path)-len(suffix)]
	return model, stream, model != "" && !strings.Contains(model, "/")
}

// pendingCall is a function call that no functionResponse has answered
// yet: the id it is read with, the id it was sent with, and its name.
type pendingCall struct{ id, sent, name string }

// answered is the place in pending of the call a result answers: the call
// of its id, when it gives one, else the earliest of its name; -1 when
// none is.
func answered(pending []pendingCall, id, name string) int {
	j := slices.IndexFunc(pending, func(c pendingCall) bool { return id != "" && (c.id == id || c.sent == id) })
	if j < 0 {
		j = slices.IndexFunc(pending, func(c pendingCall) bool { return c.name == name })
	}
	return j
}

// decode reads gr, a request to model, as a Request. When strict (the
// stand-in answering it), a built-in tool (googleSearch, codeExecution,
// urlContext, …), which Google runs itself, and a functionResponse that
// answers no earlier functionCall are errors; else (reading recorded
// traffic) a built-in tool is left out, the functionResponse is a tool
// message with its own id, if it has one, and every call is read with the
// id of its place in the conversation (CallID), whatever id it was sent
// with: clients make ids up for Gemini's calls (the AI SDK, anew each
// run), which would make what is read, and counted, differ between two
// replays of one recording.
func (gr geminiRequest) decode(model string, strict bool) (Request, error) {
	for i, t := range gr.Tools {
		if len(t.Builtin) > 0 && strict {
			return Request{}, &invalid{msg: fmt.Sprintf("* GenerateContentRequest.tools[%d]: the stand-in runs no built-in tools: it cannot serve %s "+
				"(it serves functionDeclarations); record this agent against the real API instead (testbed record --provider gemini)\n", i, strings.Join(t.Builtin, ", "))}
		}
	}
	g := gr.GenerationConfig
	r := Request{Model: model, MaxTokens: g.MaxOutputTokens, Choice: gr.choice(), Temperature: g.Temperature,
		Sampling: llm.Sampling{TopP: g.TopP, TopK: g.TopK, Stop: g.StopSequences, Seed: g.Seed,
			FrequencyPenalty: g.FrequencyPenalty, PresencePenalty: g.PresencePenalty, Choices: g.CandidateCount}}
	r.Output = gr.output()
	if rs := orNonEmpty(gr.GenerationConfig.ResponseJSONSchema, gr.GenerationConfig.ResponseSchema); len(rs) > 0 {
		var titled struct {
			Title string `json:"title"`
		}
		if json.Unmarshal(rs, &titled) == nil {
			r.Shape = titled.Title
		}
		if r.Output == llm.OutputJSON {
			r.Schema = rs
		}
	}
	if gr.SystemInstruction != nil {
		if t := gr.SystemInstruction.text(); t != "" {
			r.Messages = append(r.Messages, llm.Message{Role: llm.RoleSystem, Content: t})
		}
	}
	var pending []pendingCall
	calls := 0
	for i, c := range gr.Contents {
		if c.Role == "model" {
			msg := llm.Message{Role: llm.RoleAssistant, Content: c.text()}
			for _, p := range c.Parts {
				if p.FunctionCall == nil {
					continue
				}
				calls++
				id := cmp.Or(p.FunctionCall.ID, CallID(calls))
				if !strict {
					id = CallID(calls)
				}
				args := objectArgs(p.FunctionCall.Args)
				msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: id, Name: p.FunctionCall.Name, Arguments: args})
				pending = append(pending, pendingCall{id, p.FunctionCall.ID, p.FunctionCall.Name})
			}
			if last := len(r.Messages) - 1; i > 0 && gr.Contents[i-1].Role == "model" && r.Messages[last].Role == llm.RoleAssistant {
				// Consecutive model contents are one turn, as the API
				// takes them (a chat's streamed answer, kept a chunk each).
				r.Messages[last].Content += msg.Content
				r.Messages[last].ToolCalls = append(r.Messages[last].ToolCalls, msg.ToolCalls...)
				continue
			}
			r.Messages = append(r.Messages, msg)
			continue
		}
		// A user turn: text parts make a user message, each functionResponse
		// a tool message, in the order of the parts.
		var text strings.Builder
		flush := func() {
			if text.Len() > 0 {
				r.Messages = append(r.Messages, llm.Message{Role: llm.RoleUser, Content: text.String()})
				text.Reset()
			}
		}
		for _, p := range c.Parts {
			fr := p.FunctionResponse
			if fr == nil {
				if !p.Thought {
					text.WriteString(p.Text)
				}
				continue
			}
			flush()
			j := answered(pending, fr.ID, fr.Name)
			id := fr.ID // an answer to no call shown: its own id, if any
			switch {
			case j >= 0:
				id = pending[j].id
				pending = slices.Delete(pending, j, j+1)
			case strict:
				return Request{}, fmt.Errorf("contents[%d]: functionResponse %q answers no earlier functionCall of that name", i, fr.Name)
			}
			content, isErr := toolResult(fr.Name, fr.Response)
			r.Messages = append(r.Messages, llm.Message{Role: llm.RoleTool, Content: content, ToolCallID: id, Name: fr.Name, IsError: isErr})
		}
		flush()
	}
	for _, t := range gr.Tools {
		for _, d := range t.FunctionDeclarations {
			params := d.ParametersJSONSchema
			if len(params) == 0 {
				params = d.Parameters
			}
			r.Tools = append(r.Tools, llm.Tool{Name: d.Name, Description: d.Description, Parameters: params})
		}
	}
	return r, nil
}

// toolResult is the tool message a functionResponse's response carries,
// and whether it is an error. Gemini's reference: its output key is the
// function's output and its error key the error's details, else the whole
// response is the output. Clients also send it as result, or (the AI SDK)
// as content beside the function's name. A string is read as it is,
// anything else as JSON.
func toolResult(name string, resp json.RawMessage) (string, bool) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(resp, &fields); err != nil {
		return compactText(resp), false
	}
	text := func(v json.RawMessage) string {
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
		return compactText(v)
	}
	if e, ok := fields["error"]; ok && string(e) != "null" {
		return text(e), true
	}
	for _, k := range []string{"output", "result"} {
		if v, ok := fields[k]; ok {
			return text(v), false
		}
	}
	if v, ok := fields["content"]; ok && len(fields) == 2 && text(fields["name"]) == name {
		return text(v), false
	}
	return compactText(resp), false
}
