package standin_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"

	. "github.com/onsi/gomega"
)

// keyPaths lists the paths of every key in the JSON text doc, array
// elements as [] (content[].type), sorted and without repeats: two
// documents of the same shape have the same paths whatever their values.
// What is under a key named in opaque (a tool call's arguments) is the
// caller's, not the shape's, and is not listed.
func keyPaths(doc string, opaque ...string) []string {
	var v any
	Expect(json.Unmarshal([]byte(doc), &v)).To(Succeed())
	var out []string
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				p := strings.TrimPrefix(at+"."+k, ".")
				out = append(out, p)
				if !slices.Contains(opaque, k) {
					walk(e, p)
				}
			}
		case []any:
			for _, e := range v {
				walk(e, at+"[]")
			}
		}
	}
	walk(v, "")
	slices.Sort(out)
	return slices.Compact(out)
}

// recordedAnthropic is a Messages response in the shape a recorded one
// has (testdata/anthropic/recorded.json, our own values), whose first
// content block is of the given type: text or tool_use.
func recordedAnthropic(block string) string {
	data, err := os.ReadFile("testdata/anthropic/recorded.json")
	Expect(err).NotTo(HaveOccurred())
	var all map[string]json.RawMessage
	Expect(json.Unmarshal(data, &all)).To(Succeed())
	Expect(all).To(HaveKey(block))
	return string(all[block])
}
