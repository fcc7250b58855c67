package attach_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/family/attach"
	"github.com/agentreplay/testbed/agents/family/schema"
)

const (
	inlineHeader  = "[System: File from previous tool response]\n"
	schemaHeader  = "[System: Large data attachment from previous tool response]\n"
	csvHeader     = "[System: Large CSV file from previous tool response]\n"
	textHeader    = "[System: Large text file from previous tool response]\n"
	placeholderOf = "Binary content not accessible to model"
)

var _ = Describe("Inject", func() {
	Describe("JSON", func() {
		It("puts a 100-item list (under 10 KiB) in whole, even in schema mode", func() {
			data := people(100, false)
			Expect(len(data)).To(BeNumerically("<", attach.Threshold))
			a := store("people.json", "application/json", "People", data)
			Expect(attach.Inject(a, attach.ModeSchema)).To(Equal(
				inlineHeader + "[Description: People]\n[Attachment ID: att-1]\n" +
					"[Content (" + itoa(len(data)) + " bytes)]:\n" + string(data)))
		})

		It("shows a 200-item list (over 10 KiB) as its schema, without any value from the data", func() {
			data := people(200, false)
			Expect(len(data)).To(BeNumerically(">", attach.Threshold))
			got := attach.Inject(store("people.json", "application/json", "", data), attach.ModeSchema)
			golden("json-200-items.txt", got)

			Expect(got).To(HavePrefix(schemaHeader))
			Expect(got).To(ContainSubstring("Data structure (JSON Schema):\n{\n  \"$schema\": \"http://json-schema.org/schema#\",\n  \"type\": \"array\",\n  \"items\": {\n    \"type\": \"object\",\n"))
			Expect(got).To(ContainSubstring(`"type": "array"`))
			Expect(got).To(ContainSubstring(`"properties": {`))
			Expect(got).To(HaveSuffix("Note: Use the 'jq_query' tool to query this data symbolically. Reference attachment ID att-1 in tool calls."))
			Expect(got).NotTo(ContainSubstring("'jq' tool"))
			var v any
			Expect(json.Unmarshal(data, &v)).To(Succeed())
			values := leaves(v)
			Expect(values).To(ContainElements("Person 200", "Tromsø", "59.25", "true", "137"))
			// The size line is the only one with digits of its own.
			sizeLine := "[Size: " + itoa(len(data)) + " bytes (14.6 KB)]\n"
			Expect(got).To(ContainSubstring(sizeLine))
			rest := strings.Replace(got, sizeLine, "", 1)
			for _, val := range values {
				if len(val) >= 3 {
					Expect(rest).NotTo(ContainSubstring(val))
				}
			}
			Expect(rest).NotTo(MatchRegexp(`[0-9]{2}`))
		})

		It("shows a 199 KB Home Assistant history as its schema", func() {
			data := history(367)
			Expect(len(data)).To(BeNumerically("~", 199*1024, 15*1024))
			a := store("state_history.json", "application/json",
				"State history for 1 entities (367 states) from 2025-10-26 00:00:00 to 2025-10-31 00:00:00", data)
			got := attach.Inject(a, attach.ModeSchema)
			golden("history-367-states.txt", got)
			Expect(len(got)).To(BeNumerically("<", 3000))
			Expect(got).NotTo(ContainSubstring("sensor.pool_temperature"))
			Expect(got).NotTo(ContainSubstring("unavailable"))
		})

		It("shows malformed JSON over 10 KiB as text, saying that it does not parse", func() {
			data := people(200, true)
			data = data[:len(data)-2] // cut "}\n]" short
			got := attach.Inject(store("people.json", "application/json", "", data), attach.ModeSchema)
			golden("json-malformed.txt", got)
			Expect(got).To(HavePrefix(textHeader))
			Expect(got).To(ContainSubstring("[MIME type: application/json]\n"))
			Expect(got).To(ContainSubstring("is not valid JSON (syntax error at byte " + itoa(len(data)) + ")"))
			Expect(got).NotTo(ContainSubstring("JSON Schema"))
			Expect(got).To(HaveSuffix("\nContent too large for inline display."))
		})

		DescribeTable("prints the schema of the data, type first",
			func(data []byte) {
				got := attach.Inject(store("d.json", "application/json", "", data), attach.ModeSchema)
				_, printed, ok := strings.Cut(got, "Data structure (JSON Schema):\n")
				Expect(ok).To(BeTrue())
				printed, _, ok = strings.Cut(printed, "\nNote: ")
				Expect(ok).To(BeTrue())
				d := json.NewDecoder(bytes.NewReader(data))
				d.UseNumber()
				var v any
				Expect(d.Decode(&v)).To(Succeed())
				want, err := json.Marshal(schema.Infer(v))
				Expect(err).NotTo(HaveOccurred())
				Expect(printed).To(MatchJSON(want))
				const root = "{\n  \"$schema\": \"http://json-schema.org/schema#\",\n"
				Expect(printed).To(HavePrefix(root + "  \"type\": "))
				Expect(strings.TrimPrefix(printed, root)).NotTo(MatchRegexp(`[^{]\n *"type": `), "type comes first in every schema, after $schema at the root")
			},
			Entry("the 200 people", people(200, true)),
			Entry("the 199 KB history", history(367)),
			Entry("mixed and empty values", padded(`[{"a":[],"b":{},"c":[1,"x",null,{"d":[[1.5]]}],"<&>":"`, "x", `"},"s"]`, 2*attach.Threshold)),
		)

		It("still describes numbers beyond float64's range", func() {
			data := padded(`[1e400,"`, "x", `"]`, attach.Threshold+1)
			got := attach.Inject(store("big.json", "application/json", "", data), attach.ModeSchema)
			Expect(got).To(HavePrefix(schemaHeader))
			Expect(got).To(ContainSubstring(`"type": [` + "\n" + `      "number",` + "\n" + `      "string"`))
		})

		It("does not escape HTML characters in property names", func() {
			data := padded(`[{"a<b>&c":"`, "x", `"}]`, attach.Threshold+1)
			Expect(attach.Inject(store("odd.json", "application/json", "", data), attach.ModeSchema)).To(ContainSubstring(`"a<b>&c": {`))
		})
	})

	Describe("CSV", func() {
		It("puts a small CSV in whole", func() {
			data := readingsCSV(10)
			a := store("readings.csv", "text/csv", "", data)
			Expect(attach.Inject(a, attach.ModeSchema)).To(Equal(
				inlineHeader + "[Attachment ID: att-1]\n[Content (" + itoa(len(data)) + " bytes)]:\n" + string(data)))
		})

		It("shows a large CSV as its header, column types, row count and first rows", func() {
			data := readingsCSV(300)
			Expect(len(data)).To(BeNumerically(">", attach.Threshold))
			got := attach.Inject(store("readings.csv", "text/csv", "Pool readings", data), attach.ModeSchema)
			golden("csv-large.txt", got)
			Expect(got).To(HavePrefix(csvHeader + "[Description: Pool readings]\n[Attachment ID: att-1]\n"))
			Expect(got).To(ContainSubstring("\n- time: date-time\n- day: date-time\n- reading: integer\n" +
				"- temperature: number, nullable\n- pump_on: boolean\n- note: string\n"))
			Expect(got).To(ContainSubstring("\nRows: 300, not counting the header\n"))
			Expect(got).To(ContainSubstring("\ntime,day,reading,temperature,pump_on,note\n2025-10-26T00:00:00Z,2025-10-26,1,"))
			Expect(got).To(ContainSubstring(",5,"))
			Expect(got).NotTo(ContainSubstring(",6,"))
		})

		DescribeTable("infers the type of a column",
			func(want string, values ...string) {
				var b strings.Builder
				b.WriteString("k,c\n")
				for i := 0; b.Len() <= attach.Threshold; i++ {
					b.WriteString(itoa(i) + "," + values[i%len(values)] + "\n")
				}
				got := attach.Inject(store("c.csv", "text/csv", "", []byte(b.String())), attach.ModeSchema)
				Expect(got).To(ContainSubstring("\n- k: integer\n- c: " + want + "\n"))
			},
			Entry("integers", "integer", "1", "-20", "+3", "007"),
			Entry("integers and fractions", "number", "1", "2.5", "-0.25"),
			Entry("exponents and bare fractions", "number", "1e3", "-.5", "2.", "6.02E23"),
			Entry("booleans, in any case", "boolean", "true", "FALSE", "True"),
			Entry("RFC 3339 timestamps and dates", "date-time", "2025-10-31T03:40:15.673144+00:00", "2025-10-31", "2025-10-31T03:40:15Z"),
			Entry("timestamps with a space are not RFC 3339", "string", "2025-10-31 03:40:15"),
			Entry("numbers and words", "string", "1", "2.5", "high"),
			Entry("numbers and booleans", "string", "1", "true"),
			Entry("not numbers", "string", "NaN", "Inf", "0x10", "1_000"),
			Entry("blank cells make a column nullable", "integer, nullable", "1", "", "2", "  "),
			Entry("only blank cells", "empty", "", " "),
		)

		It("names unnamed and extra columns, and counts short rows as blanks", func() {
			var b strings.Builder
			b.WriteString("a,\n")
			for i := 0; b.Len() <= attach.Threshold; i++ {
				if i%2 == 0 {
					b.WriteString("1,2,x\n")
				} else {
					b.WriteString("1\n")
				}
			}
			got := attach.Inject(store("r.csv", "text/csv", "", []byte(b.String())), attach.ModeSchema)
			Expect(got).To(ContainSubstring("Columns (3):\n- a: integer\n- (column 2): integer, nullable\n- (column 3): string, nullable\n"))
		})

		It("shows a CSV without records as text", func() {
			data := padded("", "\r\n", "", attach.Threshold+2)
			got := attach.Inject(store("blank.csv", "text/csv", "", data), attach.ModeSchema)
			Expect(got).To(HavePrefix(textHeader))
			Expect(got).To(ContainSubstring("\nThe content holds no CSV records.\nLines: 5121\n"))
		})

		It("cuts long rows at 200 characters", func() {
			data := padded("name,text\nfirst,", "y", "\n", attach.Threshold+1)
			got := attach.Inject(store("long.csv", "text/csv", "", data), attach.ModeSchema)
			Expect(got).To(ContainSubstring("\nfirst," + strings.Repeat("y", 194) + "…\n"))
		})
	})

	Describe("other text", func() {
		It("shows large text as its line count and first three lines", func() {
			var b strings.Builder
			b.WriteString("2025-10-31 03:40:15 INFO pool pump started " + strings.Repeat("=", 250) + "\r\n")
			for i := 0; b.Len() <= 3*attach.Threshold; i++ {
				b.WriteString("2025-10-31 03:40:15 DEBUG reading " + itoa(i) + ": temperature nominal\r\n")
			}
			data := []byte(b.String())
			got := attach.Inject(store("pump.log", "text/plain; charset=utf-8", "Pump log", data), attach.ModeSchema)
			golden("text-large.txt", got)
			Expect(got).To(HavePrefix(textHeader + "[Description: Pump log]\n[Attachment ID: att-1]\n[MIME type: text/plain; charset=utf-8]\n"))
			Expect(got).To(ContainSubstring("\nLines: " + itoa(strings.Count(b.String(), "\n")) + "\n"))
			Expect(got).To(ContainSubstring("\nFirst 3 lines:\n2025-10-31 03:40:15 INFO pool pump started ===="))
			Expect(got).To(ContainSubstring("=…\n2025-10-31 03:40:15 DEBUG reading 0: temperature nominal\n"))
			Expect(got).NotTo(ContainSubstring("\r"))
			Expect(got).NotTo(ContainSubstring("reading 2:"))
		})

		It("counts a last line without a newline", func() {
			data := padded("one\ntwo\n", "x", "", attach.Threshold+1)
			got := attach.Inject(store("t.txt", "text/plain", "", data), attach.ModeSchema)
			Expect(got).To(ContainSubstring("\nLines: 3\nFirst 3 lines:\none\ntwo\nxxx"))
		})
	})

	DescribeTable("puts attachments of at most 10240 bytes in whole, larger ones not",
		func(mime string, head, fill, tail string) {
			at := store("f", mime, "", padded(head, fill, tail, attach.Threshold))
			over := store("f", mime, "", padded(head, fill, tail, attach.Threshold+1))
			Expect(at.Size()).To(Equal(10240))
			Expect(attach.Inject(at, attach.ModeSchema)).To(HavePrefix(inlineHeader))
			Expect(attach.Inject(over, attach.ModeSchema)).NotTo(HavePrefix(inlineHeader))
			Expect(attach.Inject(over, attach.ModeSchema)).To(HavePrefix("[System: Large "))
		},
		Entry("JSON", "application/json", `["`, "x", `"]`),
		Entry("CSV", "text/csv", "a,b\n", "1,2\n", "\n"),
		Entry("text", "text/markdown", "# Notes\n", "-", "\n"),
	)

	DescribeTable("chooses the rendering from the MIME type",
		func(mime, prefix string) {
			data := padded(`[{"a":"`, "x", `"}]`, 2*attach.Threshold)
			Expect(attach.Inject(store("f", mime, "", data), attach.ModeSchema)).To(HavePrefix(prefix))
		},
		Entry("application/json", "application/json", schemaHeader),
		Entry("with parameters", "application/json; charset=utf-8", schemaHeader),
		Entry("in capitals", "Application/JSON", schemaHeader),
		Entry("a +json suffix", "application/geo+json", schemaHeader),
		Entry("text/json", "text/json", schemaHeader),
		Entry("text/csv", "text/csv", csvHeader),
		Entry("text/csv in capitals", "TEXT/CSV", csvHeader),
		Entry("text/plain", "text/plain", textHeader),
		Entry("text/html", "text/html", textHeader),
		Entry("application/xml", "application/xml", textHeader),
		Entry("a +xml suffix", "image/svg+xml", textHeader),
		Entry("application/yaml", "application/yaml", textHeader),
		Entry("a malformed MIME type", "application/json;;", schemaHeader),
		Entry("application/octet-stream", "application/octet-stream", "[System: Attachment att-1 (f, application/octet-stream, 20480 bytes) is binary"),
		Entry("no MIME type", "", "[System: Attachment att-1 (f, unknown type, 20480 bytes) is binary"),
	)

	Describe("binary attachments", func() {
		It("announces them in one line, in every mode and at every size", func() {
			for _, size := range []int{10, attach.Threshold, 5 * attach.Threshold} {
				a := store("chart.png", "image/png", "Pool temperature chart", make([]byte, size))
				want := "[System: Attachment att-1 (chart.png, image/png, " + itoa(size) + " bytes) is binary content and is not shown to the model]"
				for _, mode := range []attach.Mode{attach.ModeSchema, attach.ModeInline, attach.ModePlaceholder} {
					Expect(attach.Inject(a, mode)).To(Equal(want), "mode %s, size %d", mode, size)
				}
			}
		})

		It("keeps the notice on one line whatever the name", func() {
			a := store("a\nb\r\nc.png", "image/png", "", []byte{1})
			Expect(attach.Inject(a, attach.ModeSchema)).To(Equal("[System: Attachment att-1 (a b c.png, image/png, 1 bytes) is binary content and is not shown to the model]"))
			Expect(attach.Inject(store("", "image/png", "", nil), attach.ModeSchema)).To(ContainSubstring("(unnamed, image/png, 0 bytes)"))
		})
	})

	DescribeTable("in placeholder mode, hides large text files as the seed did",
		func(name, mime string, data []byte) {
			a := store(name, mime, "Something", data)
			Expect(attach.Inject(a, attach.ModePlaceholder)).To(Equal(
				"[System: Attachment att-1 (" + name + ", " + itoa(len(data)) + " bytes)]\n" + placeholderOf))
		},
		Entry("the 199 KB history", "state_history.json", "application/json", history(367)),
		Entry("a large CSV", "readings.csv", "text/csv", readingsCSV(300)),
		Entry("large text", "notes.txt", "text/plain", padded("", "z", "", attach.Threshold+1)),
	)

	It("in placeholder mode, still puts small files in whole", func() {
		data := people(3, false)
		Expect(attach.Inject(store("p.json", "application/json", "", data), attach.ModePlaceholder)).To(Equal(
			inlineHeader + "[Attachment ID: att-1]\n[Content (" + itoa(len(data)) + " bytes)]:\n" + string(data)))
	})

	DescribeTable("in inline mode, puts text files in whole whatever their size",
		func(mime string, data []byte) {
			Expect(len(data)).To(BeNumerically(">", attach.Threshold))
			Expect(attach.Inject(store("f", mime, "", data), attach.ModeInline)).To(Equal(
				inlineHeader + "[Attachment ID: att-1]\n[Content (" + itoa(len(data)) + " bytes)]:\n" + string(data)))
		},
		Entry("the 199 KB history", "application/json", history(367)),
		Entry("malformed JSON", "application/json", padded("{", "x", "", 2*attach.Threshold)),
		Entry("a large CSV", "text/csv", readingsCSV(300)),
		Entry("large text", "text/plain", padded("", "z", "", 3*attach.Threshold)),
	)

	DescribeTable("treats an unknown mode as schema mode",
		func(mode attach.Mode) {
			a := store("people.json", "application/json", "", people(200, false))
			Expect(attach.Inject(a, mode)).To(Equal(attach.Inject(a, attach.ModeSchema)))
		},
		Entry("the empty mode", attach.Mode("")),
		Entry("a misspelt mode", attach.Mode("Inline")),
	)

	DescribeTable("never returns invalid UTF-8",
		func(mime string, size int, mode attach.Mode) {
			data := padded("ok \xff\xfe\xc3(\n", "caf\xe9 ", "\n", size)
			got := attach.Inject(store("bad\xffname", mime, "d\xffscription", data), mode)
			Expect(utf8.ValidString(got)).To(BeTrue(), got)
			Expect(got).To(ContainSubstring("\uFFFD"))
		},
		Entry("small text, inline", "text/plain", 100, attach.ModeSchema),
		Entry("large text, inline mode", "text/plain", 2*attach.Threshold, attach.ModeInline),
		Entry("large text, summary", "text/plain", 2*attach.Threshold, attach.ModeSchema),
		Entry("large text, placeholder", "text/plain", 2*attach.Threshold, attach.ModePlaceholder),
		Entry("large CSV, summary", "text/csv", 2*attach.Threshold, attach.ModeSchema),
		Entry("large malformed JSON, summary", "application/json", 2*attach.Threshold, attach.ModeSchema),
		Entry("binary notice", "application/octet-stream", 100, attach.ModeSchema),
	)

	It("replaces invalid bytes inside JSON strings and cuts text summaries at whole characters", func() {
		data := padded(`["`, "\xffé", `"]`, attach.Threshold+1)
		got := attach.Inject(store("j.json", "application/json", "", data), attach.ModeSchema)
		Expect(got).To(HavePrefix(schemaHeader))

		data = padded("", "é\xff", "", attach.Threshold+1)
		got = attach.Inject(store("t.txt", "text/plain", "", data), attach.ModeSchema)
		Expect(utf8.ValidString(got)).To(BeTrue())
		Expect(got).To(ContainSubstring("\n" + strings.Repeat("é\uFFFD", 100) + "…\n"))
	})
})

