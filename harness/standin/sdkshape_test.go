package standin_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// respField is a field's metadata in the official SDKs' decoded types
// (the Anthropic and OpenAI SDKs' respjson.Field): the raw JSON, "" when
// omitted and "null" for null, and whether the SDK could read it.
type respField interface {
	Raw() string
	Valid() bool
}

// sdkShapeProblems walks v, a value an official SDK (Anthropic's or
// OpenAI's, both generated the same way) decoded, and
// lists every field the JSON had that the SDK's type does not know (its
// JSON.ExtraFields), every field the type marks required that the JSON left
// out (null counts as present: OpenAI's API sends null for what it has
// nothing to say about), and every value the SDK could not read as its
// type. A union is checked as the variant it holds (AsAny). Fields named
// in differs are where recorded traffic and the SDK's types disagree: the
// API leaves them out though the type marks them required (Anthropic's
// does, for what it has nothing to say about), or sends them though the
// type lacks them (the Responses API's store and billing).
func sdkShapeProblems(v reflect.Value, path string, differs ...string) []string {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return sdkShapeProblems(v.Elem(), path, differs...)
	case reflect.Slice:
		var out []string
		for i := range v.Len() {
			out = append(out, sdkShapeProblems(v.Index(i), fmt.Sprintf("%s[%d]", path, i), differs...)...)
		}
		return out
	case reflect.Struct:
	default:
		return nil
	}
	if as := v.MethodByName("AsAny"); as.IsValid() && as.Type().NumIn() == 0 && as.Type().NumOut() == 1 {
		variant := as.Call(nil)[0]
		if variant.IsNil() {
			return []string{path + ": a variant the SDK does not know"}
		}
		return sdkShapeProblems(variant, path, differs...)
	}
	meta := v.FieldByName("JSON")
	if !meta.IsValid() || meta.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	if extra := meta.FieldByName("ExtraFields"); extra.IsValid() {
		for _, k := range extra.MapKeys() {
			if !slices.Contains(differs, k.String()) {
				out = append(out, path+"."+k.String()+": unknown to the SDK")
			}
		}
	}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Name == "JSON" || !f.IsExported() {
			continue
		}
		tag := strings.Split(f.Tag.Get("json"), ",")
		at := path + "." + tag[0]
		fm := meta.FieldByName(f.Name)
		if !fm.IsValid() {
			continue
		}
		field, ok := fm.Interface().(respField)
		if !ok {
			continue
		}
		required := strings.Contains(f.Tag.Get("api"), "required") || slices.Contains(tag[1:], "required")
		switch raw := field.Raw(); {
		case raw == "" && required && !slices.Contains(differs, tag[0]):
			out = append(out, at+": required by the SDK, missing")
		case raw != "" && raw != "null" && !field.Valid():
			out = append(out, at+": the SDK cannot read "+raw)
		case field.Valid():
			out = append(out, sdkShapeProblems(v.Field(i), at, differs...)...)
		}
	}
	slices.Sort(out)
	return out
}
