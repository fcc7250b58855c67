package otlp_test

// The output a model call asked for, as its span states it: the
// conventions' gen_ai.output.type, for each of their values, read from a
// report's params as a report file keeps them.

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/trace"
)

var _ = DescribeTable("a model call's span states the output its request asked for, as the conventions name it",
	func(params string, want string) {
		var p trace.Params
		Expect(json.Unmarshal([]byte(params), &p)).To(Succeed())
		r := fixture()
		r.Suites[0].Variants[0].Scenarios[0].Events[4].LLM.Params = &p
		var got map[string]string
		for _, s := range export(r) {
			if s.attrs["testbed.llm.role"] == "answer" {
				got = s.attrs
			}
		}
		Expect(got).NotTo(BeNil(), "the answer's span")
		if want == "" {
			Expect(got).NotTo(HaveKey("gen_ai.output.type"))
		} else {
			Expect(got).To(HaveKeyWithValue("gen_ai.output.type", want))
		}
	},
	Entry("text", `{"output_type": "text"}`, "text"),
	Entry("json", `{"output_type": "json"}`, "json"),
	Entry("image", `{"output_type": "image"}`, "image"),
	Entry("speech", `{"output_type": "speech"}`, "speech"),
	Entry("a report written before output_type, which kept a JSON object's as json: true", `{"json": true}`, "json"),
	Entry("none asked", `{"max_tokens": 64}`, ""),
)
