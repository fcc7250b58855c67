package main

import (
	"os"
	"os/exec"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// mcpStreamAgent opens a session with the fixture MCP server, then its
// event stream (GET), which it gives up on, as the official TypeScript SDK's
// client closes its stream at the end; then it answers.
const mcpStreamAgent = `read l
b="$GHRSST_BASE_URL/mcp/ghrsst"
sid=$(curl -s -D - -o /dev/null -X POST "$b" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}' \
  | tr -d '\r' | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p')
curl -s -N --max-time 0.5 "$b" -H 'accept: text/event-stream' -H "mcp-session-id: $sid" -H 'mcp-protocol-version: 2025-06-18' >/dev/null
echo '{"text": "done"}'
`

var _ = Describe("a recording aborted after a failed request", func() {
	It("names the request and its error", func() {
		if _, err := exec.LookPath("curl"); err != nil {
			Skip("curl is not installed")
		}
		root := GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(root, "scenarios"), 0o755)).To(Succeed())
		Expect(os.MkdirAll(filepath.Join(root, "fixtures", "sea"), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(root, "fixtures", "sea", "routes.yaml"), []byte("mcp:\n  - path: /mcp/ghrsst\n    server: ghrsst\nroutes: []\n"), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(root, "agent.sh"), []byte(mcpStreamAgent), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(root, "scenarios", "sea.yaml"), []byte(`suite: sea
agent:
  name: sea
  command: [sh, agent.sh]
  model: {provider: openai, base_url: "https://api.openai.com/v1", model: gpt-4.1-mini}
  upstreams:
    ghrsst: {base_url: "https://eco.odb.ntu.edu.tw"}
clock: 2026-03-02T08:00:00Z
baseline: default
variants:
  default: {description: as written}
scenarios:
  - id: stream
    input: "open the stream"
    expect: {answer: {contains: done}}
`), 0o644)).To(Succeed())
		r := testbed("record", "--root", root, "--suite", "sea", "--quiet")
		Expect(r.code).To(Equal(exitFailed), r.String())
		Expect(r.stdout).To(ContainSubstring("recording aborted after a failed request (GET https://eco.odb.ntu.edu.tw/mcp/ghrsst: context canceled); the previous cassette is kept"), r.String())
	})
})
