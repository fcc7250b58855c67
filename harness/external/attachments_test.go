package external_test

import (
	"encoding/base64"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/external"
)

var _ = Describe("attachments sent to a service", func() {
	files := []agents.Attachment{
		{Name: "plot.png", MIME: "image/png", Description: "the plot", Data: []byte{0x89, 'P', 'N', 'G'}},
		{Name: "notes.txt", MIME: "text/plain", Data: []byte("two")},
	}
	png, txt := base64.StdEncoding.EncodeToString(files[0].Data), base64.StdEncoding.EncodeToString(files[1].Data)
	run := func(spec external.Spec, turns ...string) (agents.Answer, error) {
		GinkgoHelper()
		a, _ := newAgent(spec, &noted{})
		return a.Run(GinkgoT().Context(), agents.Input{Turns: turns, Attachments: files})
	}
	echo := func() external.Spec {
		spec := service("json")
		spec.HTTP.URL = "http://127.0.0.1:{{port}}/echo"
		return spec
	}
	sent := func(r agents.Reply) any { return r.Data.(map[string]any)["body"] }

	It("go with the first turn of the default http: body, in the JSON-lines shape", func() {
		ans, err := run(echo(), "look", "and?")
		Expect(err).NotTo(HaveOccurred())
		Expect(sent(ans.Replies[0])).To(HaveKeyWithValue("attachments", []any{
			map[string]any{"name": "plot.png", "mime": "image/png", "description": "the plot", "data": png},
			map[string]any{"name": "notes.txt", "mime": "text/plain", "description": "", "data": txt},
		}))
		Expect(sent(ans.Replies[1])).NotTo(HaveKey("attachments"), "the first turn only")
	})

	It("stand, as A2A file parts, for the list item {{attachments}} of a body, each made by the attachment: template", func() {
		spec := echo()
		spec.HTTP.Body = map[string]any{"parts": []any{map[string]any{"kind": "text", "text": "{{input}}"}, "{{attachments}}"}, "count": "{{attachments}}"}
		spec.HTTP.Attachment = map[string]any{"kind": "file", "file": map[string]any{"name": "{{name}}", "mimeType": "{{mime}}", "bytes": "{{data}}"}}
		ans, err := run(spec, "look", "and?")
		Expect(err).NotTo(HaveOccurred())
		part := func(name, mime, data string) any {
			return map[string]any{"kind": "file", "file": map[string]any{"name": name, "mimeType": mime, "bytes": data}}
		}
		Expect(sent(ans.Replies[0])).To(HaveKeyWithValue("parts", []any{map[string]any{"kind": "text", "text": "look"}, part("plot.png", "image/png", png), part("notes.txt", "text/plain", txt)}))
		Expect(sent(ans.Replies[0])).To(HaveKeyWithValue("count", HaveLen(2)), "alone elsewhere, the list")
		Expect(sent(ans.Replies[1])).To(HaveKeyWithValue("parts", []any{map[string]any{"kind": "text", "text": "and?"}}))
		Expect(sent(ans.Replies[1])).To(HaveKeyWithValue("count", BeEmpty()))
	})

	It("go in the mcp: args that have {{attachments}}", func() {
		spec := service("mcp")
		spec.HTTP, spec.MCP = nil, &external.MCP{URL: "http://127.0.0.1:{{port}}/mcp", Tool: "echo-args", Args: map[string]any{"query": "{{input}}", "files": "{{attachments}}"},
			Attachment: map[string]any{"filename": "{{name}}", "base64": "{{data}}"}}
		ans, err := run(spec, "look")
		Expect(err).NotTo(HaveOccurred())
		Expect(ans.Replies[0].Data).To(HaveKeyWithValue("args", map[string]any{"query": "look", "files": []any{
			map[string]any{"filename": "plot.png", "base64": png}, map[string]any{"filename": "notes.txt", "base64": txt}}}))
	})

	DescribeTable("are never left out: a template without {{attachments}} fails the scenario, saying how to add it",
		func(edit func(*external.Spec), want string) {
			spec := echo()
			edit(&spec)
			_, err := run(spec, "look")
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("an http: body", func(s *external.Spec) { s.HTTP.Body = map[string]any{"q": "{{input}}"} },
			`the scenario has 2 attachments, and the agent's http: body has no {{attachments}} to send them in: add it`),
		Entry("mcp: args", func(s *external.Spec) {
			s.HTTP, s.MCP = nil, &external.MCP{URL: "http://127.0.0.1:{{port}}/mcp", Tool: "echo"}
		}, `the scenario has 2 attachments, and the agent's mcp: args have no {{attachments}} to send them in: add one, like args: {query: "{{input}}", files: "{{attachments}}"}`),
	)
})
