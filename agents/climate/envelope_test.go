package climate_test

import (
	"encoding/json"
	"math"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/climate"
)

// A tool result is written with anyjson; it must be what json.Marshal
// writes, byte for byte, or the recorded requests would no longer match.
var _ = Describe("the tool result envelope", func() {
	DescribeTable("is encoded as json.Marshal encodes it",
		func(e climate.Envelope) {
			want, err := json.Marshal(e)
			Expect(err).NotTo(HaveOccurred())
			Expect(climate.Marshal(e)).To(Equal(string(want)))
		},
		Entry("success with data", climate.Envelope{Success: true, Data: map[string]any{"b": []any{1.5, "<x>"}, "a": nil}}),
		Entry("success with a typed nil map", climate.Envelope{Success: true, Data: map[string]any(nil)}),
		Entry("success with a struct, through encoding/json", climate.Envelope{Success: true, Data: struct {
			Name string `json:"name"`
		}{"Rio & São Paulo"}}),
		Entry("success without data", climate.Envelope{Success: true}),
		Entry("an error with its code", climate.Envelope{Error: "CityCatalyst said \"no\"", ErrorCode: "upstream_error"}),
		Entry("an error without a code", climate.Envelope{Error: "x"}),
	)

	It("becomes an invalid_response_format error when the data cannot be encoded", func() {
		got := climate.Marshal(climate.Envelope{Success: true, Data: []any{math.Inf(1)}})
		Expect(got).To(MatchJSON(`{"success":false,"error":"could not encode the tool result","error_code":"invalid_response_format"}`))
	})
})
