package family_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/family"
)

// The chart tool reads its records with anyjson; what it reads must be
// what encoding/json would, or the recorded requests would no longer match.
var _ = Describe("the chart tool's JSON", func() {
	DescribeTable("reads a chart's records as json.Unmarshal into []map[string]any does",
		func(body string) {
			var want []map[string]any
			wantErr := json.Unmarshal([]byte(body), &want)
			got, ok := family.Records([]byte(body))
			Expect(ok).To(Equal(wantErr == nil), "json.Unmarshal says %v", wantErr)
			if ok {
				Expect(got).To(Equal(want))
			}
		},
		Entry("records", `[{"time":"t1","value":1.5},{"time":"t2","value":null,"tags":["a",{"b":2}]}]`),
		Entry("null", `null`),
		Entry("an empty list", `[]`),
		Entry("a null record", `[{"a":1},null]`),
		Entry("a repeated key, the last kept", `[{"a":1,"a":2}]`),
		Entry("a number for a record", `[{"a":1},2]`),
		Entry("an object", `{"a":[]}`),
		Entry("broken JSON", `[{"a":`),
		Entry("a number beyond float64", `[{"a":1e999}]`),
		Entry("invalid UTF-8", "[{\"a\":\"\xff\"}]"),
	)
})
