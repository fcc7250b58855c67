package wire

import (
	"fmt"
	"unicode/utf8"
)

// Strict mode's limits: a schema within the subset can still be too big.
// OpenAI's structured-outputs guide ("Supported schemas",
// https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas)
// gives them: "A schema may have up to 5000 object properties total, with
// up to 10 levels of nesting."; "total string length of all property
// names, definition names, enum values, and const values cannot exceed
// 120,000 characters."; "up to 1000 enum values across all enum
// properties."; and "For a single enum property with string values, the
// total string length of all enum values cannot exceed 15,000 characters
// when there are more than 250 enum values." The limits are per schema:
// each strict function's parameters, the response format's schema.
const (
	strictMaxDepth       = 10
	strictMaxProperties  = 5000
	strictMaxChars       = 120_000
	strictMaxEnumValues  = 1000
	strictLongEnum       = 250
	strictMaxLongEnumLen = 15_000
)

// schemaTally is what strict mode's limits count in a schema.
type schemaTally struct {
	depth      int    // the deepest level (the root is 0)
	properties int    // keys of every properties, wherever it is
	chars      int    // characters of property and definition names, string enum and const values
	enums      int    // values of every enum
	path       []step // where the walk is; its length is the level (the root is 0)
	longEnum   string // the context of the first string enum of more than strictLongEnum values over strictMaxLongEnumLen
	longChars  int    // that enum's characters
	longValues int    // and its values
}

// strictLimit is the first of strict mode's limits schema v is over, as
// the API's message says it after the schema's name, or "", checked in
// the order below once the whole schema is counted. A level is a step
// from a schema into one it holds (a property's, items, an anyOf branch,
// a $defs or definitions entry), the root being level 0, as OpenAI's Java
// SDK counts them (openai/openai-java,
// JsonSchemaValidator.kt: "Current nesting depth is 11, but maximum is
// 10." for 11 objects each holding the next, the last holding a string).
// A $ref is not followed: a recursive schema is as deep as it is written.
// The API's words: "6 levels of nesting exceeds limit of 5." (the limit
// before 10, tidyverse/ellmer#671), "144 parameters exceed the limit of
// 100." (the limit before 5000, openai/openai-node#1176), "Expected at
// most 500 enum values in total within a single schema when using
// structured outputs, but received 520. Consider reducing the number of
// enums, or use 'strict: false' to opt out of structured outputs." (the
// limit before 1000, community.openai.com/t/974416). The total string
// length and the long enum are refused in the stand-in's words, the
// API's not having been seen.
func strictLimit(v any) string {
	var t schemaTally
	t.walk(v)
	switch {
	case t.depth > strictMaxDepth:
		return fmt.Sprintf("%d levels of nesting exceeds limit of %d.", t.depth, strictMaxDepth)
	case t.properties > strictMaxProperties:
		return fmt.Sprintf("%d parameters exceed the limit of %d.", t.properties, strictMaxProperties)
	case t.enums > strictMaxEnumValues:
		return fmt.Sprintf("Expected at most %d enum values in total within a single schema when using structured outputs, but received %d. "+
			"Consider reducing the number of enums, or use 'strict: false' to opt out of structured outputs.", strictMaxEnumValues, t.enums)
	case t.longEnum != "":
		return fmt.Sprintf("In context=%s, the %d values of a string enum of more than %d values total %d characters, above the limit of %d.",
			t.longEnum, t.longValues, strictLongEnum, t.longChars, strictMaxLongEnumLen)
	case t.chars > strictMaxChars:
		return fmt.Sprintf("The property names, definition names, enum values and const values total %d characters, above the limit of %d.",
			t.chars, strictMaxChars)
	}
	return ""
}

// walk counts the schema v found at t.path, and what it holds, into t.
func (t *schemaTally) walk(v any) {
	o, ok := v.(ordered)
	if !ok {
		return
	}
	t.depth = max(t.depth, len(t.path))
	for i, k := range o.keys {
		switch k {
		case "properties", "$defs", "definitions":
			inner, ok := o.vals[i].(ordered)
			if !ok {
				continue
			}
			for j, name := range inner.keys {
				if k == "properties" {
					t.properties++
				}
				t.chars += utf8.RuneCountInString(name)
				t.into(inner.vals[j], step{key: k, name: name})
			}
		case "items":
			t.into(o.vals[i], step{key: k, index: -1})
		case "anyOf":
			list, _ := o.vals[i].([]any)
			for j, s := range list {
				t.into(s, step{key: k, index: j})
			}
		case "enum":
			t.enum(o.vals[i])
		case "const":
			if s, ok := o.vals[i].(string); ok {
				t.chars += utf8.RuneCountInString(s)
			}
		}
	}
}

// into walks v, the schema one step s below t.path.
func (t *schemaTally) into(v any, s step) {
	t.path = append(t.path, s)
	t.walk(v)
	t.path = t.path[:len(t.path)-1]
}

// enum counts the values of list, the enum of the schema found at t.path,
// into t, and notes it when it is a string enum too long for its size.
func (t *schemaTally) enum(list any) {
	values, _ := list.([]any)
	t.enums += len(values)
	n, strings := 0, true
	for _, v := range values {
		s, ok := v.(string)
		if !ok {
			strings = false
			continue
		}
		n += utf8.RuneCountInString(s)
	}
	t.chars += n
	if strings && len(values) > strictLongEnum && n > strictMaxLongEnumLen && t.longEnum == "" {
		t.longEnum, t.longChars, t.longValues = t.context(), n, len(values)
	}
}

// step is one level down a schema: into a named entry of key (properties,
// $defs, definitions), into items (index -1), into anyOf's branch index.
type step struct {
	key, name string
	index     int
}

// context is t.path as the API's context gives it: ('properties',
// 'when'), ('anyOf', 0), ('items',).
func (t *schemaTally) context() string {
	path := []any{}
	for _, s := range t.path {
		path = append(path, s.key)
		switch {
		case s.name != "":
			path = append(path, s.name)
		case s.index >= 0:
			path = append(path, s.index)
		}
	}
	return context(path)
}
