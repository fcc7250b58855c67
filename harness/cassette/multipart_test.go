package cassette_test

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
)

var _ = Describe("redaction of a multipart/form-data body", func() {
	// An upload as an SDK sends it: the file, its purpose, and the key as
	// a form field beside them (a value no rule's pattern knows).
	const key = "acct7Hq2mPzX"
	form := func(fields ...[2]string) (http.Header, string) {
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		Expect(w.SetBoundary("testbedboundary0123")).To(Succeed())
		f, err := w.CreateFormFile("file", "notes.jsonl")
		Expect(err).NotTo(HaveOccurred())
		_, _ = f.Write([]byte(`{"q":"sea surface temperature"}` + "\n"))
		for _, kv := range fields {
			Expect(w.WriteField(kv[0], kv[1])).To(Succeed())
		}
		Expect(w.Close()).To(Succeed())
		return http.Header{"Content-Type": {w.FormDataContentType()}}, b.String()
	}
	parts := func(h http.Header, body string) map[string]string {
		_, params, err := mime.ParseMediaType(h.Get("Content-Type"))
		Expect(err).NotTo(HaveOccurred())
		r := multipart.NewReader(strings.NewReader(body), params["boundary"])
		out := map[string]string{}
		for {
			p, err := r.NextPart()
			if err == io.EOF {
				return out
			}
			Expect(err).NotTo(HaveOccurred(), "the body is still multipart")
			v, err := io.ReadAll(p)
			Expect(err).NotTo(HaveOccurred())
			out[p.FormName()] = string(v)
		}
	}

	DescribeTable("replaces the value of a credential field, and keeps every other part",
		func(field string) {
			d, err := cassette.NewDetector(nil, nil, nil)
			Expect(err).NotTo(HaveOccurred())
			h, body := form([2]string{"purpose", "batch"}, [2]string{field, key})
			out := d.Body(h, body)
			Expect(out).NotTo(ContainSubstring(key))
			got := parts(h, out)
			Expect(got[field]).To(Equal(cassette.Placeholder(key)))
			Expect(got["purpose"]).To(Equal("batch"))
			Expect(got["file"]).To(Equal(`{"q":"sea surface temperature"}` + "\n"))
		},
		Entry("api_key", "api_key"),
		Entry("key", "key"),
		Entry("access_token", "access_token"),
		Entry("password", "password"),
	)

	It("records an upload without its key, and replays it to the same upload", func() {
		path := filepath.Join(GinkgoT().TempDir(), "upload.yaml")
		up := newUpstream(`{"id":"file-1","purpose":"batch"}`)
		h, body := form([2]string{"purpose", "batch"}, [2]string{"api_key", key})
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport, Provenance: prov})
		Expect(err).NotTo(HaveOccurred())
		mustPost(tr, up.URL+"/v1/files", body, "Content-Type", h.Get("Content-Type"))
		Expect(tr.Close()).To(Succeed())
		raw, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(raw)).NotTo(ContainSubstring(key))

		rp, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{})
		Expect(err).NotTo(HaveOccurred())
		Expect(mustPost(rp, up.URL+"/v1/files", body, "Content-Type", h.Get("Content-Type"))).To(ContainSubstring(`"file-1"`))
		Expect(rp.Close()).To(Succeed())
	})

	It("replaces a field a rule names by its query key, and leaves a short word where it is not the field's value", func() {
		d, err := cassette.NewDetector(nil, nil, []cassette.Rule{{Query: "tenant"}})
		Expect(err).NotTo(HaveOccurred())
		h, body := form([2]string{"purpose", "north"}, [2]string{"tenant", "north"})
		got := parts(h, d.Body(h, body))
		Expect(got["tenant"]).To(Equal(cassette.Placeholder("north")))
		Expect(got["purpose"]).To(Equal("north"), "a 5-letter value is replaced in its own field only")

		h, body = form([2]string{"key", "key"})
		out := d.Body(h, body)
		Expect(out).To(ContainSubstring(`name="key"`), "the field's header is left as it was")
		Expect(parts(h, out)["key"]).To(Equal(cassette.Placeholder("key")))
	})
})
