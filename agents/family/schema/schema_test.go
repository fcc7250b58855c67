package schema_test

import (
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/family/schema"
)

var _ = Describe("Infer", func() {
	DescribeTable("describes JSON values",
		func(in, want string) {
			Expect(compact(schema.Infer(decode(in)))).To(MatchJSON(rooted(want)))
		},
		Entry("null", `null`, `{"type":"null"}`),
		Entry("true", `true`, `{"type":"boolean"}`),
		Entry("false", `false`, `{"type":"boolean"}`),
		Entry("a string", `"pool"`, `{"type":"string"}`),
		Entry("an empty string", `""`, `{"type":"string"}`),
		Entry("zero", `0`, `{"type":"integer"}`),
		Entry("a negative integer", `-17`, `{"type":"integer"}`),
		Entry("an integral float, as float64 cannot tell", `2.0`, `{"type":"integer"}`),
		Entry("a large integral exponent", `1e300`, `{"type":"integer"}`),
		Entry("a fraction", `27.3`, `{"type":"number"}`),
		Entry("a small fraction", `-1e-9`, `{"type":"number"}`),

		Entry("an empty object", `{}`, `{"type":"object"}`),
		Entry("an object", `{"state":"on","level":3}`,
			`{"type":"object","properties":{"level":{"type":"integer"},"state":{"type":"string"}},"required":["level","state"]}`),
		Entry("an object with a null value, still required", `{"parent_id":null}`,
			`{"type":"object","properties":{"parent_id":{"type":"null"}},"required":["parent_id"]}`),
		Entry("nested objects", `{"attributes":{"unit":"°C","friendly":{"name":"Pool"}}}`,
			`{"type":"object","required":["attributes"],"properties":{"attributes":{"type":"object","required":["friendly","unit"],
			  "properties":{"unit":{"type":"string"},"friendly":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}}}}}`),

		Entry("an empty array, without items", `[]`, `{"type":"array"}`),
		Entry("an array of empty arrays", `[[],[]]`, `{"type":"array","items":{"type":"array"}}`),
		Entry("empty and non-empty arrays", `[[],["a"]]`, `{"type":"array","items":{"type":"array","items":{"type":"string"}}}`),
		Entry("an array of integers", `[1,2,3]`, `{"type":"array","items":{"type":"integer"}}`),
		Entry("integers and fractions make numbers", `[1,2.5,3]`, `{"type":"array","items":{"type":"number"}}`),
		Entry("fractions only", `[0.5,2.5]`, `{"type":"array","items":{"type":"number"}}`),
		Entry("strings and nulls", `["a",null,"b"]`, `{"type":"array","items":{"type":["null","string"]}}`),
		Entry("mixed scalars, sorted", `["a",true,null,1,2.5]`,
			`{"type":"array","items":{"type":["boolean","null","number","string"]}}`),
		Entry("integers stay integer next to other types", `[1,"a"]`, `{"type":"array","items":{"type":["integer","string"]}}`),

		Entry("required is computed over the elements", `[{"a":1,"b":"x"},{"a":2},{"a":3,"c":true}]`,
			`{"type":"array","items":{"type":"object","required":["a"],
			  "properties":{"a":{"type":"integer"},"b":{"type":"string"},"c":{"type":"boolean"}}}}`),
		Entry("no key in every element leaves required out", `[{"a":1},{"b":2}]`,
			`{"type":"array","items":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}}`),
		Entry("an empty object among others empties required", `[{"a":1},{}]`,
			`{"type":"array","items":{"type":"object","properties":{"a":{"type":"integer"}}}}`),
		Entry("optional keys and nullable values", `[{"user_id":null,"id":"x"},{"user_id":"u1","id":"y"},{"id":"z"}]`,
			`{"type":"array","items":{"type":"object","required":["id"],
			  "properties":{"id":{"type":"string"},"user_id":{"type":["null","string"]}}}}`),
		Entry("property types merge across elements", `[{"v":1},{"v":1.5},{"v":null}]`,
			`{"type":"array","items":{"type":"object","required":["v"],"properties":{"v":{"type":["null","number"]}}}}`),
		Entry("objects mixed with scalars: anyOf, the scalar types first", `[{"a":1},"s",null]`,
			`{"type":"array","items":{"anyOf":[{"type":["null","string"]},{"type":"object","required":["a"],"properties":{"a":{"type":"integer"}}}]}}`),
		Entry("arrays mixed with scalars: anyOf", `[[1],"s"]`,
			`{"type":"array","items":{"anyOf":[{"type":"string"},{"type":"array","items":{"type":"integer"}}]}}`),
		Entry("objects and arrays together, in the order first seen", `[[1],{"a":1},null]`,
			`{"type":"array","items":{"anyOf":[{"type":"null"},{"type":"array","items":{"type":"integer"}},{"type":"object","required":["a"],"properties":{"a":{"type":"integer"}}}]}}`),
		Entry("an empty object and an empty array say only their type", `[{},[],"s"]`,
			`{"type":"array","items":{"type":["array","object","string"]}}`),
		Entry("arrays nested in objects in arrays", `[{"states":[{"s":"1"}]},{"states":[{"s":"2","t":1}]},{"states":[]}]`,
			`{"type":"array","items":{"type":"object","required":["states"],"properties":{"states":{"type":"array",
			  "items":{"type":"object","required":["s"],"properties":{"s":{"type":"string"},"t":{"type":"integer"}}}}}}}`),
	)

	It("writes one type as a string and several as a sorted []string, with $schema at the root only", func() {
		Expect(schema.Infer("x")).To(Equal(map[string]any{"$schema": schema.URI, "type": "string"}))
		Expect(schema.Infer([]any{"x", nil, true})).To(Equal(map[string]any{
			"$schema": "http://json-schema.org/schema#",
			"type":    "array",
			"items":   map[string]any{"type": []string{"boolean", "null", "string"}},
		}))
		Expect(schema.Infer(map[string]any{"b": 1.0, "a": 2.0})["required"]).To(Equal([]string{"a", "b"}))
	})

	DescribeTable("reads json.Number as encoding/json's UseNumber leaves it",
		func(in, want string) {
			d := json.NewDecoder(strings.NewReader(in))
			d.UseNumber()
			var v any
			Expect(d.Decode(&v)).To(Succeed())
			Expect(compact(schema.Infer(v))).To(MatchJSON(rooted(want)))
		},
		Entry("integers", `[1, 20, -3]`, `{"type":"array","items":{"type":"integer"}}`),
		Entry("integers and fractions", `[1, 0.25]`, `{"type":"array","items":{"type":"number"}}`),
		Entry("an integral fraction is a number, as Python reads 2.0", `[2.0]`, `{"type":"array","items":{"type":"number"}}`),
		Entry("an exponent is a number, as Python reads 1e3", `[1e3]`, `{"type":"array","items":{"type":"number"}}`),
		Entry("a negative integer", `[-0]`, `{"type":"array","items":{"type":"integer"}}`),
		Entry("out of float64 range", `[1e400]`, `{"type":"array","items":{"type":"number"}}`),
	)

	DescribeTable("describes values of other Go types by the empty schema",
		func(v any) {
			Expect(schema.Infer(v)).To(BeEmpty())
		},
		Entry("an int", 3),
		Entry("a struct", struct{ A int }{1}),
		Entry("a typed slice", []string{"a"}),
		Entry("a malformed json.Number", json.Number("seven")),
	)

	It("follows deep nesting all the way down", func() {
		const depth = 2000
		in := strings.Repeat(`{"a":[`, depth) + `1.5` + strings.Repeat(`]}`, depth)
		s := schema.Infer(decode(in))
		for range depth {
			Expect(s).To(HaveKeyWithValue("type", "object"))
			Expect(s).To(HaveKeyWithValue("required", []string{"a"}))
			arr := s["properties"].(map[string]any)["a"].(map[string]any)
			Expect(arr).To(HaveKeyWithValue("type", "array"))
			s = arr["items"].(map[string]any)
		}
		Expect(s).To(Equal(map[string]any{"type": "number"}))
	})

	It("shares no memory with its input", func() {
		in := decode(`{"a":{"b":[1]}}`).(map[string]any)
		s := schema.Infer(in)
		s["properties"].(map[string]any)["a"].(map[string]any)["type"] = "changed"
		Expect(compact(in)).To(Equal(`{"a":{"b":[1]}}`))
	})
})

