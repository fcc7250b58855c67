package standin_test

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/standin"
)

// The schemas of a weather lookup: strict mode's subset, and two ways
// out of it that agents ship (an optional field; a nested object without
// additionalProperties).
const (
	strictWeather = `{"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": ["integer", "null"]},
		"when": {"type": "object", "properties": {"from": {"type": "string"}}, "required": ["from"], "additionalProperties": false},
		"stops": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "null"}]}}},
		"required": ["city", "days", "when", "stops"], "additionalProperties": false}`
	optionalDays = `{"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"], "additionalProperties": false}`
	openWhen     = `{"type": "object", "properties": {"city": {"type": "string"}, "when": {"type": "object", "properties": {"from": {"type": "string"}}, "required": ["from"]}},
		"required": ["city", "when"], "additionalProperties": false}`
	openRoot = `{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}`
	// composedWhen builds its nested object with allOf, which strict mode
	// does not permit.
	composedWhen = `{"type": "object", "properties": {"city": {"type": "string"},
		"when": {"allOf": [{"type": "object", "properties": {"from": {"type": "string"}}, "required": ["from"], "additionalProperties": false}]}},
		"required": ["city", "when"], "additionalProperties": false}`
	// choiceWhen gives its nested object as a oneOf of two shapes, as zod
	// 4 writes a discriminated union; strict mode takes anyOf, not oneOf.
	choiceWhen = `{"type": "object", "properties": {"city": {"type": "string"},
		"when": {"oneOf": [{"type": "object", "properties": {"day": {"type": "string"}}, "required": ["day"], "additionalProperties": false},
			{"type": "object", "properties": {"days": {"type": "integer"}}, "required": ["days"], "additionalProperties": false}]}},
		"required": ["city", "when"], "additionalProperties": false}`
	// boundedDays bounds and patterns its fields, which strict mode takes.
	boundedDays = `{"type": "object", "properties": {"city": {"type": "string", "pattern": "^[A-Z]"}, "days": {"type": "integer", "minimum": 1, "maximum": 16},
		"cities": {"type": "array", "items": {"type": "string"}, "maxItems": 3}}, "required": ["city", "days", "cities"], "additionalProperties": false}`
)

