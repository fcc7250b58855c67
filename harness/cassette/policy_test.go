package cassette_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
)

var _ = Describe("the policy in a cassette's provenance", func() {
	// record saves one exchange with a server that answers with the given
	// PolicyHeader (none when empty), under provenance p.
	record := func(p cassette.Provenance, policy string) string {
		GinkgoHelper()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if policy != "" {
				w.Header().Set(cassette.PolicyHeader, policy)
			}
			w.Write([]byte(`{"answer": "ok"}`))
		}))
		DeferCleanup(srv.Close)
		path := filepath.Join(GinkgoT().TempDir(), "s", "v", "a.yaml")
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport, Provenance: p})
		Expect(err).NotTo(HaveOccurred())
		Expect(mustPost(tr, srv.URL+"/v1/chat/completions", greet)).To(Equal(`{"answer": "ok"}`))
		Expect(tr.Close()).To(Succeed())
		return path
	}

	DescribeTable("is what the stand-in's PolicyHeader said",
		func(p cassette.Provenance, header, policy, label string) {
			path := record(p, header)
			got, err := cassette.ReadProvenance(path)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Policy).To(Equal(policy))
			Expect(got.String()).To(Equal(label))
			if policy == "" {
				Expect(readOnDisk(path).Provenance).NotTo(HaveKey("policy"), "cassettes of agents' own policies keep their bytes")
			} else {
				Expect(readOnDisk(path).Provenance).To(HaveKeyWithValue("policy", policy))
			}

			tr, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(tr.Close)
			replayed, ok := tr.Provenance()
			Expect(ok).To(BeTrue())
			Expect(replayed).To(Equal(got))
		},
		Entry("the generic plumbing stand-in", prov, cassette.GenericPolicy, "generic", "generic plumbing stand-in shaped like qwen3:4b's API"),
		Entry("another named policy", prov, "experimental", "experimental", "rule-based stand-in shaped like qwen3:4b's API (experimental policy)"),
		Entry("an agent's own policy: no header", prov, "", "", "rule-based stand-in shaped like qwen3:4b's API"),
		Entry("a real model: a header is not believed", cassette.Provenance{Provider: "openai", Model: "gpt-4.1-mini"}, cassette.GenericPolicy, "", "openai gpt-4.1-mini"),
	)
})
