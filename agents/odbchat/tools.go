package odbchat

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents"
)

// Tool names of the catalog.
const (
	ToolBBoxMean   = "ghrsst.bbox_mean"
	ToolPointValue = "ghrsst.point_value"
)

// Error codes of a failed tool call.
const (
	CodeInvalidArgument = "INVALID_ARGUMENT"
	CodeNotFound        = "NOT_FOUND"
	CodeUnavailable     = "UNAVAILABLE"
)

type catalogEntry struct {
	Name        string            `json:"name"`
	ArgsSchema  map[string]string `json:"args_schema"`
	Description string            `json:"description"`
}

// toolCatalog is the small catalog sent with every router call.
func toolCatalog() []catalogEntry {
	return []catalogEntry{
		{Name: ToolBBoxMean, Description: "Daily mean SST and SST anomaly over a bbox.",
			ArgsSchema: map[string]string{"bbox": "[lon0,lat0,lon1,lat1] or a geo_registry key", "date": "YYYY-MM-DD", "fields?": "['sst','sst_anomaly']"}},
		{Name: ToolPointValue, Description: "Daily SST and SST anomaly at a point.",
			ArgsSchema: map[string]string{"longitude": "float", "latitude": "float", "date": "YYYY-MM-DD", "fields?": "['sst','sst_anomaly']"}},
	}
}

// allowedArgs returns the argument names tool accepts; ok is false for a
// tool outside the catalog.
func allowedArgs(tool string) (names []string, ok bool) {
	switch tool {
	case ToolBBoxMean:
		return []string{"bbox", "date", "fields"}, true
	case ToolPointValue:
		return []string{"longitude", "latitude", "date", "fields"}, true
	}
	return nil, false
}

// geoRegistry maps region keys to [lon0, lat0, lon1, lat1].
func geoRegistry() map[string][]float64 {
	return map[string][]float64{
		"taiwan_nearby":    {118.0, 20.0, 123.5, 26.5},
		"hawaiian_islands": {-162.5, 18.5, -153.5, 23.0},
		"taiwan_strait":    {118.0, 21.5, 121.5, 26.0},
	}
}

func defaultFields() []string { return []string{"sst", "sst_anomaly"} }

// ToolError is a tool failure with a standard code.
type ToolError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *ToolError) Error() string { return e.Code + ": " + e.Message }

// ToolResult is the normalized outcome of one GHRSST call.
type ToolResult struct {
	Tool          string     `json:"tool"`
	Arguments     Args       `json:"arguments"`
	Region        []float64  `json:"region,omitempty"`
	Date          string     `json:"date,omitempty"`
	RequestedDate string     `json:"requested_date,omitempty"` // set when the date fell back
	Sample        int        `json:"sample,omitempty"`
	SST           *float64   `json:"sst"`
	SSTAnomaly    *float64   `json:"sst_anomaly"`
	Error         *ToolError `json:"error,omitempty"`
	// landOnly is set when the service answered with no sea value (land
	// or ice): NOT_FOUND, but not a day to retry.
	landOnly bool
}

// Args are normalized tool arguments.
type Args struct {
	BBox      []float64 `json:"bbox,omitempty"`
	Longitude *float64  `json:"longitude,omitempty"`
	Latitude  *float64  `json:"latitude,omitempty"`
	Date      string    `json:"date"`
	Fields    []string  `json:"fields"`
}

// normalize validates the plan's arguments for tool, server-side: unknown
// arguments dropped, registry keys replaced, bbox ordered and checked, date
// defaulted to today in Asia/Taipei, fields defaulted.
func normalize(tool string, in map[string]any, today string) (Args, error) {
	allowed, _ := allowedArgs(tool)
	args := Args{Date: today, Fields: defaultFields()}
	for k := range in {
		if !contains(allowed, k) {
			delete(in, k)
		}
	}
	if v, ok := in["date"]; ok && v != nil {
		d, err := ensureDate(v)
		if err != nil {
			return args, err
		}
		args.Date = d
	}
	if v, ok := in["fields"]; ok && v != nil {
		f, err := normalizeFields(v)
		if err != nil {
			return args, err
		}
		args.Fields = f
	}
	switch tool {
	case ToolBBoxMean:
		b, err := normalizeBBox(in["bbox"])
		if err != nil {
			return args, err
		}
		args.BBox = b
	case ToolPointValue:
		lon, err1 := number(in["longitude"])
		lat, err2 := number(in["latitude"])
		if err1 != nil || err2 != nil {
			return args, invalid("longitude and latitude must be numbers")
		}
		if lon > 180 && lon <= 360 {
			lon -= 360
		}
		if lon < -180 || lon > 180 || lat < -90 || lat > 90 {
			return args, invalid(fmt.Sprintf("point (%g, %g) is outside longitude −180…180, latitude −90…90", lon, lat))
		}
		args.Longitude, args.Latitude = &lon, &lat
	}
	return args, nil
}

func invalid(msg string) *ToolError { return &ToolError{Code: CodeInvalidArgument, Message: msg} }

// ensureDate accepts YYYY-MM-DD (or YYYY/MM/DD) and returns YYYY-MM-DD.
func ensureDate(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", invalid("date must be a YYYY-MM-DD string")
	}
	s = strings.ReplaceAll(strings.TrimSpace(s), "/", "-")
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return "", invalid(fmt.Sprintf("date %q is not YYYY-MM-DD", s))
	}
	return t.Format(time.DateOnly), nil
}

func normalizeFields(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		if s, ok := v.(string); ok {
			list = []any{s}
		} else {
			return nil, invalid("fields must be a list of sst, sst_anomaly")
		}
	}
	var out []string
	for _, f := range list {
		s, _ := f.(string)
		if s != "sst" && s != "sst_anomaly" {
			return nil, invalid(fmt.Sprintf("unsupported field %v (use sst, sst_anomaly)", f))
		}
		if !contains(out, s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return defaultFields(), nil
	}
	sort.Strings(out)
	return out, nil
}

