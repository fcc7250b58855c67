package standin_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/packages/respjson"
)

// sdkShapeProblems walks v, a value an official SDK decoded (Anthropic's or
// OpenAI's: their respjson packages are alike), and
// lists every field the JSON had that the SDK's type does not know (its
// JSON.ExtraFields), every field the type marks required that the JSON left
// out (null counts as present: the API sends null for what it has nothing
// to say about), and every value the SDK could not read as its type. A
// union is checked as the variant it holds (AsAny).
func sdkShapeProblems(v reflect.Value, path string) []string {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return sdkShapeProblems(v.Elem(), path)
	case reflect.Slice:
		var out []string
		for i := range v.Len() {
			out = append(out, sdkShapeProblems(v.Index(i), fmt.Sprintf("%s[%d]", path, i))...)
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
		return sdkShapeProblems(variant, path)
	}
	meta := v.FieldByName("JSON")
	if !meta.IsValid() || meta.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	if extra := meta.FieldByName("ExtraFields"); extra.IsValid() {
		for _, k := range extra.MapKeys() {
			out = append(out, path+"."+k.String()+": unknown to the SDK")
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
		field, ok := fm.Interface().(interface {
			Raw() string
			Valid() bool
		})
		if !ok {
			continue
		}
		required := strings.Contains(f.Tag.Get("api"), "required") || slices.Contains(tag[1:], "required")
		switch raw := field.Raw(); {
		case raw == respjson.Omitted && required:
			out = append(out, at+": required by the SDK, missing")
		case raw != respjson.Omitted && raw != respjson.Null && !field.Valid():
			out = append(out, at+": the SDK cannot read "+raw)
		case field.Valid():
			out = append(out, sdkShapeProblems(v.Field(i), at)...)
		}
	}
	slices.Sort(out)
	return out
}
