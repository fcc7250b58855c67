package climate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/climate/trim"
	"github.com/agentreplay/testbed/agents/llm"
)

// Tool names.
const (
	ToolUserInventories = "get_user_inventories"
	ToolInventory       = "get_inventory"
	ToolDatasources     = "get_all_datasources"
	ToolCitySearch      = "city_inventory_search"
	ToolVectorSearch    = "climate_vector_search"
)

// Error codes of a failed tool call, as the service reports them.
const (
	codeInvalidArguments = "invalid_arguments"
	codeCC               = "cc_error"
	codeFormat           = "invalid_response_format"
)

func toolDefs() []llm.Tool {
	idArg := `{"type":"object","properties":{"inventory_id":{"type":"string","description":"The inventoryId (uuid) of the inventory."}},"required":["inventory_id"]}`
	return []llm.Tool{
		{Name: ToolUserInventories, Parameters: json.RawMessage(`{"type":"object","properties":{}}`),
			Description: "PRIMARY TOOL for any user inventory query: lists the user's inventories (id, name, year, type, city). Use when the user browses without naming a city."},
		{Name: ToolCitySearch, Parameters: json.RawMessage(`{"type":"object","properties":{"city_name":{"type":"string","description":"City name as the user wrote it; case does not matter."},"year":{"type":["integer","null"],"description":"Only this inventory year, if given."}},"required":["city_name"]}`),
			Description: "Finds the user's inventories for a named city, optionally for one year, newest first. Use when the user names a city."},
		{Name: ToolInventory, Parameters: json.RawMessage(idArg),
			Description: "Details of one inventory: name, year, total emissions, type, global warming potentials, city. Call after the inventory is identified."},
		{Name: ToolDatasources, Parameters: json.RawMessage(idArg),
			Description: "Data sources available for an identified inventory: name, coverage years, retrieval method, headline emissions or record counts, issues. Only after get_inventory."},
		{Name: ToolVectorSearch, Parameters: json.RawMessage(`{"type":"object","properties":{"question":{"type":"string","description":"The climate question to find excerpts for."}},"required":["question"]}`),
			Description: "Searches the internal climate knowledge base (GPC, scopes, GWP, emission factors, sector methods). DO NOT USE FOR CityCatalyst operations or inventory questions."},
	}
}

// toolOutput is a tool's result as the model sees it.
type toolOutput struct {
	content string
	success bool
	code    string
}

// envelope is the uniform tool result.
type envelope struct {
	Success   bool   `json:"success"`
	Data      any    `json:"data,omitempty"`
	Error     string `json:"error,omitempty"`
	ErrorCode string `json:"error_code,omitempty"`
}

// execute runs one tool call and reports it to the tracer: the raw upstream
// bytes and the text put into the model's context.
func (a *Agent) execute(ctx context.Context, tc llm.ToolCall) toolOutput {
	var (
		raw  []byte
		data any
		err  error
		text string
	)
	switch tc.Name {
	case ToolUserInventories:
		raw, data, err = a.userInventories(ctx)
	case ToolCitySearch:
		raw, data, err = a.citySearch(ctx, tc.Arguments)
	case ToolInventory:
		raw, data, err = a.inventory(ctx, tc.Arguments)
	case ToolDatasources:
		raw, data, err = a.datasources(ctx, tc.Arguments)
	case ToolVectorSearch:
		raw, text, err = a.vectorSearch(ctx, tc.Arguments)
	default:
		err = &toolError{code: codeInvalidArguments, msg: fmt.Sprintf("unknown tool %q", tc.Name)}
	}
	out := toolOutput{success: err == nil}
	switch {
	case err != nil:
		code := codeCC
		var te *toolError
		if errors.As(err, &te) {
			code = te.code
		}
		out.code = code
		out.content = marshal(envelope{Error: err.Error(), ErrorCode: code})
	case tc.Name == ToolVectorSearch:
		out.content = text
	default:
		out.content = marshal(envelope{Success: true, Data: data})
	}
	agents.ReportTool(a.cfg.Tracer, tc.ID, tc.Name, tc.Arguments, raw, out.content, err)
	return out
}

type toolError struct{ code, msg string }

func (e *toolError) Error() string { return e.msg }

// marshal is json.Marshal(e) as a string; data that cannot be encoded
// gives an invalid_response_format error envelope.
func marshal(e envelope) string {
	b, err := json.Marshal(e)
	if err != nil {
		return `{"success":false,"error":"could not encode the tool result","error_code":"invalid_response_format"}`
	}
	return string(b)
}

