package runner_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/files"
	"github.com/agentreplay/testbed/harness/runner"
)

var _ = Describe("a run's snapshot of a folder", func() {
	var dir string
	write := func(name, text string) {
		GinkgoHelper()
		Expect(os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)).To(Succeed())
	}
	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		write("kb/a.md", "alpha")
		write("kb/b.md", "beta")
		write("notes.txt", "n")
	})

	It("is a correct fs.FS", func() {
		Expect(fstest.TestFS(runner.Snapshot(dir), "kb/a.md", "kb/b.md", "notes.txt")).To(Succeed())
	})

	It("refuses a fixture that is a named pipe or a device, naming it, rather than hang or fill memory", func() {
		Expect(syscall.Mkfifo(filepath.Join(dir, "pipe.json"), 0o644)).To(Succeed())
		Expect(os.Symlink("/dev/zero", filepath.Join(dir, "zero.json"))).To(Succeed())
		snap := runner.Snapshot(dir)
		// A symlink out of the folder is refused before what it leads to is looked at.
		for name, want := range map[string]error{"pipe.json": files.ErrNotRegular, "zero.json": files.ErrOutside} {
			_, err := fs.ReadFile(snap, name)
			Expect(err).To(MatchError(want))
			Expect(err.Error()).To(ContainSubstring(filepath.Join(dir, name)))
		}
	})

	It("is nil for a folder that does not exist", func() {
		Expect(runner.Snapshot(filepath.Join(dir, "missing"))).To(BeNil())
	})

	It("keeps each file and listing as first read, and hands out copies", func() {
		snap := runner.Snapshot(dir)
		b, err := fs.ReadFile(snap, "kb/a.md")
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal("alpha"))
		b[0] = 'X'
		Expect(fs.Glob(snap, "kb/*.md")).To(Equal([]string{"kb/a.md", "kb/b.md"}))

		write("kb/a.md", "changed during the run")
		write("kb/c.md", "added during the run")
		b, err = fs.ReadFile(snap, "kb/a.md")
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal("alpha"))
		Expect(fs.Glob(snap, "kb/*.md")).To(Equal([]string{"kb/a.md", "kb/b.md"}))

		fresh := runner.Snapshot(dir)
		b, err = fs.ReadFile(fresh, "kb/a.md")
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal("changed during the run"))
		Expect(fs.Glob(fresh, "kb/*.md")).To(HaveLen(3))
	})

	It("keeps a failed read failed for the rest of the run", func() {
		snap := runner.Snapshot(dir)
		_, err := fs.ReadFile(snap, "kb/late.md")
		Expect(err).To(MatchError(fs.ErrNotExist))
		write("kb/late.md", "too late")
		_, err = fs.ReadFile(snap, "kb/late.md")
		Expect(err).To(MatchError(fs.ErrNotExist))
	})
})