// normalizeBBox resolves registry keys, accepts lists and {lon0,…} maps,
// orders the corners and checks ranges and area.
func normalizeBBox(v any) ([]float64, error) {
	var b []float64
	switch x := v.(type) {
	case string:
		r, ok := geoRegistry()[strings.TrimSpace(x)]
		if !ok {
			return nil, invalid(fmt.Sprintf("unknown region %q (known: taiwan_nearby, hawaiian_islands, taiwan_strait)", x))
		}
		b = r
	case []any:
		for _, e := range x {
			f, err := number(e)
			if err != nil {
				return nil, invalid("bbox must contain exactly four numbers: [lon0, lat0, lon1, lat1]")
			}
			b = append(b, f)
		}
	case map[string]any:
		for _, k := range []string{"lon0", "lat0", "lon1", "lat1"} {
			f, err := number(x[k])
			if err != nil {
				return nil, invalid("bbox must have numeric lon0, lat0, lon1, lat1")
			}
			b = append(b, f)
		}
	default:
		return nil, invalid("bbox is missing")
	}
	if len(b) != 4 {
		return nil, invalid("bbox must contain exactly four numbers: [lon0, lat0, lon1, lat1]")
	}
	lon0, lat0, lon1, lat1 := math.Min(b[0], b[2]), math.Min(b[1], b[3]), math.Max(b[0], b[2]), math.Max(b[1], b[3])
	if lon0 < -180 || lon1 > 180 || lat0 < -90 || lat1 > 90 {
		return nil, invalid(fmt.Sprintf("bbox %v is outside longitude −180…180, latitude −90…90", b))
	}
	if lon0 == lon1 || lat0 == lat1 {
		return nil, invalid("bbox has zero area")
	}
	return []float64{lon0, lat0, lon1, lat1}, nil
}

// number reads a coordinate given as a JSON number or a numeric string. It
// refuses NaN and infinities, which strconv.ParseFloat accepts as "NaN" and
// "Inf" and which no range check would catch.
func number(v any) (float64, error) {
	var f float64
	var err error
	switch x := v.(type) {
	case float64:
		f = x
	case json.Number:
		f, err = x.Float64()
	case string:
		f, err = strconv.ParseFloat(strings.TrimSpace(x), 64)
	default:
		return 0, fmt.Errorf("not a number: %v", v)
	}
	if err == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
		err = fmt.Errorf("not a finite number: %v", v)
	}
	return f, err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// runTool validates the plan's tool and arguments, calls GHRSST, retries
// yesterday once when today has no data, and renders the answer. A tool
// outside the catalog degrades to explain, which answers query, the user's
// question.
func (a *Agent) runTool(ctx context.Context, query string, plan *Plan, lang string, now time.Time) (Envelope, bool) {
	name := plan.Tool.Name
	if _, ok := allowedArgs(name); !ok {
		// A tool outside the catalog degrades to explain.
		a.cfg.Tracer.Note(agents.NoteRoute, agents.Route{Mode: DecisionExplain})
		env, err := a.onepassAnswer(ctx, query, DecisionExplain, lang)
		if err != nil {
			return a.failure(lang, CodeUnavailable, err.Error(), plan), false
		}
		return env, false
	}
	a.cfg.Tracer.Note(agents.NoteRoute, agents.Route{Mode: "tool", Tool: name})
	today := now.Format(time.DateOnly)
	argsIn := plan.Tool.Arguments
	if argsIn == nil {
		argsIn = map[string]any{}
	}
	args, err := normalize(name, argsIn, today)
	if err != nil {
		te := err.(*ToolError)
		raw, _ := json.Marshal(plan.Tool.Arguments)
		a.cfg.Tracer.Note("tool_rejected", te.Message)
		a.cfg.Tracer.Tool(name, raw, nil, "", te)
		env := a.failure(lang, te.Code, te.Message, plan)
		env.Raw.ToolResult = &ToolResult{Tool: name, Arguments: args, Error: te}
		return env, false
	}
	res := a.call(ctx, name, args)
	retried := false
	// Only a day the service has no data for is retried: a place that
	// answered with land or ice only would not be sea the day before either.
	if res.Error != nil && res.Error.Code == CodeNotFound && !res.landOnly && args.Date == today {
		prev := args
		prev.Date = now.AddDate(0, 0, -1).Format(time.DateOnly)
		retried = true
		a.cfg.Tracer.Note("retried_yesterday", true)
		res = a.call(ctx, name, prev)
		if res.Error == nil {
			res.RequestedDate = today
		}
	}
	if res.Error != nil {
		env := a.failure(lang, res.Error.Code, res.Error.Message, plan)
		env.Raw.ToolResult = res
		return env, retried
	}
	return Envelope{Mode: "tool", Text: render(res, lang), Source: name, Raw: Raw{ToolResult: res}}, retried
}

// call runs one GHRSST tool and reports it to the tracer.
func (a *Agent) call(ctx context.Context, name string, args Args) *ToolResult {
	argJSON, _ := json.Marshal(args)
	res, raw, err := a.ghrsst.query(ctx, name, args)
	out, _ := json.Marshal(res)
	if err != nil {
		a.cfg.Tracer.Tool(name, argJSON, raw, string(out), err)
		return res
	}
	// ODBchat puts no tool output into a model's context: what it hands on
	// is the normalized result, so that is the "context" side of trimming.
	a.cfg.Tracer.Tool(name, argJSON, raw, string(out), nil)
	return res
}
