package kura

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentreplay/testbed/agents/llm"
)

// Output is the Executor's result for one step.
type Output struct {
	DeltaState map[string]any `json:"deltaState"`
	Snippet    string         `json:"snippet"`
}

// parseOutput takes the first JSON object of the executor's text.
func parseOutput(text string) (Output, error) {
	obj := llm.FirstJSONObject(text)
	var out Output
	if obj == "" || json.Unmarshal([]byte(obj), &out) != nil {
		return out, fmt.Errorf("executor output has no {deltaState, snippet} JSON object (output: %q)", clip(text, 120))
	}
	if out.DeltaState == nil {
		out.DeltaState = map[string]any{}
	}
	return out, nil
}

// execute runs one step: the Executor calls exactly one tool, the agent
// runs it, and the Executor turns the result into a patch and a snippet.
func (a *Agent) execute(ctx context.Context, state State, step Step) (Output, error) {
	stepJSON, _ := json.Marshal(step)
	in, _ := json.Marshal(map[string]any{"step": json.RawMessage(stepJSON), "world_state": a.view(state)})
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: a.executor}, {Role: llm.RoleUser, Content: string(in)}}
	req := llm.Request{Role: "executor", Tools: a.tools(), Temperature: llm.Float(0.2)}
	req.Messages = msgs
	resp, err := a.cfg.Model.Chat(ctx, req)
	if err != nil {
		return Output{}, fmt.Errorf("executor: %w", err)
	}
	calls := resp.Message.ToolCalls
	if len(calls) == 0 {
		return parseOutput(resp.Message.Content)
	}
	if len(calls) > 1 {
		return Output{}, fmt.Errorf("executor called %d tools for one step; it must call exactly one", len(calls))
	}
	tc := calls[0]
	result := a.runTool(ctx, tc)
	a.log.Info("tool call", "step", step.ID, "tool", tc.Name, "args", string(tc.Arguments), "response", clip(result, 160))
	req.Messages = append(msgs, resp.Message, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Name: tc.Name, Content: result})
	resp, err = a.cfg.Model.Chat(ctx, req)
	if err != nil {
		return Output{}, fmt.Errorf("executor: %w", err)
	}
	return parseOutput(resp.Message.Content)
}
