package schema_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/tools/txtar"
)

// decode parses JSON text as encoding/json does by default (float64 numbers).
func decode(s string) any {
	GinkgoHelper()
	var v any
	Expect(json.Unmarshal([]byte(s), &v)).To(Succeed(), "test input %q", s)
	return v
}

// object parses a JSON object.
func object(s string) map[string]any {
	GinkgoHelper()
	m, ok := decode(s).(map[string]any)
	Expect(ok).To(BeTrue(), "%s is not an object", s)
	return m
}

// compact marshals v as one line.
func compact(v any) string {
	GinkgoHelper()
	b, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

// pretty marshals v as the golden files hold it.
func pretty(v any) []byte {
	GinkgoHelper()
	b, err := json.MarshalIndent(v, "", "  ")
	Expect(err).NotTo(HaveOccurred())
	return append(b, '\n')
}

// golden compares got with the section name of the txtar file testdata/file,
// or, with -update, writes got there (creating the file if need be).
func golden(file, name string, got []byte) {
	GinkgoHelper()
	path := filepath.Join("testdata", file)
	ar, err := txtar.ParseFile(path)
	if errors.Is(err, fs.ErrNotExist) && *update {
		ar, err = &txtar.Archive{Comment: []byte("Golden output, written by: go test ./agents/family/schema/ -update\n")}, nil
	}
	Expect(err).NotTo(HaveOccurred(), "run: go test ./agents/family/schema/ -update")
	i := 0
	for i < len(ar.Files) && ar.Files[i].Name != name {
		i++
	}
	if *update {
		if i == len(ar.Files) {
			ar.Files = append(ar.Files, txtar.File{Name: name})
		}
		ar.Files[i].Data = got
		Expect(os.WriteFile(path, txtar.Format(ar), 0o644)).To(Succeed())
	}
	Expect(i).To(BeNumerically("<", len(ar.Files)), "%s has no section %s; run: go test ./agents/family/schema/ -update", path, name)
	Expect(string(got)).To(Equal(string(ar.Files[i].Data)),
		"%s differs from %s; if the change is intended, run: go test ./agents/family/schema/ -update and review the diff", name, path)
}

// rooted is want, a schema as JSON, with genson's "$schema" at its root.
func rooted(want string) string {
	GinkgoHelper()
	s := object(want)
	s["$schema"] = "http://json-schema.org/schema#"
	return compact(s)
}
