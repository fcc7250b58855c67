package odbchat_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentreplay/testbed/agents/agenttest"
	"github.com/agentreplay/testbed/agents/odbchat"
)

// GHRSST rows are read through anyjson when they can be; what the tools
// see must be what json.Unmarshal into []row gives.
var _ = Describe("reading GHRSST rows", func() {
	DescribeTable("gives what json.Unmarshal into []row gives",
		func(body string) {
			var want []odbchat.Row
			wantErr := json.Unmarshal([]byte(body), &want)
			got, err := odbchat.RowsOf([]byte(body))
			agenttest.ExpectLikeJSON(got, err, want, wantErr)
		},
		Entry("rows", `[{"lon":121.5,"lat":23.25,"date":"2025-11-01","sst":27.31,"sst_anomaly":0.42,"extra":[1]},{"lon":122,"lat":23,"date":"2025-11-01","sst":null,"sst_anomaly":null}]`),
		Entry("null", `null`),
		Entry("no rows", `[]`),
		Entry("a null row and null fields", `[null,{"lon":null,"date":null}]`),
		Entry("an object, a type error", `{"lon":1}`),
		Entry("a row that is a number, a type error", `[1]`),
		Entry("a date that is a number, a type error", `[{"date":20251101}]`),
		Entry("an sst that is a string, a type error", `[{"sst":"27.3"}]`),
		Entry("a key in capitals, which encoding/json takes", `[{"SST":27.3,"Lon":1}]`),
		Entry("a bad value then a good one, which encoding/json reports", `[{"sst":"x","sst":1}]`),
		Entry("a number beyond float64", `[{"lat":1e999}]`),
		Entry("broken JSON", `[{"lon":`),
	)
})
