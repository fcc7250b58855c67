package cba_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/agenttest"
	"github.com/agentreplay/testbed/agents/cba"
)

// The climate normals tool reads 30 years of daily values through anyjson
// when it can; the result, and any error the model is told, must be
// encoding/json's.
var _ = Describe("reading a climate answer", func() {
	DescribeTable("gives what json.Unmarshal gives, error included",
		func(body string, fast bool) {
			var want struct {
				Daily cba.Normals `json:"daily"`
			}
			wantErr := json.Unmarshal([]byte(body), &want)
			got, err := cba.DecodeNormals([]byte(body))
			agenttest.ExpectLikeJSON(got, err, want.Daily, wantErr)
			Expect(cba.FastNormals([]byte(body))).To(Equal(fast))
		},
		Entry("a full answer, read fast",
			`{"latitude":1.5,"daily_units":{"time":"iso8601"},"daily":{"time":["1991-01-01","1991-01-02"],"temperature_2m_mean":[20.5,null],"temperature_2m_max":[25,26.5],"temperature_2m_min":[15,16],"precipitation_sum":[0,1.25],"other":[1]}}`, true),
		Entry("no daily data, read fast", `{"latitude":1.5}`, true),
		Entry("null, read fast", `null`, true),
		Entry("null daily data, read fast", `{"daily":null}`, true),
		Entry("null lists and a null day, read fast", `{"daily":{"time":[null,"1991-01-01"],"temperature_2m_mean":null}}`, true),
		Entry("a list, a type error", `[1]`, false),
		Entry("daily data that is a string, a type error", `{"daily":"x"}`, false),
		Entry("a number as a string, a type error", `{"daily":{"temperature_2m_max":["25"]}}`, false),
		Entry("a time that is a number, a type error", `{"daily":{"time":[1]}}`, false),
		Entry("a number beyond float64, a range error", `{"daily":{"temperature_2m_min":[1e999]}}`, false),
		Entry("broken JSON, a syntax error", `{"daily":{"time":[`, false),
		Entry("a key in another case, which encoding/json takes", `{"Daily":{"TIME":["1991-01-01"],"temperature_2M_mean":[3]}}`, false),
		Entry("daily twice, which encoding/json merges", `{"daily":{"time":["a"]},"daily":{"temperature_2m_max":[1]}}`, false),
		Entry("an escaped key, read fast as encoding/json unquotes it", `{"dai\u006cy":{"time":["a"]}}`, true),
		Entry("a bad value then a good one, which encoding/json reports", `{"daily":{"time":5,"time":["a"]}}`, false),
		Entry("daily twice through an escape, which encoding/json merges", `{"daily":{"time":["a"]},"dai\u006cy":{"temperature_2m_max":[1]}}`, false),
	)
})
