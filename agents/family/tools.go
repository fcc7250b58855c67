package family

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/family/attach"
	"github.com/agentreplay/testbed/agents/llm"
)

// Tool names.
const (
	ToolHistory  = "download_state_history"
	ToolDelegate = "delegate_to_service"
	ToolJQ       = "jq_query"
	ToolChart    = "create_vega_chart"
)

func toolHistory() llm.Tool {
	return llm.Tool{Name: ToolHistory,
		Description: "Downloads Home Assistant state history for entities over a period and saves it as a JSON attachment.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"entity_ids":{"type":"array","items":{"type":"string"},"description":"Entity ids such as sensor.pool_temperature."},` +
			`"start":{"type":"string","description":"RFC 3339 start; default 24 hours ago."},` +
			`"end":{"type":"string","description":"RFC 3339 end; default now."},` +
			`"significant_changes_only":{"type":"boolean","description":"Only states that changed significantly; default false."}},"required":["entity_ids"]}`)}
}

func toolDelegate() llm.Tool {
	return llm.Tool{Name: ToolDelegate,
		Description: "Hands a request and its attachments to another service profile (data_visualization builds charts).",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"service":{"type":"string","enum":["data_visualization"]},` +
			`"request":{"type":"string","description":"What the service should do, in the user's words."},` +
			`"attachment_ids":{"type":"array","items":{"type":"string"}}},"required":["service","request"]}`)}
}

func toolJQ() llm.Tool {
	return llm.Tool{Name: ToolJQ,
		Description: "Queries JSON data from an attachment with a jq program, without loading the whole content into context. Examples: 'length', '.[0]', 'map(.field)', '[.[0].date, .[-1].date]'.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"attachment_id":{"type":"string"},"jq_program":{"type":"string"}},"required":["attachment_id","jq_program"]}`)}
}

func toolChart() llm.Tool {
	return llm.Tool{Name: ToolChart,
		Description: "Creates a Vega-Lite chart. The tool injects the attachments' data into the spec; the spec names fields, not values.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"spec":{"type":"string","description":"The Vega-Lite spec as a JSON string, without data values."},` +
			`"data_attachments":{"type":"array","items":{"anyOf":[{"type":"string"},{"type":"object","properties":{"id":{"type":"string"},"jq":{"type":"string"}},"required":["id"]}]}},` +
			`"data":{"type":"array","description":"Inline records, for small data."},` +
			`"title":{"type":"string"}},"required":["spec"]}`)}
}

// toolResult is what one tool call gives back.
type toolResult struct {
	text   string // the tool message
	inject string // a following message with an attachment, if any
	ok     bool
	charts int
}

func fail(format string, a ...any) toolResult {
	return toolResult{text: "Error: " + fmt.Sprintf(format, a...)}
}

// execute runs one tool call, applies the large-result safety net, and
// reports the call to the tracer with what reached the model's context.
func (a *Agent) execute(ctx context.Context, tc llm.ToolCall) toolResult {
	var res toolResult
	var raw []byte
	switch tc.Name {
	case ToolHistory:
		res, raw = a.history(ctx, tc.Arguments)
	case ToolDelegate:
		res, raw = a.delegate(ctx, tc.Arguments)
	case ToolJQ:
		res, raw = a.jq(ctx, tc.Arguments)
	case ToolChart:
		res, raw = a.chart(ctx, tc.Arguments)
	default:
		res = fail("unknown tool %q", tc.Name)
	}
	if len(res.text) >= attach.LargeResultThreshold {
		att := a.store.PutResult(tc.Name+"-result", "result of "+tc.Name, res.text)
		res.text = attach.Notice(tc.Name, att)
	}
	if raw == nil {
		raw = []byte(res.text)
	}
	var err error
	if !res.ok {
		err = fmt.Errorf("%s", clip(res.text, 300))
	}
	agents.ReportTool(a.cfg.Tracer, tc.ID, tc.Name, tc.Arguments, raw, strings.TrimSpace(res.text+"\n"+res.inject), err)
	return res
}

// delegate runs the data_visualization profile on the request and its
// attachments, injected as the variant's framework would.
func (a *Agent) delegate(ctx context.Context, argJSON json.RawMessage) (toolResult, []byte) {
	var args struct {
		Service       string   `json:"service"`
		Request       string   `json:"request"`
		AttachmentIDs []string `json:"attachment_ids"`
	}
	if err := json.Unmarshal(argJSON, &args); err != nil {
		return fail("arguments are not valid JSON: %v", err), nil
	}
	if args.Service != a.viz.name {
		return fail("unknown service %q; the only service is %s", args.Service, a.viz.name), nil
	}
	var raw []byte
	var b strings.Builder
	b.WriteString(args.Request)
	for _, id := range args.AttachmentIDs {
		att, ok := a.store.Get(id)
		if !ok {
			return fail("Attachment with ID %s not found.", id), nil
		}
		raw = append(raw, att.Data...)
		b.WriteString("\n\n" + a.inject(att))
	}
	r := a.runProfile(ctx, a.viz, []llm.Message{
		{Role: llm.RoleSystem, Content: a.viz.system},
		{Role: llm.RoleUser, Content: b.String()},
	})
	res := toolResult{text: fmt.Sprintf("[%s] %s", a.viz.name, r.text), ok: r.err == "", charts: r.charts}
	if r.err != "" {
		res.text = fmt.Sprintf("[%s failed: %s] %s", a.viz.name, r.err, r.text)
	}
	return res, raw
}
