package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Strict schemas: OpenAI's structured outputs (a strict json_schema
// response format, a function tool with strict: true) take a subset of
// JSON Schema and refuse a schema outside it before the model sees the
// request, with 400 and "Invalid schema for response_format 'NAME': In
// context=(…), …" (or "for function 'NAME'"). Two rules trip most agents:
// every object must say additionalProperties: false, and its required must
// list every key of its properties (an optional field is written as a
// union with null instead). The root must be an object ("Invalid schema
// for function 'sendEmailTool': schema must be a JSON Schema of 'type:
// "object"', got 'type: "string"'.", alibaba/spring-ai-alibaba#4576), and
// no schema may compose others with allOf, oneOf, not, if/then/else or the
// dependent keywords ("Invalid schema for function
// 'notion__notion-update-page': In context=('properties', 'data'), 'allOf'
// is not permitted.", param tools[26].function.parameters, code
// invalid_function_parameters, makenotion/notion-mcp-server#102). The
// stand-in refuses such a schema in the API's words, so that a recording
// against it fails where a recording against OpenAI would, and one over
// the subset's limits (strict_limits.go). It does not check a schema sent
// to a model OpenAI does not serve (strictModel): the subset is OpenAI's,
// and an OpenAI-compatible server for another model holds a schema to its
// own rules or none (Ollama's compatibility layer reads no strict flag and
// takes the schema as given, ollama/ollama's openai/openai.go).

// openAIStrict names the models OpenAI's API serves, whose strict schemas
// it checks: GPT (not gpt-oss, whose weights others serve), ChatGPT, the
// o-series, Codex and computer use, and fine-tunes of them (ft:…); an
// Azure OpenAI deployment named after its model, as Azure's guides name
// them, is one too.
var openAIStrict = regexp.MustCompile(`^(ft:)?(gpt-|chatgpt-|o[1-9]([.-]|$)|codex-|computer-use)`)

// strictModel reports whether model is one of OpenAI's (openAIStrict), not
// another maker's behind an OpenAI-compatible API (Ollama's qwen3:14b,
// gpt-oss, a router's anthropic/claude-…), whose strict schemas the
// stand-in checks as OpenAI does.
func strictModel(model string) bool {
	m := strings.ToLower(model)
	return openAIStrict.MatchString(m) && !strings.HasPrefix(m, "gpt-oss")
}

// strictProblem is the first thing OpenAI's strict mode refuses in schema,
// as its message says it after the schema's name ("In context=('properties',
// 'when'), 'additionalProperties' is required to be supplied and to be
// false."), or "": a root that is not an object, an object that may hold
// more or leaves a property out of required, a composition keyword
// (strictUnsupported), then a schema over one of the subset's limits
// (strictLimit). Objects are checked before what they hold, and what they
// hold in the order the schema gives it; a schema that is not JSON is left
// to the rest of the request's reading.
func strictProblem(schema json.RawMessage) string {
	if len(bytes.TrimSpace(schema)) == 0 {
		return ""
	}
	v, err := orderedValue(json.NewDecoder(bytes.NewReader(schema)))
	if err != nil {
		return ""
	}
	if o, ok := v.(ordered); ok {
		if t, _ := o.get("type"); t != nil && t != "object" {
			if t, ok := t.(string); ok {
				return fmt.Sprintf(`schema must be a JSON Schema of 'type: "object"', got 'type: "%s"'.`, t)
			}
		}
	}
	if p := strictNode(v, nil); p != "" {
		return p
	}
	return strictLimit(v)
}

// schemas returns the refusal of a Responses request whose json_schema
// text.format has no name (the API requires it: "Missing required
// parameter: 'text.format.name'."), or whose strict function tool or
// strict json_schema text.format, for one of OpenAI's models
// (strictModel), is outside strict mode's subset (strictProblem), or nil.
func (rr responsesRequest) schemas() error {
	strict := strictModel(rr.Model)
	for i, t := range rr.Tools {
		if t.Type == "function" && isTrue(t.Strict) && strict {
			if p := strictProblem(t.Parameters); p != "" {
				return &invalid{msg: fmt.Sprintf("Invalid schema for function '%s': %s", t.Name, p),
					param: fmt.Sprintf("tools[%d].parameters", i), code: "invalid_function_parameters"}
			}
		}
	}
	if rr.Text == nil || len(rr.Text.Format) == 0 {
		return nil
	}
	var f struct {
		Type   string          `json:"type"`
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict *bool           `json:"strict"`
	}
	if json.Unmarshal(rr.Text.Format, &f) != nil || f.Type != "json_schema" {
		return nil
	}
	if f.Name == "" {
		return &invalid{msg: "Missing required parameter: 'text.format.name'.", param: "text.format.name", code: "missing_required_parameter"}
	}
	if !isTrue(f.Strict) || !strict {
		return nil
	}
	if p := strictProblem(f.Schema); p != "" {
		return &invalid{msg: fmt.Sprintf("Invalid schema for response_format '%s': %s", f.Name, p), param: "text.format.schema", code: "invalid_json_schema"}
	}
	return nil
}

