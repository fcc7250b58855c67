package codings_test

import (
	"net/http"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/codings"
	"github.com/agentreplay/testbed/harness/codings/codingstest"
)

const text = `{"answer": "the tide turns at 14:05"}`

// encode is s encoded with coding (codingstest.Encode).
func encode(coding, s string) []byte {
	GinkgoHelper()
	b, err := codingstest.Encode(coding, []byte(s))
	Expect(err).NotTo(HaveOccurred())
	return b
}

var _ = Describe("content codings", func() {
	DescribeTable("a body is decoded as its Content-Encoding says",
		func(header, coding string) {
			got, ok := codings.Body(http.Header{"Content-Encoding": {header}}, encode(coding, text), 1<<20)
			Expect(ok).To(BeTrue())
			Expect(string(got)).To(Equal(text))
		},
		Entry(nil, "gzip", "gzip"),
		Entry(nil, "x-gzip", "gzip"),
		Entry(nil, "deflate", "deflate"),
		Entry("deflate sent without its zlib wrapper", "deflate", "raw deflate"),
		Entry(nil, "br", "br"),
		Entry(nil, "zstd", "zstd"),
		Entry("a token in capitals", "GZIP", "gzip"),
	)

	It("undoes several codings in the reverse of the order they were applied", func() {
		twice := encode("br", string(encode("gzip", text)))
		got, ok := codings.Body(http.Header{"Content-Encoding": {"gzip, br"}}, twice, 1<<20)
		Expect(ok).To(BeTrue())
		Expect(string(got)).To(Equal(text))
	})

	DescribeTable("returns a body it cannot decode whole as it came",
		func(header string, body []byte) {
			got, ok := codings.Body(http.Header{"Content-Encoding": {header}}, body, 1<<20)
			Expect(ok).To(BeFalse())
			Expect(got).To(Equal(body))
		},
		Entry("no coding", "identity", []byte(text)),
		Entry("a coding it does not know", "compress", []byte(text)),
		Entry("bytes that are not what the header says", "gzip", []byte(text)),
		Entry("a body cut off", "gzip", encode("gzip", strings.Repeat(text, 50))[:40]),
	)

	It("refuses a body that decodes to more than the limit", func() {
		_, err := codings.Undo("gzip", encode("gzip", strings.Repeat("a", 1000)), 999)
		Expect(err).To(MatchError(codings.ErrTooLarge))
		_, ok := codings.Body(http.Header{"Content-Encoding": {"gzip"}}, encode("gzip", strings.Repeat("a", 1000)), 999)
		Expect(ok).To(BeFalse())
	})

	DescribeTable("sniffs gzip and zstd by their first bytes, and brotli only when asked to try",
		func(coding string, tryBrotli bool, want string) {
			got, undone := codings.Sniff(encode(coding, text), 1<<20, tryBrotli)
			Expect(undone).To(Equal(want))
			if want != "" {
				Expect(string(got)).To(Equal(text))
			}
		},
		Entry(nil, "gzip", false, "gzip"),
		Entry(nil, "zstd", false, "zstd"),
		Entry("brotli, not tried", "br", false, ""),
		Entry("brotli, tried", "br", true, "br"),
	)

	It("keeps what a cut-off body sniffed decodes to, so its text can still be read", func() {
		var lines []string
		for i := range 400 {
			lines = append(lines, strconv.Itoa(i*7919%10007))
		}
		long := strings.Join(lines, ",")
		gz := encode("gzip", long)
		got, undone := codings.Sniff(gz[:len(gz)/2], 1<<20, false)
		Expect(undone).To(Equal("gzip"))
		Expect(got).NotTo(BeEmpty())
		Expect(len(got)).To(BeNumerically("<", len(long)))
		Expect(long).To(HavePrefix(string(got)))
	})
})
