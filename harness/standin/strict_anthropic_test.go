package standin_test

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/standin"
)

// Anthropic's structured outputs (strict tool use, a JSON output format)
// take a subset of JSON Schema; the API refuses a schema outside it with
// 400 in the words strict_anthropic.go quotes with their sources.
var _ = Describe("an Anthropic schema outside structured outputs' subset", func() {
	var srv *standin.Server
	BeforeEach(func() { srv = startStandin(standin.Options{}) })

	// messages asks for the weather in Taipei with extra, a tools or
	// format field.
	messages := func(extra string) string {
		return `{"model": "claude-sonnet-4-5", "max_tokens": 200, "messages": [{"role": "user", "content": "weather in Taipei"}], ` + extra + `}`
	}
	// strictTool is a weather tool with strict: true and schema, after a
	// tool that is not strict and bounds its days as the API lets it.
	strictTool := func(schema string) string {
		return `"tools": [{"name": "get_sst", "input_schema": {"type": "object", "properties": {"days": {"type": "integer", "minimum": 1}}}},
			{"name": "get_weather", "strict": true, "input_schema": ` + schema + `}]`
	}
	format := func(schema string) string {
		return `"output_config": {"format": {"type": "json_schema", "schema": ` + schema + `}}`
	}

	DescribeTable("is refused with 400 and Anthropic's words, naming the field it came in",
		func(extra, message string) {
			status, got := post(srv, "/v1/messages", messages(extra))
			Expect(status).To(Equal(http.StatusBadRequest), "%v", got)
			Expect(got).To(HaveKeyWithValue("error", map[string]any{"type": "invalid_request_error", "message": message}))
		},
		Entry("a strict tool whose object does not say additionalProperties",
			strictTool(`{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}`),
			"tools.1.custom: For 'object' type, 'additionalProperties' must be explicitly set to false"),
		Entry("a strict tool whose nested object does not say additionalProperties",
			strictTool(`{"type": "object", "properties": {"when": {"type": "object", "properties": {"from": {"type": "string"}}}}, "additionalProperties": false}`),
			"tools.1.custom: For 'object' type, 'additionalProperties' must be explicitly set to false"),
		Entry("a strict tool whose nested object says additionalProperties true",
			strictTool(`{"type": "object", "properties": {"when": {"type": "object", "properties": {"from": {"type": "string"}}, "additionalProperties": true}}, "additionalProperties": false}`),
			"tools.1.custom: For 'object' type, 'additionalProperties: true' is not supported. Please set 'additionalProperties' to false"),
		Entry("a strict tool with a bounded integer in a union",
			strictTool(`{"type": "object", "properties": {"days": {"anyOf": [{"type": "integer", "minimum": 1, "maximum": 16}, {"type": "null"}]}}, "additionalProperties": false}`),
			"tools.1.custom: For 'integer' type, properties maximum, minimum are not supported"),
		Entry("a strict tool with a list of at most 3",
			strictTool(`{"type": "object", "properties": {"cities": {"type": "array", "items": {"type": "string"}, "maxItems": 3}}, "additionalProperties": false}`),
			"tools.1.custom: For 'array' type, property 'maxItems' is not supported"),
		Entry("a format with a lower bound", format(`{"type": "object", "properties": {"days": {"type": "integer", "minimum": 1}}, "additionalProperties": false}`),
			"output_config.format.schema: For 'integer' type, property 'minimum' is not supported"),
		Entry("a beta format with a number between bounds", `"output_format": {"type": "json_schema", "schema": {"type": "object", "properties": {"confidence": {"type": "number", "minimum": 0, "maximum": 1}}, "additionalProperties": false}}`,
			"output_format.schema: For 'number' type, properties maximum, minimum are not supported"),
		Entry("a format with a list of at least 2", format(`{"type": "object", "properties": {"cities": {"type": "array", "items": {"type": "string"}, "minItems": 2}}, "additionalProperties": false}`),
			"output_config.format.schema: For 'array' type, 'minItems' values other than 0 or 1 are not supported"),
	)

	DescribeTable("is taken within the subset, and from a tool that is not strict",
		func(extra string) {
			status, got := post(srv, "/v1/messages", messages(extra))
			Expect(status).To(Equal(http.StatusOK), "%v", got)
		},
		Entry("a strict tool closed throughout, beside a tool that is not strict with bounds", strictTool(strictWeather)),
		Entry("a strict tool with a list of at least 1", strictTool(`{"type": "object", "properties": {"cities": {"type": "array", "items": {"type": "string"}, "minItems": 1}}, "required": ["cities"], "additionalProperties": false}`)),
		Entry("a tool that is not strict, open and bounded", `"tools": [{"name": "get_weather", "strict": false, "input_schema": {"type": "object", "properties": {"cities": {"type": "array", "maxItems": 3}}}}]`),
		Entry("a format whose objects do not say additionalProperties", format(`{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}`)),
	)
})
