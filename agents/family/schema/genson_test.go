package schema_test

import (
	"bytes"
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/tools/txtar"

	"github.com/agentreplay/testbed/agents/family/schema"
)

var _ = Describe("genson's output, written by hand", func() {
	ar, err := txtar.ParseFile("testdata/genson.txtar")
	if err != nil {
		panic(err)
	}
	want := map[string][]byte{}
	for _, f := range ar.Files {
		want[f.Name] = f.Data
	}
	for _, f := range ar.Files {
		name, ok := strings.CutSuffix(f.Name, ".json")
		if !ok || strings.HasSuffix(name, ".schema") {
			continue
		}
		It("matches genson for "+name, func() {
			d := json.NewDecoder(bytes.NewReader(f.Data))
			d.UseNumber()
			var v any
			Expect(d.Decode(&v)).To(Succeed())
			expected, ok := want[name+".schema.json"]
			Expect(ok).To(BeTrue(), "testdata/genson.txtar has no %s.schema.json", name)
			Expect(compact(schema.Infer(v))).To(MatchJSON(expected))
		})
	}
})
