package trim_test

import (
	"encoding/json"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/tools/txtar"
)

// trimmer is the signature shared by Listing, Inventory, Datasources and SeedDatasources.
type trimmer func(map[string]any) map[string]any

// archive reads testdata/name.
func archive(name string) *txtar.Archive {
	GinkgoHelper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", name))
	Expect(err).NotTo(HaveOccurred())
	return ar
}

// section returns the named file of ar, or nil.
func section(ar *txtar.Archive, name string) []byte {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}

// input decodes the input.json section of testdata/name, as encoding/json
// does by default (float64 numbers).
func input(name string) map[string]any {
	GinkgoHelper()
	var body map[string]any
	Expect(json.Unmarshal(section(archive(name), "input.json"), &body)).To(Succeed())
	return body
}

// golden compares got with the section want of testdata/name, or rewrites
// that section with -update.
func golden(name, want string, got []byte) {
	GinkgoHelper()
	path := filepath.Join("testdata", name)
	ar := archive(name)
	if *update {
		i := 0
		for i < len(ar.Files) && ar.Files[i].Name != want {
			i++
		}
		if i == len(ar.Files) {
			ar.Files = append(ar.Files, txtar.File{Name: want})
		}
		ar.Files[i].Data = got
		Expect(os.WriteFile(path, txtar.Format(ar), 0o644)).To(Succeed())
	}
	Expect(section(ar, want)).NotTo(BeNil(), "%s has no %s section; run: go test ./agents/climate/trim/ -update", path, want)
	Expect(string(got)).To(Equal(string(section(ar, want))),
		"%s differs from %s; if the change is intended, run: go test ./agents/climate/trim/ -update and review the diff", want, path)
}

// pretty marshals v as the golden files hold it.
func pretty(v any) []byte {
	GinkgoHelper()
	b, err := json.MarshalIndent(v, "", "  ")
	Expect(err).NotTo(HaveOccurred())
	return append(b, '\n')
}

// size is the length of v marshalled compactly, as a tool result would be.
func size(v any) int {
	GinkgoHelper()
	b, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	return len(b)
}

// deepCopy returns an independent copy of a decoded JSON value.
func deepCopy[T any](v T) T {
	GinkgoHelper()
	b, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	var c T
	Expect(json.Unmarshal(b, &c)).To(Succeed())
	return c
}

// scribble overwrites every value inside v, so that a test can tell whether
// v shares memory with something else.
func scribble(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			scribble(e)
			v[k] = "scribbled"
		}
	case []any:
		for i, e := range v {
			scribble(e)
			v[i] = "scribbled"
		}
	}
}

// walk calls fn for every key/value pair of every object inside v, at any depth.
func walk(v any, fn func(key string, value any)) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			fn(k, e)
			walk(e, fn)
		}
	case []any:
		for _, e := range v {
			walk(e, fn)
		}
	}
}

// keys returns every object key inside v, at any depth.
func keys(v any) map[string]bool {
	ks := map[string]bool{}
	walk(v, func(k string, _ any) { ks[k] = true })
	return ks
}

// blanks returns the keys inside v whose value is null, "", {} or [].
func blanks(v any) []string {
	var bs []string
	walk(v, func(k string, e any) {
		switch e := e.(type) {
		case nil:
			bs = append(bs, k)
		case string:
			if e == "" {
				bs = append(bs, k)
			}
		case map[string]any:
			if len(e) == 0 {
				bs = append(bs, k)
			}
		case []any:
			if len(e) == 0 {
				bs = append(bs, k)
			}
		}
	})
	return bs
}

// texts returns every string value inside v under one of the given keys, at any depth.
func texts(v any, under ...string) []string {
	var ts []string
	want := map[string]bool{}
	for _, k := range under {
		want[k] = true
	}
	walk(v, func(k string, e any) {
		if want[k] {
			walk(map[string]any{"": e}, func(_ string, s any) {
				if s, ok := s.(string); ok {
					ts = append(ts, s)
				}
			})
		}
	})
	return ts
}

// list returns body["data"] as a list of objects.
func list(body map[string]any) []map[string]any {
	GinkgoHelper()
	raw, ok := body["data"].([]any)
	Expect(ok).To(BeTrue(), "data is %T, not a list", body["data"])
	out := make([]map[string]any, len(raw))
	for i, e := range raw {
		out[i], ok = e.(map[string]any)
		Expect(ok).To(BeTrue(), "data[%d] is %T, not an object", i, e)
	}
	return out
}

// obj is shorthand for a JSON object in expectations.
type obj = map[string]any
