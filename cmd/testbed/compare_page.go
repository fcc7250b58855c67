package main

import (
	"fmt"
	"io"

	"github.com/agentreplay/testbed/harness/files"
	"github.com/agentreplay/testbed/harness/report"
)

// writeComparisonPage writes compare --html's page to path, atomically,
// and says so on stderr; it does nothing when path is empty.
func writeComparisonPage(path string, cs []report.Comparison, f report.CompareFilter, stderr io.Writer) error {
	if path == "" {
		return nil
	}
	if err := files.WriteAtomic(path, func(w io.Writer) error { return report.WriteComparisonHTML(w, cs, f) }); err != nil {
		return withCode(exitInternal, err)
	}
	fmt.Fprintf(stderr, "wrote %s\n", path)
	return nil
}
