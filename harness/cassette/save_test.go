package cassette_test

import (
	"net/http"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
)

var _ = Describe("saving", func() {
	var (
		dir, path string
		old       []byte
		up        *upstream
	)

	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		path = filepath.Join(dir, "ac1.yaml")
		up = newUpstream(`{"answer":"old"}`, `{"answer":"new"}`)
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport, Provenance: prov})
		Expect(err).NotTo(HaveOccurred())
		mustPost(tr, up.URL, greet)
		Expect(tr.Close()).To(Succeed())
		old, err = os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
	})

	It("replaces the old cassette when a new recording closes", func() {
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport})
		Expect(err).NotTo(HaveOccurred())
		Expect(mustPost(tr, up.URL, roll)).To(Equal(`{"answer":"new"}`))
		Expect(tr.Close()).To(Succeed())
		f := readOnDisk(path)
		Expect(f.Interactions).To(HaveLen(1), "a recording replaces, never appends")
		Expect(f.Interactions[0].Response.Body).To(Equal(`{"answer":"new"}`))
		Expect(names(dir)).To(ConsistOf("ac1.yaml"))
	})

	It("leaves the old cassette byte for byte when a recording is aborted", func() {
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport})
		Expect(err).NotTo(HaveOccurred())
		mustPost(tr, up.URL, roll)
		tr.Abort()
		Expect(tr.Close()).To(Succeed(), "a deferred Close after Abort does nothing")

		Expect(os.ReadFile(path)).To(Equal(old))
		Expect(names(dir)).To(ConsistOf("ac1.yaml"), "no temporary files are left")
	})

	It("leaves the old cassette when the folder cannot be written at Close", func() {
		Expect(os.Chmod(dir, 0o555)).To(Succeed())
		DeferCleanup(os.Chmod, dir, os.FileMode(0o755))
		if f, err := os.CreateTemp(dir, "probe"); err == nil {
			f.Close()
			os.Remove(f.Name())
			Skip("this user can write to a read-only folder (root); see the next spec")
		}
		Expect(os.Chmod(dir, 0o755)).To(Succeed())

		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport})
		Expect(err).NotTo(HaveOccurred())
		mustPost(tr, up.URL, roll)
		Expect(os.Chmod(dir, 0o555)).To(Succeed())
		Expect(tr.Close()).To(MatchError(ContainSubstring(path)))

		Expect(os.ReadFile(path)).To(Equal(old))
		Expect(names(dir)).To(ConsistOf("ac1.yaml"))
	})

	It("leaves what was at the path when the final rename fails", func() {
		// A folder where the cassette should go makes the rename fail even
		// for root; the file inside it stands for the old cassette.
		target := filepath.Join(dir, "ac2.yaml")
		Expect(os.MkdirAll(target, 0o755)).To(Succeed())
		inside := filepath.Join(target, "keep.yaml")
		Expect(os.WriteFile(inside, old, 0o644)).To(Succeed())

		tr, err := cassette.Open(cassette.ModeRecord, target, cassette.Options{Real: http.DefaultTransport})
		Expect(err).NotTo(HaveOccurred())
		mustPost(tr, up.URL, roll)
		Expect(tr.Close()).To(HaveOccurred())

		Expect(os.ReadFile(inside)).To(Equal(old))
		Expect(names(target)).To(ConsistOf("keep.yaml"))
		Expect(names(dir)).To(ConsistOf("ac1.yaml", "ac2.yaml"), "no temporary files are left")
		Expect(os.ReadFile(path)).To(Equal(old))
	})
})
