package cassette

import (
	"bytes"
	"encoding/json"
	"net/url"
	"sort"
	"strings"
)

// secretParams are query parameters that carry credentials; they are
// redacted when recorded and ignored when matching.
var secretParams = []string{"key", "api_key", "apikey", "access_token", "token"}

// secretHeaders are request headers that carry credentials.
var secretHeaders = []string{"Authorization", "X-Api-Key", "X-Goog-Api-Key", "Api-Key", "Proxy-Authorization",
	"X-Service-Key", "X-CA-Service-Key"}

// Redacted replaces every secret in a recorded cassette.
const Redacted = "REDACTED"

// CanonicalURL drops secret query parameters and sorts the rest, so that a
// URL matches whatever key it was recorded with.
func CanonicalURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q := u.Query()
	for _, p := range secretParams {
		q.Del(p)
	}
	u.RawQuery = q.Encode()
	u.Fragment = ""
	return u.String()
}

// CanonicalBody returns body with JSON keys sorted, insignificant white space
// dropped and the named volatile top-level fields removed. A body that is not
// JSON is returned unchanged.
func CanonicalBody(body []byte, volatile []string) []byte {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return body
	}
	v, err := decodeJSON(trimmed)
	if err != nil {
		return body
	}
	if m, ok := v.(map[string]any); ok {
		for _, f := range volatile {
			delete(m, f)
		}
	}
	out, err := marshalCompact(v)
	if err != nil {
		return body
	}
	return out
}

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	// Anything after the value makes it not JSON. Decoder.More does not
	// report a stray "]" or "}", which would make `{}]` and `{}] x` the same.
	if off := dec.InputOffset(); len(bytes.TrimSpace(b[off:])) > 0 {
		return nil, &json.SyntaxError{Offset: off}
	}
	return v, nil
}

// marshalCompact marshals with sorted keys and without HTML escaping, so that
// prompts with "<" or "&" stay readable in diffs.
func marshalCompact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// redactURL replaces the values of secret query parameters.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q := u.Query()
	changed := false
	for _, p := range secretParams {
		if q.Has(p) {
			q.Set(p, Redacted)
			changed = true
		}
	}
	if !changed {
		return raw
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// isSecretHeader reports whether a header name carries credentials.
func isSecretHeader(name string) bool {
	for _, h := range secretHeaders {
		if strings.EqualFold(h, name) {
			return true
		}
	}
	return false
}
