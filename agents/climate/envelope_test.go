package climate_test

import (
	"math"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/climate"
)

// A tool result is its envelope as json.Marshal writes it.
var _ = Describe("the tool result envelope", func() {
	It("becomes an invalid_response_format error when the data cannot be encoded", func() {
		got := climate.Marshal(climate.Envelope{Success: true, Data: []any{math.Inf(1)}})
		Expect(got).To(MatchJSON(`{"success":false,"error":"could not encode the tool result","error_code":"invalid_response_format"}`))
	})
})
