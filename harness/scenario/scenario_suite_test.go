package scenario_test

import (
	"flag"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var update = flag.Bool("update", false, "rewrite the expected errors in testdata/invalid/*.txtar")

func TestScenario(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Scenario Suite")
}
