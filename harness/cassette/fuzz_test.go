package cassette_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/agentreplay/testbed/harness/cassette"
)

// FuzzCanonicalBody checks that CanonicalBody never panics, is idempotent,
// leaves what is not one JSON value unchanged, keeps the value of what is,
// drops the volatile top-level fields, and does not depend on key order or
// white space. The seed corpus is testdata/fuzz/FuzzCanonicalBody.
func FuzzCanonicalBody(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte, volatile string) {
		vol := strings.Split(volatile, ",")
		got := cassette.CanonicalBody(body, vol)
		if again := cassette.CanonicalBody(got, vol); !bytes.Equal(again, got) {
			t.Fatalf("not idempotent:\n%q\n→ %q\n→ %q", body, got, again)
		}
		v, ok := decodeOne(bytes.TrimSpace(body))
		if !ok {
			if !bytes.Equal(got, body) {
				t.Fatalf("not JSON %q was changed to %q", body, got)
			}
			return
		}
		want, _ := decodeOne(got)
		if m, isMap := v.(map[string]any); isMap {
			for _, k := range vol {
				delete(m, k)
			}
		}
		if !reflect.DeepEqual(want, v) {
			t.Fatalf("CanonicalBody(%q) = %q: the value changed", body, got)
		}
		// The same value written with keys in reverse order and spaces
		// everywhere canonicalizes the same way.
		var other bytes.Buffer
		writeReordered(&other, v)
		if alt := cassette.CanonicalBody(other.Bytes(), vol); !bytes.Equal(alt, got) {
			t.Fatalf("key order matters:\n%q → %q\n%q → %q", body, got, other.Bytes(), alt)
		}
	})
}

// decodeOne decodes b if it is exactly one JSON object or array.
func decodeOne(b []byte) (any, bool) {
	if len(b) == 0 || (b[0] != '{' && b[0] != '[') {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	if len(bytes.TrimSpace(b[dec.InputOffset():])) > 0 {
		return nil, false
	}
	return v, true
}

// writeReordered writes v as JSON with object keys in reverse order and
// white space around every token.
func writeReordered(w *bytes.Buffer, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Sort(sort.Reverse(sort.StringSlice(keys)))
		w.WriteString("{ ")
		for i, k := range keys {
			if i > 0 {
				w.WriteString(" ,\n ")
			}
			b, _ := json.Marshal(k)
			w.Write(b)
			w.WriteString(" :\t")
			writeReordered(w, x[k])
		}
		w.WriteString(" }")
	case []any:
		w.WriteString("[ ")
		for i, e := range x {
			if i > 0 {
				w.WriteString(" , ")
			}
			writeReordered(w, e)
		}
		w.WriteString(" ]")
	case json.Number:
		w.WriteString(string(x))
	default:
		b, _ := json.Marshal(x)
		w.Write(b)
	}
}

// FuzzCanonicalURL checks that CanonicalURL never panics, is idempotent,
// keeps no secret query parameter, and gives the same URL whatever key it
// was called with and whether that key was redacted.
func FuzzCanonicalURL(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw, key1, key2 string) {
		got := cassette.CanonicalURL(raw)
		if again := cassette.CanonicalURL(got); again != got {
			t.Fatalf("not idempotent: %q → %q → %q", raw, got, again)
		}
		u, err := url.Parse(raw)
		if err != nil {
			return
		}
		if q, err := url.ParseQuery(u.RawQuery); err == nil {
			if c, err := url.Parse(got); err == nil {
				for _, p := range []string{"key", "api_key", "apikey", "access_token", "token"} {
					if c.Query().Has(p) && q.Has(p) {
						t.Fatalf("CanonicalURL(%q) = %q keeps %s", raw, got, p)
					}
				}
			}
		}
		with := func(key string) string {
			v := *u
			q := v.Query()
			q.Set("key", key)
			v.RawQuery = q.Encode()
			return v.String()
		}
		a, b := cassette.CanonicalURL(with(key1)), cassette.CanonicalURL(with(key2))
		r := cassette.CanonicalURL(with(cassette.Redacted))
		if a != b || a != r {
			t.Fatalf("the key changes the canonical URL of %q: %q, %q, %q", raw, a, b, r)
		}
	})
}

// fuzzCassette is the on-disk form of a cassette, written without the
// package under test.
type fuzzCassette struct {
	Version      int               `yaml:"version"`
	Interactions []fuzzInteraction `yaml:"interactions"`
}

type fuzzInteraction struct {
	Request struct {
		Body   string `yaml:"body"`
		URL    string `yaml:"url"`
		Method string `yaml:"method"`
	} `yaml:"request"`
	Response struct {
		Body string `yaml:"body"`
		Code int    `yaml:"code"`
	} `yaml:"response"`
}