// strictNode checks the schema v found at path, and what it holds, as
// OpenAI's strict mode does.
func strictNode(v any, path []any) string {
	return walkSchema(v, path, func(o ordered, path []any) string {
		if p := strictObject(o, path); p != "" {
			return p
		}
		for _, k := range o.keys {
			if slices.Contains(strictUnsupported, k) {
				return fmt.Sprintf("In context=%s, '%s' is not permitted.", context(path), k)
			}
		}
		return ""
	})
}

// strictUnsupported are the keywords strict mode does not permit in any
// schema: composition. allOf's refusal is quoted above, and oneOf's, which
// zod 4 writes for a discriminated union (strict mode takes anyOf): "Invalid
// schema for function 'create_event': In context=('properties',
// 'recurrence'), 'oneOf' is not permitted." (openai/openai-agents-js#1138;
// the same for a response_format, param response_format, code null, in
// openai/openai-node#1709). The rest, which OpenAI's structured-outputs
// guide lists beside them as not supported, are given the same words,
// their own not having been seen. (default, which
// the API refused in 2025, "In context=('properties', 'name'), 'default'
// is not permitted." in dotnet/extensions#6196, it takes since:
// openai/openai-agents-python#4390, tested by its maintainer against
// api.openai.com in 2026.)
var strictUnsupported = []string{"allOf", "oneOf", "not", "dependentRequired", "dependentSchemas", "if", "then", "else"}

// strictObject is what strict mode refuses in the object schema o found
// at path, or "" (also when o does not describe objects).
func strictObject(o ordered, path []any) string {
	if !o.isObjectSchema() {
		return ""
	}
	if ap, ok := o.get("additionalProperties"); !ok || ap != false {
		return fmt.Sprintf("In context=%s, 'additionalProperties' is required to be supplied and to be false.", context(path))
	}
	props, _ := o.get("properties")
	required, _ := o.get("required")
	list, _ := required.([]any)
	if p, ok := props.(ordered); ok {
		for _, k := range p.keys {
			if !slices.Contains(list, any(k)) {
				return fmt.Sprintf("In context=%s, 'required' is required to be supplied and to be an array including every key in properties. Missing '%s'.", context(path), k)
			}
		}
	}
	return ""
}

// walkSchema gives check the schema v found at path, then each schema it
// holds (properties, $defs, definitions, items, anyOf), depth first in the
// order the schema gives them, and returns the first problem check finds.
func walkSchema(v any, path []any, check func(o ordered, path []any) string) string {
	o, ok := v.(ordered)
	if !ok {
		return ""
	}
	if p := check(o, path); p != "" {
		return p
	}
	for i, k := range o.keys {
		switch k {
		case "properties", "$defs", "definitions":
			inner, ok := o.vals[i].(ordered)
			if !ok {
				continue
			}
			for j, name := range inner.keys {
				if p := walkSchema(inner.vals[j], append(slices.Clip(path), k, name), check); p != "" {
					return p
				}
			}
		case "items":
			if p := walkSchema(o.vals[i], append(slices.Clip(path), k), check); p != "" {
				return p
			}
		case "anyOf":
			list, _ := o.vals[i].([]any)
			for j, s := range list {
				if p := walkSchema(s, append(slices.Clip(path), k, j), check); p != "" {
					return p
				}
			}
		}
	}
	return ""
}

// context writes path as the API's message does, a Python tuple: (),
// ('items',), ('properties', 'when'), ('anyOf', 0).
func context(path []any) string {
	parts := make([]string, len(path))
	for i, p := range path {
		if n, ok := p.(int); ok {
			parts[i] = strconv.Itoa(n)
		} else {
			parts[i] = "'" + fmt.Sprint(p) + "'"
		}
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// ordered is a JSON object with its keys in the order it gave them.
type ordered struct {
	keys []string
	vals []any
}

// get is the value of key k, and whether o has it.
func (o ordered) get(k string) (any, bool) {
	if i := slices.Index(o.keys, k); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

// isObjectSchema reports whether o describes objects: its type is (or
// includes) object, or it has properties.
func (o ordered) isObjectSchema() bool {
	if _, ok := o.get("properties"); ok {
		return true
	}
	switch t, _ := o.get("type"); t := t.(type) {
	case string:
		return t == "object"
	case []any:
		return slices.Contains(t, any("object"))
	}
	return false
}

// orderedValue reads the next JSON value of d: an object as ordered, an
// array as []any, a number as json.Number, the rest as encoding/json does.
func orderedValue(d *json.Decoder) (any, error) {
	d.UseNumber()
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t {
	case json.Delim('{'):
		var o ordered
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return nil, err
			}
			v, err := orderedValue(d)
			if err != nil {
				return nil, err
			}
			o.keys, o.vals = append(o.keys, k.(string)), append(o.vals, v)
		}
		_, err := d.Token()
		return o, err
	case json.Delim('['):
		list := []any{}
		for d.More() {
			v, err := orderedValue(d)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err := d.Token()
		return list, err
	}
	return t, nil
}
