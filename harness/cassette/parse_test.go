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

// withBody is recorded with its request body written as the YAML scalar given.
func withBody(scalar string) string {
	return strings.Replace(recorded, `body: '{"q":"it''s"}'`, "body: "+scalar, 1)
}

// withModel is recorded with text appended to its provenance's model name.
func withModel(text string) string {
	return strings.Replace(recorded, "model: m", "model: m"+text, 1)
}

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
		Entry("a kept literal block, as an event stream's body is written", strings.Replace(recorded, "body: |\n            {\"a\":1}\n\n            {\"b\":2}\n", "body: |+\n            data: 1\n\n            data: 2\n\n\n", 1), true),
		Entry("a kept literal block with no empty line after it", strings.Replace(recorded, "body: |", "body: |+", 1), true),
		Entry("a kept literal block followed by a line of spaces", strings.Replace(recorded, "body: |\n            {\"a\":1}\n\n            {\"b\":2}\n", "body: |+\n            data: 1\n\n  \n", 1), false),
		Entry("a double-quoted body", withBody(`"{\"q\":1}"`), true),
		Entry("a key whose colon has no space after it, and a colon and space later in the line (yaml.v3 reads the key up to that one)",
			strings.Replace(recorded, `body: '{"q":"it''s"}'`, `body:"{\"a\":1} line: x"`, 1), false),
		Entry("a double-quoted body with every escape", withBody(`"\0\a\b\t\n\v\f\r\e\ \"\'\\\N\_\L\P\x41\u00e9\U0001F914 ends in spaces   "`), true),
		Entry("a double-quoted body with an escape YAML lacks", withBody(`"\q"`), false),
		Entry("a double-quoted body with YAML 1.2's \\/, which yaml.v3 lacks", withBody(`"\/"`), false),
		Entry("a double-quoted body with a short \\u escape", withBody(`"\u00e"`), false),
		Entry("a double-quoted body that goes on to the next line", withBody("\"{\\\n            }\""), false),
		Entry("a double-quoted body with text after its quote", withBody(`"a" b`), false),
		Entry("a comment", strings.Replace(recorded, "code: 200", "code: 200 # ok", 1), false),
		Entry("an unknown key", strings.Replace(recorded, "code: 200", "code: 200\n        extra: 1", 1), false),
		Entry("a key given twice", strings.Replace(recorded, "code: 200", "code: 200\n        code: 201", 1), false),
		Entry("a flow sequence", strings.Replace(recorded, "                - application/json", "                [application/json]", 1), false),
		Entry("a null header value", strings.Replace(recorded, "- application/json", "- null", 1), false),
		Entry("a number as a header value", strings.Replace(recorded, "- application/json", "- 1.5", 1), false),
		Entry("a CRLF file", strings.ReplaceAll(recorded, "\n", "\r\n"), false),
		Entry("a control character", withModel("\x04"), false),
		Entry("DEL", withModel("\x7f"), false),
		Entry("a C1 control", withModel("\u0090"), false),
		Entry("NEL, a line break to YAML 1.1", withModel("\u0085n"), false),
		Entry("LS, a line break to YAML 1.1", withModel("\u2028n"), false),
		Entry("a byte-order mark", withModel("\ufeff"), false),
		Entry("bytes that are not UTF-8", withModel("\xff"), false),
		Entry("a cut-off character", withModel("\xe2\x82"), false),
		Entry("an overlong encoding", withModel("\xc0\x80"), false),
		Entry("a surrogate", withModel("\xed\xa0\x80"), false),
		Entry("bytes that are not UTF-8 after eight plain ones", withModel("abcdefgh\xff"), false),
		Entry("a value after two spaces", strings.Replace(recorded, "model: m", "model:  m", 1), false),
	)
})
