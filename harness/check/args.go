package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/harness/trace"
)

// defaultTolerance is the numeric tolerance of an args check when the
// scenario sets none.
const defaultTolerance = 1e-6

// anyOf is the key of the acceptable-values form {any_of: [v1, v2]}.
const anyOf = "any_of"

// checkArgs matches want against the arguments of the first executed tool.
// checkArgs matches want against the arguments of the first call of tool,
// or of the first tool executed when tool is "".
func checkArgs(want map[string]any, tol float64, tool string, events []trace.Event) string {
	var call *trace.ToolCall
	for _, e := range events {
		if e.Kind == trace.KindTool && e.Tool != nil && (tool == "" || e.Tool.Name == tool) {
			call = e.Tool
			break
		}
	}
	if call == nil && tool != "" {
		return fmt.Sprintf("want a call of %s with arguments, got none", tool)
	}
	if call == nil {
		return "want a tool call with arguments, got no tool executed"
	}
	raw := bytes.TrimSpace(call.Args)
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var got any
	if err := dec.Decode(&got); err != nil {
		return fmt.Sprintf("arguments of %s are not JSON: %v", call.Name, err)
	}
	if tol <= 0 {
		tol = defaultTolerance
	}
	if d := match("", want, got, tol); d != "" {
		return fmt.Sprintf("%s (arguments of %s)", d, call.Name)
	}
	return ""
}

// match reports the first place where got does not match want, as
// "/json/pointer: want …, got …", or "" when it matches. Maps match as
// subsets, lists element-wise, numbers within tol, and {any_of: [...]} when
// any of its values matches.
func match(path string, want, got any, tol float64) string {
	want = plain(want)
	at := path
	if at == "" {
		at = "/"
	}
	if alts, ok := anyOfValues(want); ok {
		for _, a := range alts {
			if match(path, a, got, tol) == "" {
				return ""
			}
		}
		return fmt.Sprintf("%s: want any of %s, got %s", at, show(alts), show(got))
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: want an object, got %s", at, show(got))
		}
		for _, k := range slices.Sorted(maps.Keys(w)) {
			p := path + "/" + escapePointer(k)
			gv, ok := g[k]
			if !ok {
				return fmt.Sprintf("%s: want %s, got no such key", p, show(w[k]))
			}
			if d := match(p, w[k], gv, tol); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("%s: want a list, got %s", at, show(got))
		}
		if len(g) != len(w) {
			return fmt.Sprintf("%s: want %d elements, got %d: %s", at, len(w), len(g), show(got))
		}
		for i := range w {
			if d := match(path+"/"+strconv.Itoa(i), w[i], g[i], tol); d != "" {
				return d
			}
		}
		return ""
	case nil:
		if got != nil {
			return fmt.Sprintf("%s: want null, got %s", at, show(got))
		}
		return ""
	}
	if wn, ok := number(want); ok {
		gn, ok := number(got)
		if !ok || math.IsNaN(wn) || math.IsNaN(gn) || !(math.Abs(wn-gn) <= tol || wn == gn) {
			return fmt.Sprintf("%s: want %s, got %s", at, show(want), show(got))
		}
		return ""
	}
	if want != got {
		return fmt.Sprintf("%s: want %s, got %s", at, show(want), show(got))
	}
	return ""
}

// anyOfValues recognises {any_of: [v1, v2, …]}.
func anyOfValues(v any) ([]any, bool) {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return nil, false
	}
	alts, ok := plain(m[anyOf]).([]any)
	return alts, ok
}

// plain converts the shapes a YAML or JSON decoder may produce for an
// expected value (typed maps and slices, map[any]any) to map[string]any and
// []any, leaving scalars alone.
func plain(v any) any {
	switch v.(type) {
	case nil, map[string]any, []any, string, bool, json.Number:
		return v
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map:
		m := make(map[string]any, rv.Len())
		it := rv.MapRange()
		for it.Next() {
			m[fmt.Sprint(it.Key().Interface())] = it.Value().Interface()
		}
		return m
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return []any{}
		}
		s := make([]any, rv.Len())
		for i := range s {
			s[i] = rv.Index(i).Interface()
		}
		return s
	}
	return v
}

// number converts any Go or JSON number to float64.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(n), 64)
		return f, err == nil
	case float64:
		return n, true
	case float32:
		return float64(n), true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(rv.Uint()), true
	}
	return 0, false
}

// escapePointer escapes a key for a JSON pointer (RFC 6901).
func escapePointer(k string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}

// show formats a value as compact JSON, cut to 80 characters.
func show(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return clip(string(b), 80)
}

// clip cuts s to at most n runes, marking the cut with "…".
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
