package external

import (
	"cmp"
	"encoding/json"
	"net/http"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
)

// compacted reports a Responses API compaction (POST …/responses/compact,
// its request body and its answer got, took long) as a model call: the
// model read the conversation and wrote the compaction, billed as the
// answer's usage says. Its answer holds no message.
func (o *observer) compacted(req *http.Request, body, got []byte, took time.Duration) {
	mt, ok := o.cfg.Tracer.(agents.ModelTracer)
	in, err := o.threads.DecodeCompact(body)
	if !ok || err != nil {
		return
	}
	var answer struct {
		Usage struct {
			Input   int `json:"input_tokens"`
			Output  int `json:"output_tokens"`
			Details struct {
				Cached int `json:"cached_tokens"`
			} `json:"input_tokens_details"`
		} `json:"usage"`
	}
	_ = json.Unmarshal(got, &answer)
	out := llm.Response{Message: llm.Message{Role: llm.RoleAssistant},
		Usage: llm.Usage{InputTokens: answer.Usage.Input, OutputTokens: answer.Usage.Output, CacheReadTokens: answer.Usage.Details.Cached}}
	r := llm.Request{Role: req.Header.Get(RoleHeader), Messages: in.Messages, Tools: in.Tools}
	mt.ModelCall(r, cmp.Or(in.Model, o.cfg.Endpoint.Model), out, nil, took)
}