// fetch gets path and decodes a JSON object body. A run's scenarios are
// often given the same answer (up to 450 KB), so a run decodes each
// distinct answer once (agents.BuildOnce) and the body is shared: callers
// must not change it.
func (a *Agent) fetch(ctx context.Context, path string) ([]byte, map[string]any, error) {
	raw, err := a.cc.get(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	body, err := agents.BuildOnce(a.cfg.Cache, "citycatalyst answer", func() (map[string]any, error) {
		var body map[string]any
		err := json.Unmarshal(raw, &body)
		return body, err
	}, raw)
	if err != nil {
		return raw, nil, &toolError{code: codeFormat, msg: "CityCatalyst answered with something that is not a JSON object"}
	}
	return raw, body, nil
}

func (a *Agent) userInventories(ctx context.Context) ([]byte, any, error) {
	raw, body, err := a.fetch(ctx, "/api/v1/user/inventories/")
	if err != nil {
		return raw, nil, err
	}
	if a.opts.Trim == TrimNone {
		return raw, body, nil
	}
	return raw, trim.Listing(body), nil
}

// citySearch matches city.name case-insensitively against the user's text,
// quoted so that regex metacharacters match themselves, filters by year and
// sorts newest first.
func (a *Agent) citySearch(ctx context.Context, argJSON json.RawMessage) ([]byte, any, error) {
	var args struct {
		CityName string `json:"city_name"`
		Year     *int   `json:"year"`
	}
	if err := json.Unmarshal(argJSON, &args); err != nil || strings.TrimSpace(args.CityName) == "" {
		return nil, nil, &toolError{code: codeInvalidArguments, msg: "city_name is required"}
	}
	raw, body, err := a.fetch(ctx, "/api/v1/user/inventories/")
	if err != nil {
		return raw, nil, err
	}
	re := regexp.MustCompile("(?i)" + regexp.QuoteMeta(strings.TrimSpace(args.CityName)))
	list, _ := body["data"].([]any)
	var hits []any
	for _, item := range list {
		inv, _ := item.(map[string]any)
		city, _ := inv["city"].(map[string]any)
		name, _ := city["name"].(string)
		if !re.MatchString(name) {
			continue
		}
		if args.Year != nil {
			if y, _ := inv["year"].(float64); int(y) != *args.Year {
				continue
			}
		}
		hits = append(hits, inv)
	}
	sort.SliceStable(hits, func(i, j int) bool {
		yi, _ := hits[i].(map[string]any)["year"].(float64)
		yj, _ := hits[j].(map[string]any)["year"].(float64)
		return yi > yj
	})
	result := map[string]any{"data": hits}
	if hits == nil {
		result["data"] = []any{}
	}
	if a.opts.Trim == TrimNone {
		return raw, result, nil
	}
	return raw, trim.Listing(result), nil
}

func inventoryID(argJSON json.RawMessage) (string, error) {
	var args struct {
		ID string `json:"inventory_id"`
	}
	if err := json.Unmarshal(argJSON, &args); err != nil || strings.TrimSpace(args.ID) == "" {
		return "", &toolError{code: codeInvalidArguments, msg: "inventory_id is required"}
	}
	return url.PathEscape(strings.TrimSpace(args.ID)), nil
}

func (a *Agent) inventory(ctx context.Context, argJSON json.RawMessage) ([]byte, any, error) {
	id, err := inventoryID(argJSON)
	if err != nil {
		return nil, nil, err
	}
	raw, body, err := a.fetch(ctx, "/api/v1/inventory/"+id)
	if err != nil || a.opts.Trim == TrimNone {
		return raw, body, err
	}
	return raw, trim.Inventory(body), nil
}

func (a *Agent) datasources(ctx context.Context, argJSON json.RawMessage) ([]byte, any, error) {
	id, err := inventoryID(argJSON)
	if err != nil {
		return nil, nil, err
	}
	raw, body, err := a.fetch(ctx, "/api/v1/datasource/"+id+"/")
	if err != nil {
		return raw, nil, err
	}
	switch a.opts.Trim {
	case TrimNone:
		return raw, body, nil
	case TrimSeed:
		return raw, trim.SeedDatasources(body), nil
	}
	return raw, trim.Datasources(body), nil
}
