package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Anthropic's structured outputs (a JSON output_config.format, the beta's
// output_format, a tool with strict: true) compile the schema into a
// grammar and take a subset of JSON Schema: the API refuses a schema
// outside it with 400, naming the field and the type, as in
// "output_format.schema: For 'integer' type, property 'minimum' is not
// supported" (agentjido/req_llm#302), "output_format.schema: For 'number'
// type, properties maximum, minimum are not supported"
// (openstory-so/openstory#306), "tools.25.custom: For 'integer' type,
// properties maximum, minimum are not supported" (earendil-works/pi#9953),
// "tools.0.custom: For 'array' type, property 'maxItems' is not
// supported" (experientiallabs/experiential#804),
// "output_config.format.schema: For 'array' type, 'minItems' values other
// than 0 or 1 are not supported" (ghostlobster/memorize-everything#93) and,
// for a strict tool, "tools.0.custom: For 'object' type,
// 'additionalProperties' must be explicitly set to false"
// (vercel/ai#20681, Claude through Bedrock's Converse API). A strict
// tool's object that says additionalProperties: true is refused as a
// format's is: Bedrock's guide lists "additionalProperties set to anything
// other than false" as refused with 400 under strict (as quoted in
// strands-agents/harness-sdk#4181), and the words, "tools.2.custom: For
// 'object' type, 'additionalProperties: true' is not supported. Please set
// 'additionalProperties' to false", are a format's with the tool's field,
// as a public project's notes of the API's answers quote them (found by
// the code search here, which does not give their address). A tool that
// is not strict may carry these keywords: the API does not check its
// schema so (vercel/ai#14342).

// anthropicUnsupported are the keywords structured outputs refuse, by the
// type of the schema that carries them (minItems is refused apart, above
// 1): numeric bounds, string lengths, maxItems, as Anthropic's guide lists
// them. The words quoted above name minimum, maximum and maxItems; the
// others are given the same words, their own not having been seen.
var anthropicUnsupported = map[string][]string{
	"integer": {"exclusiveMaximum", "exclusiveMinimum", "maximum", "minimum", "multipleOf"},
	"number":  {"exclusiveMaximum", "exclusiveMinimum", "maximum", "minimum", "multipleOf"},
	"string":  {"maxLength", "minLength"},
	"array":   {"maxItems"},
}

// anthropicSchemas returns Anthropic's refusal of a strict tool's
// input_schema or a structured-output schema outside structured outputs'
// subset, or nil: the tools first, in their order, then the format.
func anthropicSchemas(ar anthropicRequest) error {
	for i, t := range ar.Tools {
		if isTrue(t.Strict) && len(t.InputSchema) > 0 {
			if p := anthropicSchemaProblem(fmt.Sprintf("tools.%d.custom", i), t.InputSchema, true); p != "" {
				return &invalid{msg: p}
			}
		}
	}
	if f, field := ar.format(); f != nil && len(f.Schema) > 0 {
		if p := anthropicSchemaProblem(field+".schema", f.Schema, false); p != "" {
			return &invalid{msg: p}
		}
	}
	return nil
}

// anthropicSchemaProblem is the API's refusal of schema, given in field
// (output_format.schema, tools.0.custom), or "": an object that says
// additionalProperties: true; in a strict tool's schema (tool), an object
// that does not say additionalProperties; a keyword its type does not
// take in structured outputs (anthropicUnsupported); a minItems other
// than 0 or 1. The first problem met, depth first in the schema's order,
// is the one refused; a schema that is not JSON is left to the rest of
// the request's reading.
func anthropicSchemaProblem(field string, schema json.RawMessage, tool bool) string {
	v, err := orderedValue(json.NewDecoder(bytes.NewReader(schema)))
	if err != nil {
		return ""
	}
	return walkSchema(v, nil, func(o ordered, _ []any) string {
		if o.isObjectSchema() {
			switch ap, ok := o.get("additionalProperties"); {
			case ap == true:
				return field + ": For 'object' type, 'additionalProperties: true' is not supported. Please set 'additionalProperties' to false"
			case !ok && tool:
				return field + ": For 'object' type, 'additionalProperties' must be explicitly set to false"
			}
			return ""
		}
		t, _ := o.get("type")
		typ, _ := t.(string)
		var found []string
		for _, k := range anthropicUnsupported[typ] {
			if _, ok := o.get(k); ok {
				found = append(found, k)
			}
		}
		switch len(found) {
		case 0:
		case 1:
			return fmt.Sprintf("%s: For '%s' type, property '%s' is not supported", field, typ, found[0])
		default:
			slices.Sort(found)
			return fmt.Sprintf("%s: For '%s' type, properties %s are not supported", field, typ, strings.Join(found, ", "))
		}
		if n, ok := o.get("minItems"); ok && typ == "array" && n != json.Number("0") && n != json.Number("1") {
			return field + ": For 'array' type, 'minItems' values other than 0 or 1 are not supported"
		}
		return ""
	})
}