var _ = Describe("Notice", func() {
	DescribeTable("tells the model where a large tool result went",
		func(mime string, data []byte, want string) {
			a := attach.NewStore().Put("result", mime, "", data)
			Expect(attach.Notice("download_state_history", a)).To(Equal(want))
		},
		Entry("JSON, with the query tool", "application/json", []byte(`{"entities":[]}`),
			"Tool result from 'download_state_history' was too large (15 bytes) and was saved as attachment att-1. Use the 'jq_query' tool to query it."),
		Entry("JSON with parameters", "application/json; charset=utf-8", []byte(`[]`),
			"Tool result from 'download_state_history' was too large (2 bytes) and was saved as attachment att-1. Use the 'jq_query' tool to query it."),
		Entry("malformed JSON, which the query tool cannot read", "application/json", []byte(`{"entities":`),
			"Tool result from 'download_state_history' was too large (12 bytes) and was saved as attachment att-1."),
		Entry("text", "text/plain", []byte("hello"),
			"Tool result from 'download_state_history' was too large (5 bytes) and was saved as attachment att-1."),
		Entry("CSV", "text/csv", []byte("a,b\n1,2\n"),
			"Tool result from 'download_state_history' was too large (8 bytes) and was saved as attachment att-1."),
	)

	It("keeps the notice on one line and valid UTF-8 whatever the tool name", func() {
		got := attach.Notice("bad\xff\ntool", attach.NewStore().Put("r", "text/plain", "", nil))
		Expect(got).To(Equal("Tool result from 'bad\uFFFD tool' was too large (0 bytes) and was saved as attachment att-1."))
	})

	It("applies from 100 KiB", func() {
		Expect(attach.LargeResultThreshold).To(Equal(102400))
		Expect(attach.Threshold).To(Equal(10240))
	})
})
