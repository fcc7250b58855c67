package standin_test

import (
	"fmt"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/standin"
)

// Schemas built to the size of strict mode's limits (OpenAI's
// structured-outputs guide: 10 levels of nesting, 5000 object properties,
// 120,000 characters of names and values, 1000 enum values, 15,000
// characters for a string enum of more than 250 values).

// object is an object schema holding inner as its one property, next: one
// level above inner.
func object(inner string) string {
	return `{"type": "object", "properties": {"next": ` + inner + `}, "required": ["next"], "additionalProperties": false}`
}

// list is an array of inner, one level above it.
func list(inner string) string { return `{"type": "array", "items": ` + inner + `}` }

// nullable is inner or null as anyOf, one level above inner.
func nullable(inner string) string { return `{"anyOf": [` + inner + `, {"type": "null"}]}` }

// leaf is the string the chains below end in.
const leaf = `{"type": "string"}`

// chain is n objects each holding the next, around leaf, under the root
// object: leaf is at level n+1.
func chain(n int) string {
	s := leaf
	for range n {
		s = object(s)
	}
	return object(s)
}

// mixed reaches level 11 through objects, arrays and anyOf branches: the
// root object (0), then three rounds of an array, an anyOf branch and an
// object, then an array (10) of strings (11).
func mixed() string {
	s := list(leaf)
	for range 3 {
		s = list(nullable(object(s)))
	}
	return object(s)
}

// throughDefs reaches level 11 through a definition: the root refers to
// $defs' step, the first (1) of 10 objects each holding the next (1 to
// 10), the last holding a string (11).
func throughDefs() string {
	s := leaf
	for range 10 {
		s = object(s)
	}
	return `{"type": "object", "properties": {"first": {"$ref": "#/$defs/step"}}, "required": ["first"], "additionalProperties": false, "$defs": {"step": ` + s + `}}`
}

// recursive refers to itself: a $ref is not followed, so it is as deep as
// it is written.
const recursive = `{"type": "object", "properties": {"value": {"type": "number"}, "next": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}},
	"required": ["value", "next"], "additionalProperties": false}`

// wide is an object of two objects holding a and b string properties:
// a+b+2 properties.
func wide(a, b int) string {
	props := func(prefix string, n int) string {
		names, quoted := make([]string, n), make([]string, n)
		for i := range n {
			names[i] = fmt.Sprintf(`"%s%04d": {"type": "string"}`, prefix, i)
			quoted[i] = fmt.Sprintf(`"%s%04d"`, prefix, i)
		}
		return `{"type": "object", "properties": {` + strings.Join(names, ", ") + `}, "required": [` + strings.Join(quoted, ", ") + `], "additionalProperties": false}`
	}
	return `{"type": "object", "properties": {"a": ` + props("a", a) + `, "b": ` + props("b", b) + `}, "required": ["a", "b"], "additionalProperties": false}`
}

// enums is an object of two string enums of a and b values, each value
// size characters long.
func enums(a, b, size int) string {
	values := func(prefix string, n int) string {
		v := make([]string, n)
		for i := range n {
			s := fmt.Sprintf("%s%d", prefix, i)
			v[i] = `"` + s + strings.Repeat("x", size-len(s)) + `"`
		}
		return `{"type": "string", "enum": [` + strings.Join(v, ", ") + `]}`
	}
	return `{"type": "object", "properties": {"tag": ` + values("t", a) + `, "kind": ` + values("k", b) + `}, "required": ["tag", "kind"], "additionalProperties": false}`
}

// longNames is an object of n properties whose names are size characters
// long.
func longNames(n, size int) string {
	props, names := make([]string, n), make([]string, n)
	for i := range n {
		name := fmt.Sprintf("%d", i)
		name += strings.Repeat("n", size-len(name))
		props[i], names[i] = `"`+name+`": {"type": "boolean"}`, `"`+name+`"`
	}
	return `{"type": "object", "properties": {` + strings.Join(props, ", ") + `}, "required": [` + strings.Join(names, ", ") + `], "additionalProperties": false}`
}

