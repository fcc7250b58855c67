package report_test

import (
	"flag"
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata from the current output")

// writeTextEnv, set in the environment of this test binary, makes it write
// the fixture report as text to stdout and exit, for the spec that runs it
// under another locale.
const writeTextEnv = "TESTBED_REPORT_WRITE_TEXT"

func TestReport(t *testing.T) {
	if os.Getenv(writeTextEnv) == "1" {
		if err := report.WriteText(os.Stdout, fixture()); err != nil {
			t.Fatal(err)
		}
		os.Exit(0) // no test output after the report
	}
	RegisterFailHandler(Fail)
	RunSpecs(t, "Report Suite")
}
