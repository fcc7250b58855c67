package cassette_test

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
)

var _ = Describe("the cassette path convention", func() {
	It("puts a suite's cassettes under cassettes/<suite>, one folder per variant", func() {
		Expect(cassette.Dir("root", "odbchat")).To(Equal(filepath.Join("root", "cassettes", "odbchat")))
		Expect(cassette.Path("root", "odbchat", "legacy", "ac1")).To(Equal(filepath.Join("root", "cassettes", "odbchat", "legacy", "ac1.yaml")))
	})

	DescribeTable("names sample k of a scenario",
		func(k int, want string) {
			Expect(cassette.SamplePath("root", "s", "v", "ac1", k)).To(Equal(filepath.Join("root", "cassettes", "s", "v", want)))
		},
		Entry("the first is the scenario's cassette", 1, "ac1.yaml"),
		Entry("the second", 2, "ac1.sample2.yaml"),
		Entry("the tenth", 10, "ac1.sample10.yaml"),
	)
})
