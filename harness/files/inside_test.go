package files_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/files"
)

var _ = Describe("paths that must stay in a folder", func() {
	var root, out string
	BeforeEach(func() {
		base := GinkgoT().TempDir()
		root, out = filepath.Join(base, "project"), filepath.Join(base, "elsewhere")
		for _, d := range []string{filepath.Join(root, "fixtures", "a"), out} {
			Expect(os.MkdirAll(d, 0o755)).To(Succeed())
		}
		Expect(os.WriteFile(filepath.Join(out, "secret"), []byte("s3cret"), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(root, "fixtures", "a", "ok.json"), []byte("{}"), 0o644)).To(Succeed())
		Expect(os.Symlink(filepath.Join(out, "secret"), filepath.Join(root, "fixtures", "a", "link.json"))).To(Succeed())
		Expect(os.Symlink("ok.json", filepath.Join(root, "fixtures", "a", "near.json"))).To(Succeed())
		Expect(os.Symlink(out, filepath.Join(root, "cassettes"))).To(Succeed())
	})

	DescribeTable("Inside resolves symlinks and refuses what lands outside",
		func(rel string, inside bool) {
			_, err := files.Inside(root, filepath.Join(root, rel))
			if inside {
				Expect(err).NotTo(HaveOccurred())
				return
			}
			Expect(errors.Is(err, files.ErrOutside)).To(BeTrue(), "got %v", err)
			Expect(err.Error()).To(ContainSubstring("outside " + root))
		},
		Entry("a file in it", "fixtures/a/ok.json", true),
		Entry("a symlink to a file in it", "fixtures/a/near.json", true),
		Entry("a folder not made yet", "cassettes2/suite/v1", true),
		Entry("dot-dots out of it", "fixtures/a/../../../../../etc/hostname", false),
		Entry("a symlink to a file outside", "fixtures/a/link.json", false),
		Entry("a folder below a symlink out, not made yet", "cassettes/suite/v1", false),
		Entry("a symlinked folder out", "cassettes", false),
	)

	DescribeTable("ReadIn reads what is in the folder and nothing else",
		func(name string, want string) {
			data, err := files.ReadIn(filepath.Join(root, "fixtures", "a"), name, files.MaxBytes)
			if want != "" {
				Expect(err).NotTo(HaveOccurred())
				Expect(string(data)).To(Equal(want))
				return
			}
			Expect(errors.Is(err, files.ErrOutside)).To(BeTrue(), "got %v", err)
			Expect(data).To(BeNil())
		},
		Entry("a file", "ok.json", "{}"),
		Entry("a symlink inside", "near.json", "{}"),
		Entry("a symlink out", "link.json", ""),
		Entry("dot-dots out", "../../../elsewhere/secret", ""),
		Entry("an absolute path", filepath.Join("/", "etc", "hostname"), ""),
	)

	It("names the folder absolute, as given relative (a root of \".\"), and says where it leads and how to fix it", func() {
		wd, err := os.Getwd()
		Expect(err).NotTo(HaveOccurred())
		rel, err := filepath.Rel(wd, root)
		Expect(err).NotTo(HaveOccurred())
		_, err = files.Inside(rel, filepath.Join(rel, "cassettes"))
		var outside *files.OutsideError
		Expect(errors.As(err, &outside)).To(BeTrue(), "got %v", err)
		Expect(outside.Dir).To(Equal(root))
		Expect(outside.Refusal(`its cassette folder "cassettes"`)).To(Equal(`its cassette folder "cassettes" leads outside ` + root + ` (to ` + out + `); keep it under ` + root + `, not behind a symlink out of it`))
	})

	It("DirFS serves no symlink out of its folder, and reading one says where it leads", func() {
		fsys := files.DirFS(filepath.Join(root, "fixtures", "a"))
		_, err := fsys.Open("link.json")
		Expect(err).To(HaveOccurred())
		f, err := fsys.Open("near.json")
		Expect(err).NotTo(HaveOccurred())
		f.Close()
		data, err := fs.ReadFile(fsys, "near.json")
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(Equal("{}"))
		_, err = fs.ReadFile(fsys, "link.json")
		Expect(errors.Is(err, files.ErrOutside)).To(BeTrue(), "got %v", err)
		Expect(err.Error()).To(ContainSubstring("leads outside " + filepath.Join(root, "fixtures", "a") + " (to " + filepath.Join(out, "secret") + ")"))
	})
	It("WriteAtomicIn writes under the folder, makes its folders, and refuses a path through a symlink out, writing nothing there", func() {
		write := func(w io.Writer) error { _, err := w.Write([]byte("cassette")); return err }
		path := filepath.Join(root, "reports", "new", "x.yaml")
		Expect(files.WriteAtomicIn(root, path, write)).To(Succeed())
		Expect(os.ReadFile(path)).To(Equal([]byte("cassette")))
		err := files.WriteAtomicIn(root, filepath.Join(root, "cassettes", "x.yaml"), write)
		Expect(errors.Is(err, files.ErrOutside)).To(BeTrue(), "%v", err)
		Expect(files.WriteAtomicIn(root, filepath.Join(root, "..", "x.yaml"), write)).To(MatchError(files.ErrOutside))
		entries, err := os.ReadDir(out)
		Expect(err).NotTo(HaveOccurred())
		Expect(entries).To(HaveLen(1), "only the secret that was there")
	})
})
