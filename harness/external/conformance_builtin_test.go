package external_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
)

// The Responses API's built-in tools that the program runs itself:
// apply_patch (the model sends an operation: a file to create, update or
// delete, with its diff) and shell (an action: commands to run). Each is
// read as a tool named by its type, a call's operation or action its
// arguments, and the program's *_call_output items as the calls' results.

const (
	// applyPatchItem and shellItem are the model's calls, as output items
	// and as input items sent back.
	applyPatchItem = `{"id": "apc_01", "type": "apply_patch_call", "status": "completed", "call_id": "call_a1",
		"operation": {"type": "update_file", "path": "fares.txt", "diff": "@@\n-Vis 5.90\n+Vis 6.20\n"}}`
	shellItem = `{"id": "sh_01", "type": "shell_call", "status": "completed", "call_id": "call_s1",
		"action": {"commands": ["grep -n Vis fares.txt"], "timeout_ms": 10000, "max_output_length": 4096},
		"environment": {"type": "local"}}`
	builtinTools = `[{"type": "apply_patch"}, {"type": "shell"}]`
)

var _ = Describe("the Responses API's apply_patch and shell tools", func() {
	It("read the model's calls as calls of apply_patch and shell, with the operation and the action as arguments", func() {
		conform(openAIEndpoint, "$OPENAI_BASE_URL/responses", `{"model": "gpt-5", "input": "Raise the Vis fare to 6.20.", "tools": `+builtinTools+`}`,
			whole(response("completed", `[`+shellItem+`, `+applyPatchItem+`]`, `{"input_tokens": 500, "output_tokens": 70, "total_tokens": 570}`, done)),
			read{calls: []string{
				`shell {"commands":["grep -n Vis fares.txt"],"max_output_length":4096,"timeout_ms":10000}`,
				`apply_patch {"diff":"@@\n-Vis 5.90\n+Vis 6.20\n","path":"fares.txt","type":"update_file"}`,
			}, usage: llm.Usage{InputTokens: 500, OutputTokens: 70}, finish: llm.FinishToolCalls, raw: "completed"})
	})

	It("read the tools offered, the calls sent back and the program's outputs as the tools, the calls and their results", func() {
		first := `{"model": "gpt-5", "input": "Raise the Vis fare to 6.20.", "tools": ` + builtinTools + `}`
		second := `{"model": "gpt-5", "input": [{"role": "user", "content": "Raise the Vis fare to 6.20."}, ` + shellItem + `, ` + applyPatchItem + `,
			{"type": "shell_call_output", "call_id": "call_s1", "output": [{"stdout": "3:Vis 5.90", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}]},
			{"type": "apply_patch_call_output", "call_id": "call_a1", "status": "completed", "output": "fares.txt updated"}], "tools": ` + builtinTools + `}`
		tr := runOver(&inTurn{replies: []reply{
			whole(response("completed", `[`+shellItem+`, `+applyPatchItem+`]`, `{"input_tokens": 500, "output_tokens": 70, "total_tokens": 570}`, done)),
			whole(response("completed", `[`+messageItem+`]`, `{"input_tokens": 600, "output_tokens": 12, "total_tokens": 612}`, done)),
		}}, openAIEndpoint, nil,
			`curl -s -X POST "$OPENAI_BASE_URL/responses" -H 'Content-Type: application/json' -d '`+first+`' >/dev/null
			curl -s -X POST "$OPENAI_BASE_URL/responses" -H 'Content-Type: application/json' -d '`+second+`' >/dev/null`)
		Expect(tr.calls).To(HaveLen(2))
		Expect(tr.calls[0].Tools).To(ConsistOf(HaveField("Name", "apply_patch"), HaveField("Name", "shell")))
		Expect(tr.calls[1].Messages).To(ContainElements(
			And(HaveField("Role", llm.RoleTool), HaveField("ToolCallID", "call_s1"), HaveField("Name", "shell"), HaveField("Content", "3:Vis 5.90")),
			And(HaveField("Role", llm.RoleTool), HaveField("ToolCallID", "call_a1"), HaveField("Name", "apply_patch"), HaveField("Content", "fares.txt updated"))))
		Expect(tr.tools).To(HaveLen(2), "both calls answered: %v", tr.tools)
	})
})