var _ = Describe("Merge", func() {
	DescribeTable("merges as if the instances were inferred together",
		func(a, b, want string) {
			got := schema.Merge(schema.Infer(decode(a)), schema.Infer(decode(b)))
			Expect(compact(got)).To(MatchJSON(rooted(want)))
			together := schema.Infer([]any{decode(a), decode(b)})["items"].(map[string]any)
			Expect(compact(got)).To(MatchJSON(compact(schema.Merge(together, nil))))
		},
		Entry("same scalar types", `"a"`, `"b"`, `{"type":"string"}`),
		Entry("different scalar types", `"a"`, `null`, `{"type":["null","string"]}`),
		Entry("integer into number", `1`, `1.5`, `{"type":"number"}`),
		Entry("number absorbs integer either way", `1.5`, `1`, `{"type":"number"}`),
		Entry("objects: required intersected, properties merged", `{"a":1,"b":"x"}`, `{"a":2.5,"c":null}`,
			`{"type":"object","required":["a"],"properties":{"a":{"type":"number"},"b":{"type":"string"},"c":{"type":"null"}}}`),
		Entry("an object and a non-object keep the object's required", `{"a":1}`, `"s"`,
			`{"anyOf":[{"type":"string"},{"type":"object","required":["a"],"properties":{"a":{"type":"integer"}}}]}`),
		Entry("a non-object and an object keep the object's required", `null`, `{"a":1}`,
			`{"anyOf":[{"type":"null"},{"type":"object","required":["a"],"properties":{"a":{"type":"integer"}}}]}`),
		Entry("an empty array and a full one", `[]`, `[{"x":1}]`,
			`{"type":"array","items":{"type":"object","required":["x"],"properties":{"x":{"type":"integer"}}}}`),
		Entry("two empty arrays", `[]`, `[]`, `{"type":"array"}`),
		Entry("nested arrays of objects", `{"e":[{"s":[{"v":"1"}]}]}`, `{"e":[{"s":[{"v":"2","w":1}]},{"s":[]}]}`,
			`{"type":"object","required":["e"],"properties":{"e":{"type":"array","items":{"type":"object","required":["s"],
			  "properties":{"s":{"type":"array","items":{"type":"object","required":["v"],"properties":{"v":{"type":"string"},"w":{"type":"integer"}}}}}}}}}`),
	)

	It("treats the empty schema as the identity", func() {
		s := schema.Infer(decode(`[{"a":1,"b":[null]},{"a":2}]`))
		Expect(schema.Merge(s, map[string]any{})).To(Equal(s))
		Expect(schema.Merge(map[string]any{}, s)).To(Equal(s))
		Expect(schema.Merge(nil, s)).To(Equal(s))
		Expect(schema.Merge(nil, nil)).To(BeEmpty())
	})

	It("reads schemas decoded from JSON", func() {
		a := object(`{"type":["null","object"],"required":["id","when"],"properties":{"id":{"type":"string"},"when":{"type":["integer","string"]}}}`)
		b := object(`{"type":"object","required":["id"],"properties":{"id":{"type":"string"},"n":{"type":"array","items":{"type":"number"}}}}`)
		Expect(compact(schema.Merge(a, b))).To(MatchJSON(rooted(`{"anyOf":[{"type":"null"},{"type":"object","required":["id"],"properties":{
			"id":{"type":"string"},"when":{"type":["integer","string"]},"n":{"type":"array","items":{"type":"number"}}}}]}`)))
		// and its own anyOf form back
		Expect(schema.Merge(schema.Merge(a, b), nil)).To(Equal(schema.Merge(a, b)))
	})

	It("drops keywords it does not write, and ones that do not apply to the type", func() {
		a := object(`{"type":"string","format":"date-time","properties":{"x":{"type":"string"}},"items":{"type":"string"},"required":["x"]}`)
		Expect(schema.Merge(a, nil)).To(Equal(map[string]any{"$schema": schema.URI, "type": "string"}))
	})

	It("modifies neither input and shares no memory with them", func() {
		a := schema.Infer(decode(`[{"a":1,"b":{"c":[1]}}]`))
		b := schema.Infer(decode(`[{"a":"x","b":{"d":null}}]`))
		wantA, wantB := compact(a), compact(b)
		m := schema.Merge(a, b)
		Expect(compact(a)).To(Equal(wantA))
		Expect(compact(b)).To(Equal(wantB))

		item := m["items"].(map[string]any)
		item["required"].([]string)[0] = "changed"
		item["properties"].(map[string]any)["b"].(map[string]any)["type"] = "changed"
		Expect(compact(a)).To(Equal(wantA))
		Expect(compact(b)).To(Equal(wantB))
	})
})
