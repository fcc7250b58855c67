package main

import (
	"bytes"
	"context"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Ctrl-C during testbed run: the exit is 130 and the message says what was
// left as it was, where "interrupted: context canceled" said nothing.
var _ = Describe("testbed run interrupted", func() {
	It("exits 130 saying that no report was written and where the last one is", func() {
		root := project()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var stdout, stderr bytes.Buffer
		code := run(ctx, []string{"run", "--root", root, "--quiet"}, &stdout, &stderr)
		Expect(code).To(Equal(exitSignal), stderr.String())
		Expect(stderr.String()).To(Equal("testbed: interrupted: the replay stopped before its scenario runs ended and its agents were stopped; no report was written (" +
			filepath.Join(root, "reports") + " keeps the last complete run's)\n"))
		Expect(filepath.Join(root, "reports", "latest.json")).NotTo(BeAnExistingFile())
	})
})
