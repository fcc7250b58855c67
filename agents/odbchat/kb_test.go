package odbchat_test

import (
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/odbchat"
)

var _ = Describe("the knowledge base", func() {
	doc := func(title, body string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\ntitle: " + title + "\nsource: s\n---\n" + body + "\n")}
	}

	var cache *agents.Cache
	BeforeEach(func() { cache = &agents.Cache{} })

	It("is built once per distinct set of documents and shared", func() {
		a := fstest.MapFS{"kb/one.md": doc("One", "the first paragraph, long enough to be a passage of its own"), "kb/two.md": doc("Two", "the second paragraph, long enough to be a passage of its own")}
		b := fstest.MapFS{"kb/one.md": doc("One", "the first paragraph, long enough to be a passage of its own"), "kb/two.md": doc("Two", "the second paragraph, long enough to be a passage of its own")}
		kbA, _, err := odbchat.KnowledgeBase(cache, a, "kb")
		Expect(err).NotTo(HaveOccurred())
		kbB, _, err := odbchat.KnowledgeBase(cache, b, "kb")
		Expect(err).NotTo(HaveOccurred())
		Expect(kbB).To(BeIdenticalTo(kbA))
		kbOther, _, err := odbchat.KnowledgeBase(&agents.Cache{}, b, "kb")
		Expect(err).NotTo(HaveOccurred())
		Expect(kbOther).NotTo(BeIdenticalTo(kbA), "another run's cache builds its own")
	})

	It("is built afresh when a document changes", func() {
		a := fstest.MapFS{"kb/one.md": doc("One", "the first paragraph, long enough to be a passage of its own")}
		changed := fstest.MapFS{"kb/one.md": doc("One", "the first paragraph, long enough to be a passage of its own\n\nand a second one, which is also long enough to count")}
		kbA, idsA, err := odbchat.KnowledgeBase(cache, a, "kb")
		Expect(err).NotTo(HaveOccurred())
		kbC, idsC, err := odbchat.KnowledgeBase(cache, changed, "kb")
		Expect(err).NotTo(HaveOccurred())
		Expect(kbC).NotTo(BeIdenticalTo(kbA))
		Expect(idsA).To(HaveLen(1))
		Expect(idsC).To(HaveLen(2))
	})
})
