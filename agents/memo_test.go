package agents_test

import (
	"crypto/sha256"
	"errors"
	"io/fs"
	"strings"
	"sync"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
)

// index is what the specs build: the files' contents joined, behind a pointer
// so that sharing shows.
type index struct{ text string }

var _ = Describe("LoadOnce", func() {
	var builds int
	build := func(contents [][]byte) (*index, error) {
		builds++
		var parts []string
		for _, c := range contents {
			parts = append(parts, string(c))
		}
		return &index{strings.Join(parts, "|")}, nil
	}
	const kind = "kb"
	var cache *agents.Cache

	BeforeEach(func() { builds, cache = 0, &agents.Cache{} })

	It("builds once for the same contents and shares the result", func() {
		fsys := fstest.MapFS{"kb/a.md": {Data: []byte("alpha")}, "kb/b.md": {Data: []byte("beta")}}
		first, err := agents.LoadOnce(cache, fsys, kind, []string{"kb/a.md", "kb/b.md"}, build)
		Expect(err).NotTo(HaveOccurred())
		Expect(first.text).To(Equal("alpha|beta"))
		// Another folder with the same files is the same knowledge base.
		again, err := agents.LoadOnce(cache, fstest.MapFS{"kb/a.md": {Data: []byte("alpha")}, "kb/b.md": {Data: []byte("beta")}},
			kind, []string{"kb/a.md", "kb/b.md"}, build)
		Expect(err).NotTo(HaveOccurred())
		Expect(again).To(BeIdenticalTo(first))
		Expect(builds).To(Equal(1))
	})

	It("builds once when many callers ask at the same time, and all wait for that build", func() {
		fsys := fstest.MapFS{"kb/a.md": {Data: []byte("alpha")}}
		var mu sync.Mutex
		started := 0
		release := make(chan struct{})
		slow := func(contents [][]byte) (*index, error) {
			mu.Lock()
			started++
			mu.Unlock()
			<-release
			return &index{string(contents[0])}, nil
		}
		const callers = 8
		got := make(chan *index, callers)
		for range callers {
			go func() {
				defer GinkgoRecover()
				ix, err := agents.LoadOnce(cache, fsys, kind, []string{"kb/a.md"}, slow)
				Expect(err).NotTo(HaveOccurred())
				got <- ix
			}()
		}
		Eventually(func() int { mu.Lock(); defer mu.Unlock(); return started }).Should(Equal(1))
		Consistently(func() int { mu.Lock(); defer mu.Unlock(); return started }, "50ms").Should(Equal(1))
		close(release)
		first := <-got
		for range callers - 1 {
			Expect(<-got).To(BeIdenticalTo(first))
		}
	})

	It("builds again when a file's content, a file's name or the kind differs", func() {
		fsys := fstest.MapFS{"kb/a.md": {Data: []byte("alpha")}, "kb/c.md": {Data: []byte("alpha")}}
		a, _ := agents.LoadOnce(cache, fsys, kind, []string{"kb/a.md"}, build)
		c, _ := agents.LoadOnce(cache, fsys, kind, []string{"kb/c.md"}, build)
		other, _ := agents.LoadOnce(cache, fsys, kind+" other", []string{"kb/a.md"}, build)
		fsys["kb/a.md"] = &fstest.MapFile{Data: []byte("alpha, edited")}
		edited, _ := agents.LoadOnce(cache, fsys, kind, []string{"kb/a.md"}, build)
		Expect(builds).To(Equal(4))
		Expect(c).NotTo(BeIdenticalTo(a))
		Expect(other).NotTo(BeIdenticalTo(a))
		Expect(edited.text).To(Equal("alpha, edited"))
	})

	It("does not tell apart contents that only differ in where one file ends", func() {
		fsys := fstest.MapFS{"a": {Data: []byte("ab")}, "b": {Data: []byte("c")}}
		first, _ := agents.LoadOnce(cache, fsys, kind, []string{"a", "b"}, build)
		fsys["a"], fsys["b"] = &fstest.MapFile{Data: []byte("a")}, &fstest.MapFile{Data: []byte("bc")}
		second, _ := agents.LoadOnce(cache, fsys, kind, []string{"a", "b"}, build)
		Expect(second).NotTo(BeIdenticalTo(first))
		Expect(second.text).To(Equal("a|bc"))
	})

	It("keeps what one cache built from another cache and from no cache", func() {
		fsys := fstest.MapFS{"kb/a.md": {Data: []byte("alpha")}}
		first, _ := agents.LoadOnce(cache, fsys, kind, []string{"kb/a.md"}, build)
		other, _ := agents.LoadOnce(&agents.Cache{}, fsys, kind, []string{"kb/a.md"}, build)
		none, _ := agents.LoadOnce(nil, fsys, kind, []string{"kb/a.md"}, build)
		again, _ := agents.LoadOnce(nil, fsys, kind, []string{"kb/a.md"}, build)
		Expect(builds).To(Equal(4))
		Expect(other).NotTo(BeIdenticalTo(first))
		Expect(none).NotTo(BeIdenticalTo(first))
		Expect(again).NotTo(BeIdenticalTo(none))
		Expect(other.text).To(Equal(first.text))
	})

	It("given a folder that knows its digests, reads the files only for the build", func() {
		fsys := &summed{MapFS: fstest.MapFS{"kb/a.md": {Data: []byte("alpha")}, "kb/b.md": {Data: []byte("beta")}}}
		first, err := agents.LoadOnce(cache, fsys, kind, []string{"kb/a.md", "kb/b.md"}, build)
		Expect(err).NotTo(HaveOccurred())
		Expect(fsys.reads).To(Equal(2))
		for range 3 {
			again, err := agents.LoadOnce(cache, fsys, kind, []string{"kb/a.md", "kb/b.md"}, build)
			Expect(err).NotTo(HaveOccurred())
			Expect(again).To(BeIdenticalTo(first))
		}
		Expect(fsys.reads).To(Equal(2))
		Expect(builds).To(Equal(1))
		// The same contents read from a folder without digests are the same build.
		plain, err := agents.LoadOnce(cache, fsys.MapFS, kind, []string{"kb/a.md", "kb/b.md"}, build)
		Expect(err).NotTo(HaveOccurred())
		Expect(plain).To(BeIdenticalTo(first))
		// An edited file has another digest: built again, from the new contents.
		fsys.MapFS["kb/a.md"] = &fstest.MapFile{Data: []byte("alpha, edited")}
		edited, err := agents.LoadOnce(cache, fsys, kind, []string{"kb/a.md", "kb/b.md"}, build)
		Expect(err).NotTo(HaveOccurred())
		Expect(edited.text).To(Equal("alpha, edited|beta"))
		_, err = agents.LoadOnce(cache, fsys, kind, []string{"kb/missing.md"}, build)
		Expect(err).To(MatchError(ContainSubstring("kb/missing.md")))
	})

	It("returns a missing file's error and keeps no failed build", func() {
		_, err := agents.LoadOnce(cache, fstest.MapFS{}, kind, []string{"kb/missing.md"}, build)
		Expect(err).To(MatchError(ContainSubstring("kb/missing.md")))
		Expect(builds).To(Equal(0))

		fsys := fstest.MapFS{"kb/a.md": {Data: []byte("alpha")}}
		failing := func([][]byte) (*index, error) { builds++; return nil, errors.New("bad front matter") }
		_, err = agents.LoadOnce(cache, fsys, kind, []string{"kb/a.md"}, failing)
		Expect(err).To(MatchError("bad front matter"))
		_, err = agents.LoadOnce(cache, fsys, kind, []string{"kb/a.md"}, failing)
		Expect(err).To(MatchError("bad front matter"))
		Expect(builds).To(Equal(2))
	})
})

