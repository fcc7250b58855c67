package family_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/agentreplay/testbed/agents/family"
)

// decodeJSON reads JSON text as jsonschema reads documents.
func decodeJSON(text []byte) any {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	Expect(err).NotTo(HaveOccurred())
	return v
}

// compileOnce compiles doc as the resource loc with one Compile, as the
// library's own documentation does.
func compileOnce(loc string, doc any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}

// leaves lists a validation error's deepest errors, each as "instance
// location: message", sorted: the validator meets an object's properties,
// and lists those an additionalProperties error names, in the order of Go
// maps, which varies from run to run (so these are sorted too).
func leaves(err error) []string {
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			k := e.ErrorKind
			if extra, ok := k.(*kind.AdditionalProperties); ok {
				k = &kind.AdditionalProperties{Properties: slices.Sorted(slices.Values(extra.Properties))}
			}
			out = append(out, fmt.Sprintf("/%s: %s", strings.Join(e.InstanceLocation, "/"), k))
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(err.(*jsonschema.ValidationError))
	slices.Sort(out)
	return out
}

var _ = Describe("compiling a schema definition by definition", func() {
	Describe("the Vega-Lite schema", Ordered, ContinueOnFailure, func() {
		var once, byDefinition *jsonschema.Schema

		BeforeAll(func() {
			text := fixture("vega-lite/v5.23.0.json")
			var err error
			once, err = compileOnce(family.VegaLiteSchema, decodeJSON(text))
			Expect(err).NotTo(HaveOccurred())
			byDefinition, err = family.CompileSchema(family.VegaLiteSchema, decodeJSON(text))
			Expect(err).NotTo(HaveOccurred())
		})

		charts, _ := filepath.Glob("testdata/charts/*.json")
		It("has charts to judge, valid and invalid", func() {
			Expect(charts).To(ContainElement(HaveSuffix("valid-pool-line.json")))
			Expect(charts).To(ContainElement(HaveSuffix("invalid-mark.json")))
		})
		for _, path := range charts {
			name := filepath.Base(path)
			It("gives "+name+" the verdict and the errors of one Compile", func() {
				text, err := os.ReadFile(path)
				Expect(err).NotTo(HaveOccurred())
				want := once.Validate(decodeJSON(text))
				got := byDefinition.Validate(decodeJSON(text))
				Expect(want == nil).To(Equal(strings.HasPrefix(name, "valid-")), "one Compile's verdict: %v", want)
				if want == nil {
					Expect(got).NotTo(HaveOccurred())
					return
				}
				Expect(got).To(HaveOccurred())
				Expect(leaves(got)).To(Equal(leaves(want)))
				Expect(family.SchemaProblems(got)).To(Equal(family.SchemaProblems(want)))
			})
		}
	})

	// tree is a draft-07 schema whose root is a $ref into definitions that
	// refer to each other in a cycle, with extra definitions as given.
	tree := func(extra string) string {
		return `{"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "#/definitions/Tree",
			"definitions": {
				"Tree": {"type": "object", "required": ["label"], "additionalProperties": false,
					"properties": {"label": {"$ref": "#/definitions/Label"},
						"kids": {"type": "array", "items": {"$ref": "#/definitions/Forest"}}}},
				"Forest": {"anyOf": [{"$ref": "#/definitions/Tree"}, {"$ref": "#/definitions/a~1b%3Cc%3E"}]},
				"a/b<c>": {"type": "string", "enum": ["leaf"]},
				"Label": {"type": "string", "minLength": 1}` + extra + `}}`
	}

	DescribeTable("gives the verdicts and errors of one Compile",
		func(schema string, instances ...string) {
			once, err := compileOnce("tree.json", decodeJSON([]byte(schema)))
			Expect(err).NotTo(HaveOccurred())
			byDefinition, err := family.CompileSchema("tree.json", decodeJSON([]byte(schema)))
			Expect(err).NotTo(HaveOccurred())
			for _, instance := range instances {
				want := once.Validate(decodeJSON([]byte(instance)))
				got := byDefinition.Validate(decodeJSON([]byte(instance)))
				if want == nil {
					Expect(got).NotTo(HaveOccurred(), instance)
					continue
				}
				Expect(got).To(HaveOccurred(), instance)
				Expect(leaves(got)).To(Equal(leaves(want)), instance)
			}
		},
		Entry("a root $ref into cyclic definitions, names with / and <", tree(""),
			`{"label": "root", "kids": [{"label": "kid", "kids": ["leaf"]}]}`,
			`{"label": "", "kids": [{"kids": ["twig"]}]}`, `{"label": "x", "colour": 1}`, `[]`),
		Entry("a definition nothing reaches, which does not compile",
			tree(`, "Broken": {"$ref": "#/definitions/Missing"}, "Data": {"enum": [{"$ref": "#/definitions/Broken"}]}`),
			`{"label": "root"}`, `{"label": 1}`),
		Entry("a root that is not a $ref (one Compile)",
			`{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"a": {"$ref": "#/definitions/A"}}, "definitions": {"A": {"type": "integer"}}}`,
			`{"a": 1}`, `{"a": "x"}`),
		Entry("a 2020-12 root $ref, whose siblings count (one Compile)",
			`{"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "#/$defs/A", "required": ["b"], "$defs": {"A": {"required": ["a"]}}}`,
			`{"a": 1, "b": 2}`, `{"a": 1}`, `{"b": 1}`),
	)

	It("fails as one Compile does on a definition the target reaches that does not compile", func() {
		schema := tree(`, "Label": {"$ref": "#/definitions/Missing"}`)
		schema = strings.Replace(schema, `"Label": {"type": "string", "minLength": 1}`, `"Unused": {}`, 1)
		_, err := compileOnce("tree.json", decodeJSON([]byte(schema)))
		Expect(err).To(HaveOccurred())
		_, err = family.CompileSchema("tree.json", decodeJSON([]byte(schema)))
		Expect(err).To(MatchError(ContainSubstring("Missing")))
	})
})
