package files_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/files"
)

var _ = Describe("ReadRegular", func() {
	var dir string
	BeforeEach(func() { dir = GinkgoT().TempDir() })

	It("reads a regular file, through a symlink too", func() {
		path := filepath.Join(dir, "a.yaml")
		Expect(os.WriteFile(path, []byte("hello"), 0o644)).To(Succeed())
		Expect(os.Symlink(path, filepath.Join(dir, "link.yaml"))).To(Succeed())
		for _, p := range []string{path, filepath.Join(dir, "link.yaml")} {
			data, err := files.ReadRegular(p, files.MaxBytes)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(data)).To(Equal("hello"))
		}
	})

	DescribeTable("refuses what is not a regular file, at once, naming it",
		func(make func(path string) error, what string) {
			path := filepath.Join(dir, "c.yaml")
			Expect(make(path)).To(Succeed())
			_, err := files.ReadRegular(path, files.MaxBytes)
			Expect(err).To(MatchError(files.ErrNotRegular))
			Expect(err.Error()).To(Equal("read " + path + ": not a regular file (" + what + "); testbed reads only regular files"))
		},
		Entry("a named pipe, which would block", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "a named pipe"),
		Entry("a symlink to /dev/zero, which never ends", func(p string) error { return os.Symlink("/dev/zero", p) }, "a character device"),
		Entry("a folder", func(p string) error { return os.Mkdir(p, 0o755) }, "a folder"),
	)

	It("refuses a file over the limit, with its size", func() {
		path := filepath.Join(dir, "big.yaml")
		Expect(os.WriteFile(path, make([]byte, 3000), 0o644)).To(Succeed())
		_, err := files.ReadRegular(path, 2048)
		Expect(err).To(MatchError(files.ErrTooLarge))
		Expect(err.Error()).To(Equal("read " + path + ": file too large: 2.9 KiB or more, over the 2.0 KiB limit"))
	})

	It("keeps os.ErrNotExist", func() {
		_, err := files.ReadRegular(filepath.Join(dir, "none.yaml"), files.MaxBytes)
		Expect(errors.Is(err, os.ErrNotExist)).To(BeTrue())
	})
})

var _ = Describe("WriteAtomic", func() {
	It("writes mode 0644 whatever the umask allows, and leaves the old file on an error", func() {
		dir := GinkgoT().TempDir()
		path := filepath.Join(dir, "out.json")
		Expect(files.WriteAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "one"); return err })).To(Succeed())
		st, err := os.Stat(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Mode().Perm()).To(Equal(os.FileMode(0o644)))

		boom := errors.New("boom")
		Expect(files.WriteAtomic(path, func(w io.Writer) error { io.WriteString(w, "half"); return boom })).To(MatchError(boom))
		Expect(os.ReadFile(path)).To(Equal([]byte("one")))
		entries, _ := os.ReadDir(dir)
		Expect(entries).To(HaveLen(1), "no temporary left behind")
	})
})

var _ = Describe("WriteSet", func() {
	It("leaves every file of the set from the same writer when many write at once", func() {
		dir := GinkgoT().TempDir()
		var wg sync.WaitGroup
		for i := range 40 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				run := fmt.Sprintf("run %d", i)
				// A slow first file widens the window in which writers interleave.
				Expect(files.WriteSet(dir, "latest", files.Set{
					"latest.md":   func(w io.Writer) error { _, err := io.WriteString(w, run+strings.Repeat(" ", 1<<16)); return err },
					"latest.json": func(w io.Writer) error { _, err := io.WriteString(w, run); return err },
				})).To(Succeed())
			}()
		}
		wg.Wait()
		md, err := os.ReadFile(filepath.Join(dir, "latest.md"))
		Expect(err).NotTo(HaveOccurred())
		js, err := os.ReadFile(filepath.Join(dir, "latest.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.TrimSpace(string(md))).To(Equal(string(js)))
	})

	It("renames nothing when one file fails", func() {
		dir := GinkgoT().TempDir()
		boom := errors.New("boom")
		err := files.WriteSet(dir, "latest", files.Set{
			"a": func(w io.Writer) error { return nil },
			"b": func(w io.Writer) error { return boom },
		})
		Expect(err).To(MatchError(boom))
		Expect(filepath.Join(dir, "a")).NotTo(BeAnExistingFile())
		Expect(filepath.Join(dir, "b")).NotTo(BeAnExistingFile())
	})

	It("names testbed's temporaries", func() {
		Expect(files.IsTemp("cassettes/s/v/.ac1.yaml.123.recording.yaml")).To(BeTrue())
		Expect(files.IsTemp(".ac1.yaml.42.tmp")).To(BeTrue())
		Expect(files.IsTemp("ac1.yaml")).To(BeFalse())
	})
})
