package runner_test

import (
	"os"
	"testing"

	"github.com/agentreplay/testbed/harness/runner"
)

func BenchmarkTmpSuite(b *testing.B) {
	replayBench(b, loadSuites(b, os.Getenv("TB_SUITE")), runner.Options{Root: repoRoot, Variant: os.Getenv("TB_VARIANT"), Scenario: os.Getenv("TB_SCENARIO"), Parallel: 1})
}
