package external_test

import (
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/external"
)

// TestMain makes the test binary the agent some specs start: with
// FAKE_AGENT set, it serves as that kind of agent instead of testing.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == external.IsolateCommand {
		os.Exit(external.IsolateMain(os.Args[2:]))
	}
	switch os.Getenv("FAKE_AGENT") {
	case "direct":
		os.Exit(directAgent())
	case "stream":
		os.Exit(streamAgent())
	case "stream-turns":
		os.Exit(turnsAgent())
	}
	if kind := os.Getenv("FAKE_AGENT"); kind != "" {
		os.Exit(fakeAgent(kind))
	}
	os.Exit(m.Run())
}

func TestExternal(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "External Suite")
}
