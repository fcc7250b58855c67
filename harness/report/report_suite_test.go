package report_test

import (
	"flag"
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata from the current output")

func TestReport(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Report Suite")
}

var _ = BeforeSuite(func() {
	// tablewriter counts ambiguous-width characters (—, ✓, box drawing) as
	// wide under a CJK locale; the goldens are drawn with narrow ones.
	twwidth.SetOptions(twwidth.Options{})
})
