package wire_test

// What output a request asks for, in every dialect that can ask for a
// JSON object: the trace's json and the span's gen_ai.output.type=json.

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/wire"
)

var _ = DescribeTable("a request asking for JSON output is read as asking for it, in every dialect that can",
	func(d wire.Dialect, path, body string, want bool) {
		r, err := wire.Decode(d, path, []byte(body))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.JSON).To(Equal(want))
	},
	Entry("Chat Completions: response_format json_object", wire.Chat, "/v1/chat/completions",
		`{"model": "m", "messages": [{"role": "user", "content": "tide as json?"}], "response_format": {"type": "json_object"}}`, true),
	Entry("Chat Completions: response_format json_schema", wire.Chat, "/v1/chat/completions",
		`{"model": "m", "messages": [{"role": "user", "content": "tide?"}], "response_format": {"type": "json_schema",
		"json_schema": {"name": "tide", "schema": {"type": "object"}}}}`, true),
	Entry("Chat Completions: response_format text", wire.Chat, "/v1/chat/completions",
		`{"model": "m", "messages": [{"role": "user", "content": "tide?"}], "response_format": {"type": "text"}}`, false),
	Entry("Responses: text.format json_object", wire.Responses, "/v1/responses",
		`{"model": "m", "input": "tide as json?", "text": {"format": {"type": "json_object"}}}`, true),
	Entry("Responses: text.format json_schema", wire.Responses, "/v1/responses",
		`{"model": "m", "input": "tide?", "text": {"format": {"type": "json_schema", "name": "tide", "schema": {"type": "object"}}}}`, true),
	Entry("Responses: text.format text", wire.Responses, "/v1/responses",
		`{"model": "m", "input": "tide?", "text": {"format": {"type": "text"}}}`, false),
	Entry("Gemini: responseMimeType application/json", wire.Gemini, gemini25,
		`{"contents": [{"role": "user", "parts": [{"text": "tide?"}]}], "generationConfig": {"responseMimeType": "application/json"}}`, true),
	Entry("Gemini: response_mime_type with a response_json_schema, by their snake_case names", wire.Gemini, gemini25,
		`{"contents": [{"role": "user", "parts": [{"text": "tide?"}]}], "generation_config": {"response_mime_type": "application/json",
		"response_json_schema": {"type": "object"}}}`, true),
	Entry("Gemini: responseSchema of an enum, text/x.enum", wire.Gemini, gemini25,
		`{"contents": [{"role": "user", "parts": [{"text": "tide?"}]}], "generationConfig": {"responseMimeType": "text/x.enum",
		"responseSchema": {"type": "STRING", "enum": ["high", "low"]}}}`, false),
	Entry("Anthropic: output_config.format json_schema", wire.Anthropic, "/v1/messages",
		`{"model": "m", "max_tokens": 100, "messages": [{"role": "user", "content": "tide?"}],
		"output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}}}`, true),
	Entry("Anthropic: the beta's output_format", wire.Anthropic, "/v1/messages",
		`{"model": "m", "max_tokens": 100, "messages": [{"role": "user", "content": "tide?"}],
		"output_format": {"type": "json_schema", "schema": {"type": "object"}}}`, true),
	Entry("Interactions: response_format with a JSON mime type", wire.Interactions, "/v1beta/interactions",
		`{"model": "gemini-2.5-flash", "input": "tide?", "response_format": {"type": "text", "mime_type": "application/json", "schema": {"type": "object"}}}`, true),
	Entry("Interactions: the older response_mime_type", wire.Interactions, "/v1beta/interactions",
		`{"model": "gemini-2.5-flash", "input": "tide?", "response_mime_type": "application/json"}`, true),
	Entry("Ollama: format json", wire.Ollama, "/api/chat",
		`{"model": "m", "messages": [{"role": "user", "content": "tide?"}], "format": "json"}`, true),
	Entry("Ollama: format a JSON Schema", wire.Ollama, "/api/chat",
		`{"model": "m", "messages": [{"role": "user", "content": "tide?"}], "format": {"type": "object"}}`, true),
)