// FuzzReplayMatch records one interaction with body and checks that replay
// serves it to the same JSON written with other key order, white space and
// key, exactly once, and answers any other body with a stale-cassette miss
// that names the cassette.
func FuzzReplayMatch(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		if !utf8.Valid(body) || !yamlKeeps(string(body)) {
			// YAML, and so a cassette, holds text only, and yaml.v3 drops a
			// leading line break (it writes "\n0" as a |4- block, read back
			// as "0").
			return
		}
		const endpoint = "http://model.test/v1/chat/completions"
		var c fuzzCassette
		c.Version = cassette.FormatVersion
		c.Interactions = make([]fuzzInteraction, 1)
		c.Interactions[0].Request.Body = string(body)
		c.Interactions[0].Request.URL = endpoint + "?key=REDACTED"
		c.Interactions[0].Request.Method = http.MethodPost
		c.Interactions[0].Response.Body = "ok"
		c.Interactions[0].Response.Code = 200
		data, err := yaml.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}

		live := body
		if v, ok := decodeOne(bytes.TrimSpace(body)); ok {
			var b bytes.Buffer
			writeReordered(&b, v)
			live = b.Bytes()
		}
		open := func() cassette.Transport {
			rt, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{})
			if err != nil {
				t.Fatalf("open a cassette with body %q: %v", body, err)
			}
			return rt
		}
		send := func(rt cassette.Transport, b []byte) (string, error) {
			req, _ := http.NewRequest(http.MethodPost, endpoint+"?key=live-secret", bytes.NewReader(b))
			resp, err := rt.RoundTrip(req)
			if err != nil {
				return "", err
			}
			defer resp.Body.Close()
			out, _ := io.ReadAll(resp.Body)
			return string(out), nil
		}

		rt := open()
		if got, err := send(rt, live); err != nil || got != "ok" {
			t.Fatalf("recorded %q, sent %q: %q, %v", body, live, got, err)
		}
		_, err = send(rt, live)
		if !errors.Is(err, cassette.ErrStale) || !strings.Contains(err.Error(), path) {
			t.Fatalf("a second identical request got %v, want a stale miss naming %s", err, path)
		}

		other := append(slices.Clone(body), " x"...)
		if v, ok := decodeOne(bytes.TrimSpace(body)); ok {
			other, _ = json.Marshal([]any{v, "x"})
		}
		_, err = send(open(), other)
		if !errors.Is(err, cassette.ErrStale) || !strings.Contains(err.Error(), path) {
			t.Fatalf("recorded %q, sent %q: got %v, want a stale miss naming %s", body, other, err, path)
		}
	})
}

// yamlKeeps reports whether s survives a YAML round trip.
func yamlKeeps(s string) bool {
	b, err := yaml.Marshal(s)
	if err != nil {
		return false
	}
	var back string
	return yaml.Unmarshal(b, &back) == nil && back == s
}

// FuzzParseScalar checks the fast cassette reader against yaml.v3 on any one
// line of scalar given as a request body: when the fast reader reads the
// cassette, yaml.v3 reads the same. The seed corpus is
// testdata/fuzz/FuzzParseScalar.
func FuzzParseScalar(f *testing.F) {
	for _, s := range []string{`"{\"q\":1}"`, `"\x41\u00e9\U0001F914"`, `"\q"`, `'it''s'`, `plain text`, `"a" b`, `"\"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, scalar string) {
		if strings.ContainsAny(scalar, "\r\n") {
			return // another line is another cassette layout
		}
		got, want, ok, err := cassette.ParseBoth([]byte(withBody(scalar)))
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("the fast reader read body %q, yaml.v3 refuses it: %v", scalar, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("body %q: the fast reader and yaml.v3 disagree", scalar)
		}
	})
}

// FuzzFastReader is the differential fuzz of the fast cassette reader
// against yaml.v3: whatever the fast reader accepts, yaml.v3 must accept
// and read the same way. Seeds are a recorded cassette, two committed ones
// and the example's (whose provenance names the generic policy), and one
// in go-vcr v4's layout (its extra keys, sequences at their key's indent);
// the fuzzer mutates them.
func FuzzFastReader(f *testing.F) {
	f.Add([]byte(recorded))
	f.Add([]byte(govcr4))
	for _, p := range []string{"cassettes/odbchat/single-pass/ac1-taiwan-sst.yaml", "cassettes/climate/trimmed/datasources-rio.yaml",
		"cassettes/climate/streaming/knowledge-gwp.yaml", "examples/weather-ts/cassettes/weather-ts/default/no-tool-needed.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(p)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, want, ok, err := cassette.ParseBoth(data)
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("the fast reader accepted what yaml.v3 rejects (%v):\n%q", err, data)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("the fast reader read differently from yaml.v3:\n%q", data)
		}
	})
}