var _ = Describe("a strict schema (OpenAI's structured outputs) outside strict mode's subset", func() {
	var srv *standin.Server
	BeforeEach(func() { srv = startStandin(standin.Options{}) })

	DescribeTable("Chat Completions: refused with 400, OpenAI's words, param and code",
		func(body, message string, param, code any) {
			status, got := post(srv, chatPath, body)
			Expect(status).To(Equal(http.StatusBadRequest), "%v", got)
			Expect(got).To(Equal(map[string]any{"error": map[string]any{
				"message": message, "type": "invalid_request_error", "param": param, "code": code}}))
		},
		Entry("a strict function with an optional field", `{"model": "gpt-4.1-mini", "messages": [`+user+`],
			"tools": [{"type": "function", "function": {"name": "get_weather", "strict": true, "parameters": `+optionalDays+`}}]}`,
			"Invalid schema for function 'get_weather': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'days'.",
			"tools[0].function.parameters", "invalid_function_parameters"),
		Entry("a strict function whose root object may hold more", `{"model": "gpt-4.1-mini", "messages": [`+user+`],
			"tools": [{"type": "function", "function": {"name": "get_sst", "parameters": {"type": "object"}}}, {"type": "function", "function": {"name": "get_weather", "strict": true, "parameters": `+openRoot+`}}]}`,
			"Invalid schema for function 'get_weather': In context=(), 'additionalProperties' is required to be supplied and to be false.",
			"tools[1].function.parameters", "invalid_function_parameters"),
		Entry("a strict response format with a nested object that may hold more", `{"model": "gpt-4.1-mini", "messages": [`+user+`],
			"response_format": {"type": "json_schema", "json_schema": {"name": "forecast", "strict": true, "schema": `+openWhen+`}}}`,
			"Invalid schema for response_format 'forecast': In context=('properties', 'when'), 'additionalProperties' is required to be supplied and to be false.",
			"response_format", nil),
		Entry("a strict function whose root is not an object", `{"model": "gpt-4.1-mini", "messages": [`+user+`],
			"tools": [{"type": "function", "function": {"name": "send_email", "strict": true, "parameters": {"type": "string"}}}]}`,
			`Invalid schema for function 'send_email': schema must be a JSON Schema of 'type: "object"', got 'type: "string"'.`,
			"tools[0].function.parameters", "invalid_function_parameters"),
		Entry("a strict function composing a nested object with allOf", `{"model": "gpt-4.1-mini", "messages": [`+user+`],
			"tools": [{"type": "function", "function": {"name": "get_weather", "strict": true, "parameters": `+composedWhen+`}}]}`,
			"Invalid schema for function 'get_weather': In context=('properties', 'when'), 'allOf' is not permitted.",
			"tools[0].function.parameters", "invalid_function_parameters"),
		Entry("a strict function with an optional field, to a fine-tuned model", `{"model": "ft:gpt-4o-mini-2024-07-18:acme::w34th3r", "messages": [`+user+`],
			"tools": [{"type": "function", "function": {"name": "get_weather", "strict": true, "parameters": `+optionalDays+`}}]}`,
			"Invalid schema for function 'get_weather': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'days'.",
			"tools[0].function.parameters", "invalid_function_parameters"),
		Entry("a strict response format whose root is a list", `{"model": "gpt-4.1-mini", "messages": [`+user+`],
			"response_format": {"type": "json_schema", "json_schema": {"name": "forecast", "strict": true, "schema": {"type": "array", "items": {"type": "string"}}}}}`,
			`Invalid schema for response_format 'forecast': schema must be a JSON Schema of 'type: "object"', got 'type: "array"'.`,
			"response_format", nil),
		Entry("a strict function with a oneOf union", `{"model": "gpt-4.1-mini", "messages": [`+user+`],
			"tools": [{"type": "function", "function": {"name": "get_weather", "strict": true, "parameters": `+choiceWhen+`}}]}`,
			"Invalid schema for function 'get_weather': In context=('properties', 'when'), 'oneOf' is not permitted.",
			"tools[0].function.parameters", "invalid_function_parameters"),
		Entry("a strict response format with a oneOf union", `{"model": "gpt-4.1-mini", "messages": [`+user+`],
			"response_format": {"type": "json_schema", "json_schema": {"name": "forecast", "strict": true, "schema": `+choiceWhen+`}}}`,
			"Invalid schema for response_format 'forecast': In context=('properties', 'when'), 'oneOf' is not permitted.",
			"response_format", nil),
	)

	DescribeTable("Responses API: refused with 400, OpenAI's words, param and code",
		func(body, message, param, code string) {
			resp, b := wirePost(srv, http.MethodPost, "/v1/responses", body)
			Expect(resp.StatusCode).To(Equal(http.StatusBadRequest), "body %s", b)
			e := openAIErrorOf(b)
			Expect(e.Type).To(Equal("invalid_request_error"))
			Expect(e.Message).To(Equal(message))
			Expect(e.Param).To(Equal(param))
			Expect(e.Code).To(Equal(code))
		},
		Entry("a strict function with an optional field", `{"model": "gpt-4.1-mini", "input": "hi",
			"tools": [{"type": "function", "name": "get_weather", "strict": true, "parameters": `+optionalDays+`}]}`,
			"Invalid schema for function 'get_weather': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'days'.",
			"tools[0].parameters", "invalid_function_parameters"),
		Entry("a json_schema text format without its name", `{"model": "gpt-4.1-mini", "input": "hi",
			"text": {"format": {"type": "json_schema", "schema": `+strictWeather+`}}}`,
			"Missing required parameter: 'text.format.name'.", "text.format.name", "missing_required_parameter"),
		Entry("a strict text format with a nested object that may hold more", `{"model": "gpt-4.1-mini", "input": "hi",
			"text": {"format": {"type": "json_schema", "name": "forecast", "strict": true, "schema": `+openWhen+`}}}`,
			"Invalid schema for response_format 'forecast': In context=('properties', 'when'), 'additionalProperties' is required to be supplied and to be false.",
			"text.format.schema", "invalid_json_schema"),
		Entry("a strict function composing a nested object with allOf", `{"model": "gpt-4.1-mini", "input": "hi",
			"tools": [{"type": "function", "name": "get_weather", "strict": true, "parameters": `+composedWhen+`}]}`,
			"Invalid schema for function 'get_weather': In context=('properties', 'when'), 'allOf' is not permitted.",
			"tools[0].parameters", "invalid_function_parameters"),
		Entry("a strict function with a oneOf union", `{"model": "gpt-4.1-mini", "input": "hi",
			"tools": [{"type": "function", "name": "get_weather", "strict": true, "parameters": `+choiceWhen+`}]}`,
			"Invalid schema for function 'get_weather': In context=('properties', 'when'), 'oneOf' is not permitted.",
			"tools[0].parameters", "invalid_function_parameters"),
	)

	DescribeTable("is taken when strict mode is not asked for, the schema is within it, or the model is not OpenAI's",
		func(path, body string) {
			resp, b := wirePost(srv, http.MethodPost, path, body)
			Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", b)
		},
		Entry("Chat: an optional field, not strict", chatPath, `{"model": "gpt-4.1-mini", "messages": [`+user+`],
			"tools": [{"type": "function", "function": {"name": "get_weather", "strict": false, "parameters": `+optionalDays+`}}]}`),
		Entry("Chat: strict, nullable fields, a nested object and a list of unions", chatPath, `{"model": "gpt-4.1-mini", "messages": [`+user+`],
			"tools": [{"type": "function", "function": {"name": "get_weather", "strict": true, "parameters": `+strictWeather+`}}]}`),
		Entry("Chat: allOf, not strict", chatPath, `{"model": "gpt-4.1-mini", "messages": [`+user+`],
			"tools": [{"type": "function", "function": {"name": "get_weather", "parameters": `+composedWhen+`}}]}`),
		Entry("Chat: a oneOf union, not strict", chatPath, `{"model": "gpt-4.1-mini", "messages": [`+user+`],
			"tools": [{"type": "function", "function": {"name": "get_weather", "parameters": `+choiceWhen+`}}]}`),
		Entry("Chat: strict, with bounds, a pattern and a longest list", chatPath, `{"model": "gpt-4.1-mini", "messages": [`+user+`],
			"tools": [{"type": "function", "function": {"name": "get_weather", "strict": true, "parameters": `+boundedDays+`}}]}`),
		// Strict mode's subset is OpenAI's: an OpenAI-compatible server
		// for another model does not hold a schema to it. Ollama's reads
		// no strict flag and takes the schema as given (its
		// openai/openai.go), and a router sends another maker's model its
		// tools (Anthropic's strict tools take optional fields).
		Entry("Chat: strict, an optional field, to a model Ollama serves", chatPath, `{"model": "qwen3:14b", "messages": [`+user+`],
			"tools": [{"type": "function", "function": {"name": "get_weather", "strict": true, "parameters": `+optionalDays+`}}]}`),
		Entry("Chat: strict, an open nested object, to gpt-oss", chatPath, `{"model": "gpt-oss:20b", "messages": [`+user+`],
			"response_format": {"type": "json_schema", "json_schema": {"name": "forecast", "strict": true, "schema": `+openWhen+`}}}`),
		Entry("Chat: strict, an optional field, to Claude behind a router", chatPath, `{"model": "anthropic/claude-sonnet-4.5", "messages": [`+user+`],
			"tools": [{"type": "function", "function": {"name": "get_weather", "strict": true, "parameters": `+optionalDays+`}}]}`),
		Entry("Responses: strict, a oneOf union, to a model Ollama serves", "/v1/responses", `{"model": "qwen3:14b", "instructions": "`+echoPrompt+`", "input": "hi",
			"tools": [{"type": "function", "name": "get_weather", "strict": true, "parameters": `+choiceWhen+`}]}`),
		// The Responses API's function tools are strict unless they say
		// strict: false, but a schema that cannot be made strict is not
		// refused: OpenAI's function-calling guide (strict mode, as quoted
		// in 0xPlaygrounds/rig#2477) says the API then falls back to
		// best-effort, non-strict function calling.
		Entry("Responses: an optional field, strict not said", "/v1/responses", `{"model": "gpt-4.1-mini", "instructions": "`+echoPrompt+`", "input": "hi",
			"tools": [{"type": "function", "name": "get_weather", "parameters": `+optionalDays+`}]}`),
		Entry("Responses: an open root and allOf, strict not said", "/v1/responses", `{"model": "gpt-4.1-mini", "instructions": "`+echoPrompt+`", "input": "hi",
			"tools": [{"type": "function", "name": "get_weather", "parameters": `+openRoot+`}, {"type": "function", "name": "get_sst", "parameters": `+composedWhen+`}]}`),
	)
})

