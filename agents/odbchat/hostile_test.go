package odbchat_test

import (
	"context"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/llmtest"
	"github.com/agentreplay/testbed/agents/odbchat"
)

var _ = Describe("Hostile input", func() {
	DescribeTable("answers odd user text with a valid envelope, in both routers",
		func(variant map[string]any, query string) {
			w := newWorld()
			env := ask(w.agent(variant), query)
			Expect(env.Mode).To(BeElementOf("tool", "explain", "code", "error"))
			Expect(env.Text).NotTo(BeEmpty())
			Expect(utf8.ValidString(env.Text)).To(BeTrue())
		},
		Entry("regex metacharacters, single-pass", singlePass, `.*[(?<sst>\d+`+"$^|"),
		Entry("regex metacharacters, legacy", legacy, `.*[(?`),
		Entry("100 KB of text, single-pass", singlePass, strings.Repeat("海溫 sst ", 100<<10/11)),
		Entry("100 KB of text, legacy", legacy, strings.Repeat("x", 100<<10)),
		Entry("non-UTF-8 bytes, single-pass", singlePass, "\xff\xfe 台灣 \xe9 海溫？"),
		Entry("non-UTF-8 bytes, legacy", legacy, "caf\xe9 \xff"),
		Entry("NUL and control characters", singlePass, "sst\x00\x1b[31m taiwan\r\n"),
	)

	// The router is a model: its arguments are as hostile as anything.
	DescribeTable("refuses router arguments that are not a region, before calling GHRSST",
		func(tool, arguments, message string) {
			w := newWorld()
			cfg := w.config(singlePass)
			cfg.Model = &llmtest.Scripted{Next: func(int, llm.Request) llm.Message {
				return llm.Message{Role: llm.RoleAssistant, Content: `{"decision":"mcp","confidence":0.9,"tool":{"name":"` + tool + `","arguments":` + arguments + `}}`}
			}}
			a, err := odbchat.New(cfg)
			Expect(err).NotTo(HaveOccurred())
			ans, err := a.Run(context.Background(), agents.Input{Turns: []string{"sea temperature there?"}})
			Expect(err).NotTo(HaveOccurred())
			env := ans.Last().Data.(odbchat.Envelope)
			Expect(env.Mode).To(Equal("error"))
			Expect(env.Text).To(ContainSubstring(odbchat.CodeInvalidArgument))
			Expect(env.Text).To(ContainSubstring(message))
			Expect(w.transport.requests(ghrsstHost)).To(BeEmpty())
		},
		Entry("a NaN corner", odbchat.ToolBBoxMean, `{"bbox":["NaN",20,123.5,26.5]}`, "bbox must contain exactly four numbers"),
		Entry("infinite corners", odbchat.ToolBBoxMean, `{"bbox":{"lon0":"-Inf","lat0":20,"lon1":"+Inf","lat1":26}}`, "bbox must have numeric lon0, lat0, lon1, lat1"),
		Entry("a NaN point", odbchat.ToolPointValue, `{"longitude":"nan","latitude":23}`, "longitude and latitude must be numbers"),
		Entry("a region key with regex metacharacters", odbchat.ToolBBoxMean, `{"bbox":"taiwan.*"}`, `unknown region "taiwan.*"`),
		Entry("a date that is not one", odbchat.ToolBBoxMean, `{"bbox":"taiwan_nearby","date":"2025-02-30"}`, `date "2025-02-30" is not YYYY-MM-DD`),
	)
})
