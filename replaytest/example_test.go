package replaytest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// example is the Go agent kept in a module of its own, as a team keeps
// theirs, tested with replaytest.
var example = filepath.Join(repo, "examples", "go-agent")

// goTest runs go test ./... in dir as a user would, with the module's own
// go.mod and go.sum (-mod=readonly: nothing is added to them) and none of
// replaytest's switches set, and returns its output and whether it passed.
func goTest(dir string) (string, bool) {
	cmd := exec.Command("go", "test", "./...")
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TESTBED_") && !strings.HasPrefix(kv, "GOFLAGS=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GOFLAGS=-mod=readonly -buildvcs=false")
	out, err := cmd.CombinedOutput()
	if _, exited := err.(*exec.ExitError); err != nil && !exited {
		Fail("go test did not run: " + err.Error())
	}
	return string(out), err == nil
}

var _ = Describe("examples/go-agent, a Go agent in its own module", Label("example"), func() {
	It("passes its own go test: its suite replays against its constructor and holds its baseline", func() {
		out, ok := goTest(example)
		Expect(ok).To(BeTrue(), out)
		Expect(out).To(ContainSubstring("ok  \texample.com/weatheragent"))
	})

	It("links neither replaytest nor a test framework into its non-test package, and replaytest imports no Ginkgo or Gomega", func() {
		deps := func(dir, pkg string) []string {
			cmd := exec.Command("go", "list", "-mod=readonly", "-deps", pkg)
			cmd.Dir = dir
			out, err := cmd.Output()
			Expect(err).NotTo(HaveOccurred())
			return strings.Fields(string(out))
		}
		agent := deps(example, ".")
		Expect(agent).To(ContainElement("github.com/agentreplay/testbed/agents/llm"), "the agent is built on testbed's contract")
		Expect(agent).NotTo(ContainElement(HavePrefix("github.com/agentreplay/testbed/replaytest")))
		Expect(agent).NotTo(ContainElement(HavePrefix("github.com/onsi/")))
		Expect(deps(repo, "./replaytest")).NotTo(ContainElement(HavePrefix("github.com/onsi/")))
	})

	It("fails as stale when its prompt changes, naming the command that records it again", func() {
		abs, err := filepath.Abs(repo)
		Expect(err).NotTo(HaveOccurred())
		dir := GinkgoT().TempDir()
		Expect(os.CopyFS(dir, os.DirFS(example))).To(Succeed())
		edit(filepath.Join(dir, "go.mod"), "=> ../..", "=> "+abs)
		edit(filepath.Join(dir, "weather.go"), "You are a weather assistant.", "You are a cheerful weather assistant.")

		out, ok := goTest(dir)
		Expect(ok).To(BeFalse(), out)
		Expect(out).To(ContainSubstring("--- FAIL: TestSuite"))
		Expect(out).To(ContainSubstring("raw/oslo-tomorrow: stale: "))
		Expect(out).To(ContainSubstring("has no match for POST http://localhost:11434/v1/chat/completions"))
		Expect(out).To(ContainSubstring("re-record with: TESTBED_RECORD=1 go test . -run '^TestSuite$'"))
	})
})
