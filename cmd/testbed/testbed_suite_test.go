// The CLI's specs are in package main, not main_test: they call the
// unexported run(ctx, args, stdout, stderr) in-process, which is how the
// style guide asks for main to be tested (and the one accepted exception to
// specs in package <pkg>_test).
package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/external"
)

// TestMain serves the namespace helper when a spec's outside agent starts
// this test binary as testbed would start itself, and otherwise runs the
// specs from a copy of the binary of their own: the specs start the binary
// (os.Executable) as that helper, and ginkgo builds it in this package's
// folder and deletes it when its run ends, so two runs of these specs at
// once would each pull the other's helper away.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == external.IsolateCommand {
		os.Exit(external.IsolateMain(os.Args[2:]))
	}
	dir, copied := os.LookupEnv(ownCopyEnv)
	if !copied {
		err := runOwnCopy()
		fmt.Fprintf(os.Stderr, "run the specs from a copy of the test binary: %v\n", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// ownCopyEnv names the folder of the copy of the test binary the specs run
// from (runOwnCopy).
const ownCopyEnv = "TESTBED_SPECS_OWN_COPY"

// runOwnCopy copies this test binary to a temporary folder of its own and
// executes the copy in place of this process; it returns only on failure.
func runOwnCopy() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "testbed-specs-")
	if err != nil {
		return err
	}
	own := filepath.Join(dir, filepath.Base(exe))
	if err := copyFile(exe, own); err != nil {
		os.RemoveAll(dir)
		return err
	}
	err = syscall.Exec(own, os.Args, append(os.Environ(), ownCopyEnv+"="+dir))
	os.RemoveAll(dir)
	return err
}

// copyFile copies the executable src to dst.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func TestTestbed(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "testbed CLI Suite")
}

// The specs run the CLI as a developer would; those about CI set CI
// themselves.
var _ = BeforeEach(func() { GinkgoT().Setenv("CI", "") })

// repoRoot is the project folder, relative to this package.
const repoRoot = "../.."

// project copies what the odbchat suite needs (its suite file, prompts,
// cassettes and fixtures) from the repository into a fresh temporary folder
// and returns it, so that a spec may change anything there and pass it as
// --root without touching the shared tree.
func project() string {
	GinkgoHelper()
	return projectOf("odbchat", "odbchat")
}

// projectOf is project for the suite of the given name, run by agent.
func projectOf(suite, agent string) string {
	GinkgoHelper()
	root := GinkgoT().TempDir()
	for _, dir := range []string{"cassettes/" + suite, "fixtures/" + agent, "scenarios/prompts"} {
		src := filepath.Join(repoRoot, dir)
		if _, err := os.Stat(src); os.IsNotExist(err) {
			continue
		}
		Expect(os.CopyFS(filepath.Join(root, dir), os.DirFS(src))).To(Succeed())
	}
	data, err := os.ReadFile(filepath.Join(repoRoot, "scenarios", suite+".yaml"))
	Expect(err).NotTo(HaveOccurred())
	Expect(os.MkdirAll(filepath.Join(root, "scenarios"), 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(root, "scenarios", suite+".yaml"), data, 0o644)).To(Succeed())
	return root
}

// result is what one testbed invocation did.
type result struct {
	code           int
	stdout, stderr string
}

// String is for failure messages.
func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s\n--- stderr\n%s", r.code, r.stdout, r.stderr)
}

// testbed runs the CLI in-process with args.
func testbed(args ...string) result {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// cassettePath is the cassette of one scenario under root.
func cassettePath(root, variant, id string) string {
	return filepath.Join(root, "cassettes", "odbchat", variant, id+".yaml")
}

// replace replaces old with new in the file at path; old must occur exactly
// n times (all replaced) or, with n < 0, at least once (the first replaced).
func replace(path, old, new string, n int) {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	s := string(data)
	if n < 0 {
		Expect(s).To(ContainSubstring(old), path)
		s = strings.Replace(s, old, new, 1)
	} else {
		Expect(strings.Count(s, old)).To(Equal(n), "%q in %s", old, path)
		s = strings.ReplaceAll(s, old, new)
	}
	Expect(os.WriteFile(path, []byte(s), 0o644)).To(Succeed())
}

// yamlFiles returns the .yaml files under dir, by path relative to dir, with
// their bytes; any other file found there fails the spec.
func yamlFiles(dir string) map[string][]byte {
	GinkgoHelper()
	out := map[string][]byte{}
	Expect(filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		Expect(rel).To(HaveSuffix(".yaml"), "stray file")
		Expect(filepath.Base(rel)).NotTo(HavePrefix("."), "stray file")
		data, err := os.ReadFile(path)
		out[rel] = data
		return err
	})).To(Succeed())
	return out
}