var _ = Describe("an Anthropic structured-output schema with an object that may hold more", func() {
	var srv *standin.Server
	BeforeEach(func() { srv = startStandin(standin.Options{}) })

	// openAllowed says additionalProperties: true on its nested object,
	// which Anthropic's structured outputs do not take.
	const openAllowed = `{"type": "object", "properties": {"city": {"type": "string"},
		"when": {"type": "object", "properties": {"from": {"type": "string"}}, "additionalProperties": true}}, "additionalProperties": false}`

	DescribeTable("is refused with 400 and Anthropic's words, naming the field the format came in",
		func(format, message string) {
			status, got := post(srv, "/v1/messages", `{"model": "claude-sonnet-4-5", "max_tokens": 200, "messages": [{"role": "user", "content": "weather in Taipei"}], `+format+`}`)
			Expect(status).To(Equal(http.StatusBadRequest), "%v", got)
			Expect(got).To(HaveKeyWithValue("error", map[string]any{"type": "invalid_request_error", "message": message}))
		},
		Entry("the beta's output_format", `"output_format": {"type": "json_schema", "schema": `+openAllowed+`}`,
			"output_format.schema: For 'object' type, 'additionalProperties: true' is not supported. Please set 'additionalProperties' to false"),
		Entry("output_config.format", `"output_config": {"format": {"type": "json_schema", "schema": `+openAllowed+`}}`,
			"output_config.format.schema: For 'object' type, 'additionalProperties: true' is not supported. Please set 'additionalProperties' to false"),
	)

	DescribeTable("is taken when every object says additionalProperties false",
		func(schema string) {
			status, got := post(srv, "/v1/messages", `{"model": "claude-sonnet-4-5", "max_tokens": 200, "messages": [{"role": "user", "content": "weather in Taipei"}],
				"output_config": {"format": {"type": "json_schema", "schema": `+schema+`}}}`)
			Expect(status).To(Equal(http.StatusOK), "%v", got)
		},
		Entry("false throughout", strictWeather),
	)
})
