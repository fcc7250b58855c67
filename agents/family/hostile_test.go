package family_test

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/family"
	"github.com/agentreplay/testbed/agents/family/attach"
)

// hugeJSON is about 5 MB of history-like records.
func hugeJSON() []byte {
	var b bytes.Buffer
	b.WriteString("[")
	for i := 0; b.Len() < 5<<20; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"entity_id":"sensor.pool_temperature","state":"%d.5","last_changed":"2026-02-28T%02d:%02d:00+00:00","note":".*[(?"}`,
			20+i%10, i/60%24, i%60)
	}
	b.WriteString("]")
	return b.Bytes()
}

// latin1CSV is a CSV above the inline threshold written in ISO-8859-1, so
// not UTF-8, with a stray 0xff byte.
func latin1CSV() []byte {
	var b bytes.Buffer
	b.WriteString("date,pi\xe8ce,kwh\n")
	for i := 0; b.Len() <= 2*attach.Threshold; i++ {
		fmt.Fprintf(&b, "2025-01-%02d,caf\xe9 \xff,%d.2\n", i%28+1, i)
	}
	return b.Bytes()
}

var _ = Describe("Hostile input", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	DescribeTable("takes huge and non-UTF-8 attachments and odd user text in every variant",
		func(mode attach.Mode, text string, att agents.Attachment, check func(injected string)) {
			f := w.script(roleDefault, say("ok"))
			reply := ask(w.agent(map[string]any{"attachments": string(mode)}), text, att)
			Expect(reply.Text).To(Equal("ok"))
			Expect(reply.Error).To(BeEmpty())
			Expect(reply.Attachments).To(Equal([]string{"att-1"}))

			first := userMessages(f.requests(roleDefault)[0])[0]
			Expect(first).To(HavePrefix(text), "the user's text reaches the model as written")
			injected := strings.TrimPrefix(first, text+"\n\n")
			Expect(utf8.ValidString(injected)).To(BeTrue(), "the injected attachment is valid UTF-8")
			Expect(injected).To(ContainSubstring("att-1"))
			check(injected)
		},
		Entry("5 MB JSON, schema: its schema, not its records", attach.ModeSchema, "Summarize .*[(?",
			agents.Attachment{Name: "huge.json", MIME: "application/json", Data: hugeJSON()},
			func(s string) {
				Expect(s).To(ContainSubstring("Data structure (JSON Schema):"))
				Expect(s).To(ContainSubstring(`"last_changed"`))
				Expect(len(s)).To(BeNumerically("<", 10*1024))
			}),
		Entry("5 MB JSON, placeholder: one line", attach.ModePlaceholder, strings.Repeat("a", 100<<10),
			agents.Attachment{Name: "huge.json", MIME: "application/json", Data: hugeJSON()},
			func(s string) { Expect(s).To(HaveSuffix("Binary content not accessible to model")) }),
		Entry("5 MB JSON, inline: the whole of it, as that variant means", attach.ModeInline, "\xff\xfe bytes",
			agents.Attachment{Name: "huge.json", MIME: "application/json", Data: hugeJSON()},
			func(s string) { Expect(len(s)).To(BeNumerically(">", 5<<20)) }),
		Entry("Latin-1 CSV, schema: its columns, with U+FFFD for the bad bytes", attach.ModeSchema, "rows?",
			agents.Attachment{Name: "latin1.csv", MIME: "text/csv", Data: latin1CSV()},
			func(s string) {
				Expect(s).To(ContainSubstring("pi\uFFFDce"))
				Expect(s).To(MatchRegexp(`Rows: \d+, not counting the header`))
			}),
		Entry("Latin-1 CSV, inline", attach.ModeInline, "rows?",
			agents.Attachment{Name: "latin1.csv", MIME: "text/csv", Data: latin1CSV()},
			func(s string) { Expect(s).To(ContainSubstring("caf\uFFFD \uFFFD,")) }),
		Entry("binary with a text MIME type that is not UTF-8", attach.ModeSchema, "what is it?",
			agents.Attachment{Name: "x.txt", MIME: "text/plain", Data: bytes.Repeat([]byte{0xff, 0x00, 0xfe}, 10<<10)},
			func(s string) {
				Expect(s).To(ContainSubstring("[Size: 30720 bytes (30.0 KB)]"))
				Expect(s).To(ContainSubstring("Content too large for inline display."))
				Expect(len(s)).To(BeNumerically("<", 2048), "the first line is cut at 200 characters")
			}),
	)

	It("answers jq_query over a 5 MB attachment", func() {
		f := w.script(roleDefault, call(family.ToolJQ, `{"attachment_id":"att-1","jq_program":"[length, (.[0].note | test(\".*[(?\"; \"x\"))]"}`), say("done"))
		ask(w.agent(nil), "count", agents.Attachment{Name: "huge.json", MIME: "application/json", Data: hugeJSON()})
		got := lastTool(f.requests(roleDefault)[1])
		Expect(got).To(HavePrefix("Error: jq query failed: "), "an invalid regex in the program is the model's to fix")
		Expect(len(got)).To(BeNumerically("<", 1024))

		w = newWorld()
		f = w.script(roleDefault, call(family.ToolJQ, `{"attachment_id":"att-1","jq_program":"[length, (.[0].note | test(\"\\\\.\\\\*\\\\[\"))]"}`), say("done"))
		ask(w.agent(nil), "count", agents.Attachment{Name: "huge.json", MIME: "application/json", Data: hugeJSON()})
		Expect(lastTool(f.requests(roleDefault)[1])).To(MatchRegexp(`^\[\d{4,},true\]$`))
	})
})
