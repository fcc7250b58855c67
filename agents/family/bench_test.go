package family_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentreplay/testbed/agents/family"
)

// BenchmarkVegaLiteCompile decodes and compiles the Vega-Lite schema the
// chart tool checks specs against, with one Compile of the whole schema and
// as the tool does, definition by definition.
func BenchmarkVegaLiteCompile(b *testing.B) {
	text, err := os.ReadFile("../../fixtures/family/" + family.VegaLiteSchema)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		compile func(loc string, doc any) (*jsonschema.Schema, error)
	}{{"one-compile", compileOnce}, {"by-definition", family.CompileSchema}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := c.compile(family.VegaLiteSchema, doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
