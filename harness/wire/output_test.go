package wire_test

// What output a request asks for, in every dialect that can ask for one:
// the trace's output_type and the span's gen_ai.output.type (text, json,
// image or speech, the conventions' values), stated only when the request
// asks by name.

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/wire"
)

const tide = `{"model": "m", "messages": [{"role": "user", "content": "tide?"}]`

var _ = DescribeTable("a request asking for an output is read as asking for it, in every dialect that can",
	func(d wire.Dialect, path, body string, want llm.Output) {
		r, err := wire.Decode(d, path, []byte(body))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Output).To(Equal(want))
	},
	Entry("Chat Completions: no response_format, no modalities", wire.Chat, "/v1/chat/completions", tide+`}`, llm.Output("")),
	Entry("Chat Completions: response_format json_object", wire.Chat, "/v1/chat/completions",
		tide+`, "response_format": {"type": "json_object"}}`, llm.OutputJSON),
	Entry("Chat Completions: response_format json_schema", wire.Chat, "/v1/chat/completions",
		tide+`, "response_format": {"type": "json_schema", "json_schema": {"name": "tide", "schema": {"type": "object"}}}}`, llm.OutputJSON),
	Entry("Chat Completions: response_format text", wire.Chat, "/v1/chat/completions",
		tide+`, "response_format": {"type": "text"}}`, llm.OutputText),
	Entry("Chat Completions: modalities text", wire.Chat, "/v1/chat/completions", tide+`, "modalities": ["text"]}`, llm.OutputText),
	Entry("Chat Completions: modalities text and audio, the only way to ask for audio: speech, text being every answer's", wire.Chat, "/v1/chat/completions",
		tide+`, "modalities": ["text", "audio"], "audio": {"voice": "alloy", "format": "wav"}}`, llm.OutputSpeech),
	Entry("Chat Completions: JSON with audio: JSON", wire.Chat, "/v1/chat/completions",
		tide+`, "modalities": ["text", "audio"], "response_format": {"type": "json_object"}}`, llm.OutputJSON),

	Entry("Responses: no text.format", wire.Responses, "/v1/responses", `{"model": "m", "input": "tide?"}`, llm.Output("")),
	Entry("Responses: text.format json_object", wire.Responses, "/v1/responses",
		`{"model": "m", "input": "tide as json?", "text": {"format": {"type": "json_object"}}}`, llm.OutputJSON),
	Entry("Responses: text.format json_schema", wire.Responses, "/v1/responses",
		`{"model": "m", "input": "tide?", "text": {"format": {"type": "json_schema", "name": "tide", "schema": {"type": "object"}}}}`, llm.OutputJSON),
	Entry("Responses: text.format text", wire.Responses, "/v1/responses",
		`{"model": "m", "input": "tide?", "text": {"format": {"type": "text"}}}`, llm.OutputText),
	Entry("Responses: the image_generation tool is a tool, not an output asked for", wire.Responses, "/v1/responses",
		`{"model": "m", "input": "draw the tide", "tools": [{"type": "image_generation"}]}`, llm.Output("")),

	Entry("Gemini: no generationConfig", wire.Gemini, gemini25, `{"contents": [{"role": "user", "parts": [{"text": "tide?"}]}]}`, llm.Output("")),
	Entry("Gemini: responseMimeType application/json", wire.Gemini, gemini25,
		`{"contents": [{"role": "user", "parts": [{"text": "tide?"}]}], "generationConfig": {"responseMimeType": "application/json"}}`, llm.OutputJSON),
	Entry("Gemini: response_mime_type with a response_json_schema, by their snake_case names", wire.Gemini, gemini25,
		`{"contents": [{"role": "user", "parts": [{"text": "tide?"}]}], "generation_config": {"response_mime_type": "application/json",
		"response_json_schema": {"type": "object"}}}`, llm.OutputJSON),
	Entry("Gemini: responseMimeType text/plain", wire.Gemini, gemini25,
		`{"contents": [{"role": "user", "parts": [{"text": "tide?"}]}], "generationConfig": {"responseMimeType": "text/plain"}}`, llm.OutputText),
	Entry("Gemini: responseSchema of an enum, text/x.enum: the enum's value as plain text", wire.Gemini, gemini25,
		`{"contents": [{"role": "user", "parts": [{"text": "tide?"}]}], "generationConfig": {"responseMimeType": "text/x.enum",
		"responseSchema": {"type": "STRING", "enum": ["high", "low"]}}}`, llm.OutputText),
	Entry("Gemini: a responseJsonSchema without its MIME type, which the API applies only with application/json", wire.Gemini, gemini25,
		`{"contents": [{"role": "user", "parts": [{"text": "tide?"}]}], "generationConfig": {"responseJsonSchema": {"type": "object"}}}`, llm.Output("")),
	Entry("Gemini: responseModalities TEXT", wire.Gemini, gemini25,
		`{"contents": [{"role": "user", "parts": [{"text": "tide?"}]}], "generationConfig": {"responseModalities": ["TEXT"]}}`, llm.OutputText),
	Entry("Gemini: responseModalities TEXT and IMAGE: image", wire.Gemini, "/v1beta/models/gemini-2.5-flash-image:generateContent",
		`{"contents": [{"role": "user", "parts": [{"text": "draw the tide"}]}], "generationConfig": {"responseModalities": ["TEXT", "IMAGE"]}}`, llm.OutputImage),
	Entry("Gemini: response_modalities AUDIO, by its snake_case name", wire.Gemini, "/v1beta/models/gemini-2.5-flash-preview-tts:generateContent",
		`{"contents": [{"role": "user", "parts": [{"text": "say the tide"}]}], "generation_config": {"response_modalities": ["AUDIO"]}}`, llm.OutputSpeech),
	Entry("Gemini: IMAGE and AUDIO, which one value cannot name: none", wire.Gemini, gemini25,
		`{"contents": [{"role": "user", "parts": [{"text": "tide?"}]}], "generationConfig": {"responseModalities": ["IMAGE", "AUDIO"]}}`, llm.Output("")),
	Entry("Gemini: JSON with TEXT: JSON", wire.Gemini, gemini25,
		`{"contents": [{"role": "user", "parts": [{"text": "tide?"}]}], "generationConfig": {"responseMimeType": "application/json", "responseModalities": ["TEXT"]}}`, llm.OutputJSON),

	Entry("Anthropic: nothing asked", wire.Anthropic, "/v1/messages",
		`{"model": "m", "max_tokens": 100, "messages": [{"role": "user", "content": "tide?"}]}`, llm.Output("")),
	Entry("Anthropic: output_config.format json_schema", wire.Anthropic, "/v1/messages",
		`{"model": "m", "max_tokens": 100, "messages": [{"role": "user", "content": "tide?"}],
		"output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}}}`, llm.OutputJSON),
	Entry("Anthropic: the beta's output_format", wire.Anthropic, "/v1/messages",
		`{"model": "m", "max_tokens": 100, "messages": [{"role": "user", "content": "tide?"}],
		"output_format": {"type": "json_schema", "schema": {"type": "object"}}}`, llm.OutputJSON),

	Entry("Interactions: response_format with a JSON mime type", wire.Interactions, "/v1beta/interactions",
		`{"model": "gemini-2.5-flash", "input": "tide?", "response_format": {"type": "text", "mime_type": "application/json", "schema": {"type": "object"}}}`, llm.OutputJSON),
	Entry("Interactions: the older response_mime_type", wire.Interactions, "/v1beta/interactions",
		`{"model": "gemini-2.5-flash", "input": "tide?", "response_mime_type": "application/json"}`, llm.OutputJSON),
	Entry("Interactions: a text format", wire.Interactions, "/v1beta/interactions",
		`{"model": "gemini-2.5-flash", "input": "tide?", "response_format": {"type": "text"}}`, llm.OutputText),
	Entry("Interactions: formats text and image: image", wire.Interactions, "/v1beta/interactions",
		`{"model": "gemini-2.5-flash-image", "input": "draw the tide", "response_format": [{"type": "text"}, {"type": "image"}]}`, llm.OutputImage),
	Entry("Interactions: an audio format", wire.Interactions, "/v1beta/interactions",
		`{"model": "gemini-2.5-flash-preview-tts", "input": "say the tide", "response_format": {"type": "audio"}}`, llm.OutputSpeech),
	Entry("Interactions: response_modalities image", wire.Interactions, "/v1beta/interactions",
		`{"model": "gemini-2.5-flash-image", "input": "draw the tide", "response_modalities": ["image"]}`, llm.OutputImage),
	Entry("Interactions: a video format, which the conventions have no value for: none", wire.Interactions, "/v1beta/interactions",
		`{"model": "m", "input": "film the tide", "response_format": {"type": "video"}}`, llm.Output("")),

	Entry("Ollama: format json", wire.Ollama, "/api/chat", tide+`, "format": "json"}`, llm.OutputJSON),
	Entry("Ollama: format a JSON Schema", wire.Ollama, "/api/chat", tide+`, "format": {"type": "object"}}`, llm.OutputJSON),
)