var _ = Describe("a strict schema (OpenAI's structured outputs) over strict mode's limits", func() {
	var srv *standin.Server
	BeforeEach(func() { srv = startStandin(standin.Options{}) })

	function := func(schema string) string {
		return `{"model": "gpt-4.1-mini", "messages": [` + user + `],
			"tools": [{"type": "function", "function": {"name": "file_report", "strict": true, "parameters": ` + schema + `}}]}`
	}
	format := func(schema string) string {
		return `{"model": "gpt-4.1-mini", "messages": [` + user + `],
			"response_format": {"type": "json_schema", "json_schema": {"name": "report", "strict": true, "schema": ` + schema + `}}}`
	}

	DescribeTable("Chat Completions: refused with 400, param and code as for the subset's other refusals",
		func(body, message string, param, code any) {
			status, got := post(srv, chatPath, body)
			Expect(status).To(Equal(http.StatusBadRequest), "%v", got)
			Expect(got).To(Equal(map[string]any{"error": map[string]any{
				"message": message, "type": "invalid_request_error", "param": param, "code": code}}))
		},
		Entry("11 objects deep", function(chain(10)),
			"Invalid schema for function 'file_report': 11 levels of nesting exceeds limit of 10.",
			"tools[0].function.parameters", "invalid_function_parameters"),
		Entry("11 levels through arrays and anyOf branches", format(mixed()),
			"Invalid schema for response_format 'report': 11 levels of nesting exceeds limit of 10.", "response_format", nil),
		Entry("11 levels through a definition", function(throughDefs()),
			"Invalid schema for function 'file_report': 11 levels of nesting exceeds limit of 10.",
			"tools[0].function.parameters", "invalid_function_parameters"),
		Entry("5002 properties in nested objects", function(wide(2600, 2400)),
			"Invalid schema for function 'file_report': 5002 parameters exceed the limit of 5000.",
			"tools[0].function.parameters", "invalid_function_parameters"),
		Entry("1001 enum values in two enums", format(enums(600, 401, 4)),
			"Invalid schema for response_format 'report': Expected at most 1000 enum values in total within a single schema when using structured outputs, but received 1001. "+
				"Consider reducing the number of enums, or use 'strict: false' to opt out of structured outputs.", "response_format", nil),
		Entry("a string enum of 251 values totalling 15,060 characters", format(enums(251, 1, 60)),
			"Invalid schema for response_format 'report': In context=('properties', 'tag'), the 251 values of a string enum of more than 250 values total 15060 characters, above the limit of 15000.",
			"response_format", nil),
		Entry("property names totalling 120,200 characters", function(longNames(200, 601)),
			"Invalid schema for function 'file_report': The property names, definition names, enum values and const values total 120200 characters, above the limit of 120000.",
			"tools[0].function.parameters", "invalid_function_parameters"),
	)

	DescribeTable("Responses API: refused with 400, param and code as for the subset's other refusals",
		func(body, message, param, code string) {
			resp, b := wirePost(srv, http.MethodPost, "/v1/responses", body)
			Expect(resp.StatusCode).To(Equal(http.StatusBadRequest), "body %s", b)
			e := openAIErrorOf(b)
			Expect(e.Type).To(Equal("invalid_request_error"))
			Expect(e.Message).To(Equal(message))
			Expect(e.Param).To(Equal(param))
			Expect(e.Code).To(Equal(code))
		},
		Entry("a function 11 objects deep", `{"model": "gpt-4.1-mini", "input": "hi",
			"tools": [{"type": "function", "name": "file_report", "strict": true, "parameters": `+chain(10)+`}]}`,
			"Invalid schema for function 'file_report': 11 levels of nesting exceeds limit of 10.", "tools[0].parameters", "invalid_function_parameters"),
		Entry("a text format of 5002 properties", `{"model": "gpt-4.1-mini", "input": "hi",
			"text": {"format": {"type": "json_schema", "name": "report", "strict": true, "schema": `+wide(2500, 2500)+`}}}`,
			"Invalid schema for response_format 'report': 5002 parameters exceed the limit of 5000.", "text.format.schema", "invalid_json_schema"),
	)

	DescribeTable("is taken at the limits, past them when not strict, and with a recursive $ref",
		func(path, body string) {
			resp, b := wirePost(srv, http.MethodPost, path, body)
			Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", b)
		},
		Entry("Chat: 10 objects deep", chatPath, function(chain(9))),
		Entry("Chat: 5000 properties", chatPath, function(wide(2500, 2498))),
		Entry("Chat: 1000 enum values", chatPath, format(enums(600, 400, 4))),
		Entry("Chat: a string enum of 250 values of 100 characters", chatPath, format(enums(250, 1, 100))),
		Entry("Chat: a recursive schema", chatPath, format(recursive)),
		Entry("Chat: 11 objects deep, not strict", chatPath, strings.Replace(function(chain(10)), `"strict": true`, `"strict": false`, 1)),
		Entry("Responses: 11 objects deep, strict not said", "/v1/responses", `{"model": "gpt-4.1-mini", "instructions": "`+echoPrompt+`", "input": "hi",
			"tools": [{"type": "function", "name": "file_report", "parameters": `+chain(10)+`}]}`),
	)
})