// summed is a MapFS that knows its files' digests (agents.SumFS) and counts
// the files read.
type summed struct {
	fstest.MapFS
	reads int
}

func (s *summed) ReadFile(name string) ([]byte, error) {
	s.reads++
	return s.MapFS.ReadFile(name)
}

func (s *summed) Sum(name string) ([sha256.Size]byte, int, error) {
	f, ok := s.MapFS[name]
	if !ok {
		return [sha256.Size]byte{}, 0, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return sha256.Sum256(f.Data), len(f.Data), nil
}

// resource counts how often it was closed.
type resource struct{ closed int }

func (r *resource) Close() error { r.closed++; return nil }

var _ = Describe("Hold", func() {
	var opened int
	open := func() (*resource, error) { opened++; return &resource{}, nil }
	BeforeEach(func() { opened = 0 })

	It("opens once per cache, shares it, and closes it when the cache closes", func() {
		cache := &agents.Cache{}
		a, release, err := agents.Hold(cache, "proxy", open)
		Expect(err).NotTo(HaveOccurred())
		release()
		b, _, err := agents.Hold(cache, "proxy", open)
		Expect(err).NotTo(HaveOccurred())
		Expect(b).To(BeIdenticalTo(a))
		Expect(opened).To(Equal(1))
		Expect(a.closed).To(Equal(0), "release leaves a cache's value open")
		Expect(cache.Close()).To(Succeed())
		Expect(a.closed).To(Equal(1))
		c, _, err := agents.Hold(cache, "proxy", open)
		Expect(err).NotTo(HaveOccurred())
		Expect(c).NotTo(BeIdenticalTo(a), "a closed cache opens afresh")
	})

	It("with no cache, opens on every call and release closes it", func() {
		a, release, err := agents.Hold(nil, "proxy", open)
		Expect(err).NotTo(HaveOccurred())
		release()
		Expect(a.closed).To(Equal(1))
		_, release, _ = agents.Hold(nil, "proxy", open)
		release()
		Expect(opened).To(Equal(2))
	})

	It("keeps no error", func() {
		cache := &agents.Cache{}
		_, _, err := agents.Hold(cache, "proxy", func() (*resource, error) { return nil, errors.New("no port") })
		Expect(err).To(MatchError("no port"))
		_, _, err = agents.Hold(cache, "proxy", open)
		Expect(err).NotTo(HaveOccurred())
		Expect(cache.Close()).To(Succeed())
	})
})

var _ = Describe("BuildOnce", func() {
	var builds int
	var cache *agents.Cache
	BeforeEach(func() { builds, cache = 0, &agents.Cache{} })
	build := func(text string) func() (*index, error) {
		return func() (*index, error) { builds++; return &index{text}, nil }
	}

	It("builds once per kind and key and shares the result", func() {
		first, err := agents.BuildOnce(cache, "history", build("one"), []byte("ab"), []byte("c"))
		Expect(err).NotTo(HaveOccurred())
		again, err := agents.BuildOnce(cache, "history", build("two"), []byte("ab"), []byte("c"))
		Expect(err).NotTo(HaveOccurred())
		Expect(again).To(BeIdenticalTo(first))
		Expect(builds).To(Equal(1))

		other, _ := agents.BuildOnce(cache, "history", build("split"), []byte("a"), []byte("bc"))
		Expect(other.text).To(Equal("split"), "the parts are told apart, not just joined")
		kind, _ := agents.BuildOnce(cache, "chart", build("kind"), []byte("ab"), []byte("c"))
		Expect(kind.text).To(Equal("kind"))
		Expect(builds).To(Equal(3))
	})

	It("keeps its own copy of a key: bytes the caller changes afterwards match nothing built", func() {
		key := []byte("answer")
		first, _ := agents.BuildOnce(cache, "history", build("first"), key)
		copy(key, "ANSWER")
		changed, _ := agents.BuildOnce(cache, "history", build("changed"), key)
		Expect(changed.text).To(Equal("changed"))
		again, _ := agents.BuildOnce(cache, "history", build("again"), []byte("answer"))
		Expect(again).To(BeIdenticalTo(first))
	})

	It("builds on every call without a cache", func() {
		a, _ := agents.BuildOnce(nil, "history", build("x"), []byte("k"))
		b, _ := agents.BuildOnce(nil, "history", build("x"), []byte("k"))
		Expect(a).NotTo(BeIdenticalTo(b))
		Expect(builds).To(Equal(2))
	})

	It("does not keep an error", func() {
		_, err := agents.BuildOnce(cache, "history", func() (*index, error) { builds++; return nil, errors.New("no") }, []byte("k"))
		Expect(err).To(MatchError("no"))
		got, err := agents.BuildOnce(cache, "history", build("yes"), []byte("k"))
		Expect(err).NotTo(HaveOccurred())
		Expect(got.text).To(Equal("yes"))
		Expect(builds).To(Equal(2))
	})
})
