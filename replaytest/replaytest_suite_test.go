package replaytest_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/replaytest"
)

func TestReplaytest(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "replaytest Suite")
}

// repo is the root of testbed's tree, from this package's folder.
const repo = ".."

// fakeT is a replaytest.TB that keeps what it is told. Fatalf stops the
// run as testing.T's does, by unwinding to run.
type fakeT struct {
	name         string
	logs, errors []string
	fatal        string
}

var errFatal = errors.New("Fatalf")

func (f *fakeT) Helper()      {}
func (f *fakeT) Name() string { return f.name }
func (f *fakeT) Logf(format string, args ...any) {
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}
func (f *fakeT) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.fatal = fmt.Sprintf(format, args...)
	panic(errFatal)
}

// failed is everything t was failed with.
func (f *fakeT) failed() string { return strings.Join(append(f.errors, f.fatal), "\n") }

// run is replaytest.Run on a fakeT named TestWeather.
func run(suite string, newAgent agents.Constructor, opts ...replaytest.Option) (t *fakeT, rep *report.Report) {
	t = &fakeT{name: "TestWeather"}
	defer func() {
		if r := recover(); r != nil && r != errFatal {
			panic(r)
		}
	}()
	return t, replaytest.Run(t, suite, newAgent, opts...)
}

// project copies the named folders of testbed's tree (such as
// scenarios/odbchat.yaml or fixtures/odbchat) into a new temporary root.
func project(paths ...string) string {
	root := GinkgoT().TempDir()
	for _, p := range paths {
		src, dst := filepath.Join(repo, p), filepath.Join(root, p)
		st, err := os.Stat(src)
		Expect(err).NotTo(HaveOccurred())
		if st.IsDir() {
			Expect(os.CopyFS(dst, os.DirFS(src))).To(Succeed())
			continue
		}
		data, err := os.ReadFile(src)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.MkdirAll(filepath.Dir(dst), 0o755)).To(Succeed())
		Expect(os.WriteFile(dst, data, 0o644)).To(Succeed())
	}
	return root
}

// edit replaces old by new, once, in the file at path.
func edit(path, old, new string) {
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	Expect(string(data)).To(ContainSubstring(old))
	Expect(os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o644)).To(Succeed())
}
