package cassette_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
)

// recorded is a small cassette in the layout testbed writes.
const recorded = `---
version: 1
interactions:
    - request:
        body: '{"q":"it''s"}'
        form: {}
        headers:
            Content-Type:
                - application/json
        url: http://localhost:11434/v1/chat/completions
        method: POST
      response:
        body: |
            {"a":1}

            {"b":2}
        headers: {}
        status: 200 OK
        code: 200
        duration: 1.5s
provenance:
    recorder: testbed
    model: m
    standin: true
`

var _ = Describe("reading cassette files", func() {
	It("gives what yaml.Unmarshal gives for every committed cassette, and reads nearly all of them itself", func() {
		n, fast := 0, 0
		Expect(filepath.WalkDir(filepath.Join("..", "..", "cassettes"), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
				return err
			}
			data, err := os.ReadFile(path)
			Expect(err).NotTo(HaveOccurred())
			got, want, ok, err := cassette.ParseBoth(data)
			Expect(err).NotTo(HaveOccurred(), path)
			n++
			if ok {
				fast++
				Expect(got).To(Equal(want), path)
			}
			return nil
		})).To(Succeed())
		Expect(n).To(BeNumerically(">", 200))
		Expect(fast).To(Equal(n), "every committed cassette is in the layout the fast reader reads")
	})

	DescribeTable("reads what yaml.Unmarshal reads, or declines and lets it",
		func(text string, fast bool) {
			got, want, ok, err := cassette.ParseBoth([]byte(text))
			Expect(ok).To(Equal(fast))
			if ok {
				Expect(err).NotTo(HaveOccurred())
				Expect(got).To(Equal(want))
			}
		},
		Entry("the layout testbed writes", recorded, true),
		Entry("a stripped literal block", strings.Replace(recorded, "body: |", "body: |-", 1), true),
		Entry("a folded block", strings.Replace(recorded, "body: |", "body: >", 1), false),
		Entry("a double-quoted body", strings.Replace(recorded, `body: '{"q":"it''s"}'`, `body: "{\"q\":1}"`, 1), true),
		Entry("a double-quoted body with every escape", strings.Replace(recorded, `body: '{"q":"it''s"}'`,
			`body: "\0\a\b\t\n\v\f\r\e\ \"\'\\\N\_\L\P\x41\u00e9\U0001F914 ends in spaces   "`, 1), true),
		Entry("a double-quoted body with an escape YAML lacks", strings.Replace(recorded, `body: '{"q":"it''s"}'`, `body: "\q"`, 1), false),
		Entry("a double-quoted body with YAML 1.2's \\/, which yaml.v3 lacks", strings.Replace(recorded, `body: '{"q":"it''s"}'`, `body: "\/"`, 1), false),
		Entry("a double-quoted body with a short \\u escape", strings.Replace(recorded, `body: '{"q":"it''s"}'`, `body: "\u00e"`, 1), false),
		Entry("a double-quoted body that goes on to the next line", strings.Replace(recorded, `body: '{"q":"it''s"}'`, "body: \"{\\\n            }\"", 1), false),
		Entry("a double-quoted body with text after its quote", strings.Replace(recorded, `body: '{"q":"it''s"}'`, `body: "a" b`, 1), false),
		Entry("a comment", strings.Replace(recorded, "code: 200", "code: 200 # ok", 1), false),
		Entry("an unknown key", strings.Replace(recorded, "code: 200", "code: 200\n        extra: 1", 1), false),
		Entry("a key given twice", strings.Replace(recorded, "code: 200", "code: 200\n        code: 201", 1), false),
		Entry("a flow sequence", strings.Replace(recorded, "                - application/json", "                [application/json]", 1), false),
		Entry("a null header value", strings.Replace(recorded, "- application/json", "- null", 1), false),
		Entry("a number as a header value", strings.Replace(recorded, "- application/json", "- 1.5", 1), false),
		Entry("a CRLF file", strings.ReplaceAll(recorded, "\n", "\r\n"), false),
		Entry("a control character", strings.Replace(recorded, "model: m", "model: m\x04", 1), false),
		Entry("DEL", strings.Replace(recorded, "model: m", "model: m\x7f", 1), false),
		Entry("a C1 control", strings.Replace(recorded, "model: m", "model: m\u0090", 1), false),
		Entry("NEL, a line break to YAML 1.1", strings.Replace(recorded, "model: m", "model: m\u0085n", 1), false),
		Entry("LS, a line break to YAML 1.1", strings.Replace(recorded, "model: m", "model: m\u2028n", 1), false),
		Entry("a byte-order mark", strings.Replace(recorded, "model: m", "model: m\ufeff", 1), false),
		Entry("bytes that are not UTF-8", strings.Replace(recorded, "model: m", "model: m\xff", 1), false),
		Entry("a value after two spaces", strings.Replace(recorded, "model: m", "model:  m", 1), false),
	)
})
