package llm_test

import (
	"encoding/json"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
)

var _ = DescribeTable("FirstJSONObject",
	func(in, want string) {
		Expect(llm.FirstJSONObject(in)).To(Equal(want))
	},
	Entry("bare", `{"a":1}`, `{"a":1}`),
	Entry("prose around it", "Sure! Here it is: {\"a\":1} hope that helps", `{"a":1}`),
	Entry("a code fence", "```json\n{\"a\":{\"b\":[1,2]}}\n```", `{"a":{"b":[1,2]}}`),
	Entry("nested objects", `{"a":{"b":{"c":1}},"d":2} {"e":3}`, `{"a":{"b":{"c":1}},"d":2}`),
	Entry("braces inside strings", `{"a":"}{","b":"{"}`, `{"a":"}{","b":"{"}`),
	Entry("escaped quotes inside strings", `{"a":"say \"}\" please"}`, `{"a":"say \"}\" please"}`),
	Entry("no object", "no JSON here", ""),
	Entry("unbalanced", `{"a":1`, ""),
)

func FuzzFirstJSONObject(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "x {\"a\":\"}\"} y", `{{{`, `"}"{`, ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := llm.FirstJSONObject(s)
		if got == "" {
			return
		}
		if !strings.HasPrefix(got, "{") || !strings.HasSuffix(got, "}") || !strings.Contains(s, got) {
			t.Fatalf("FirstJSONObject(%q) = %q: not a braced part of the input", s, got)
		}
		// A valid JSON object found whole is returned whole.
		var v map[string]any
		if json.Unmarshal([]byte(s), &v) == nil && got != strings.TrimSpace(s) {
			t.Fatalf("FirstJSONObject(%q) = %q, want the whole object", s, got)
		}
	})
}
