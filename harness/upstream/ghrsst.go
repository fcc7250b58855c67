package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The GHRSST fixture MCP server follows the upstream's tool spec
// (cywhale/ghrsst specs/ghrsst_mcp_v0_1_0.spec and mcp/ghrsst_mcp_server.py):
// ghrsst.point_value and ghrsst.bbox_mean call the REST API
// GET /api/ghrsst, here the routes of the same file, in process.
//
//   - Inputs: point {longitude, latitude, date?, fields?, method?}, bbox
//     {bbox: [lon0, lat0, lon1, lat1], date, fields?, method?}; fields are
//     sst and sst_anomaly (default ["sst"]), method exact (default) or nearest.
//   - Outputs: point {region: [lon, lat], date, sst?, sst_anomaly?}; bbox
//     {region, date, sample, sst?, sst_anomaly?}, the means of the non-null
//     rows (null when none); only the fields asked for.
//   - method nearest: a day the service has no data for is retried on the
//     nearest day of the range its error names, at most 7 days away; the
//     answer then adds requested_date and method "nearest".
//   - Errors are MCP tool errors (isError, the message as text): the REST
//     API's own message for a 400, "Error calling tool '<name>': …" for
//     NOT_FOUND (no data for the day, as FastMCP reports a NotFoundError),
//     "GHRSST API error (<status>): …" once a 429 or 5xx has been tried
//     three times (0.75 s, then 1.5 s apart, modelled).
//   - "Too many points" doubles the sample and retries, four tries in all.
//
// One difference from the real server: it picks the sample that keeps a
// request under the API's limit of 1,000,000 points (1 for every box the
// suites ask about); the fixture data files are a coarse grid of about 400
// cells, so the fixture picks ceil(sqrt(cells/400)) with cells counted at
// 0.01°, the stride the files were made with, and reports that sample.

// ghrsstRESTPath is the REST API the tools call.
const ghrsstRESTPath = "/api/ghrsst"

// ghrsstTolerance is how far the nearest method may move a date.
const ghrsstTolerance = 7

type ghrsstPointIn struct {
	Longitude float64  `json:"longitude" jsonschema:"Decimal degrees, east positive."`
	Latitude  float64  `json:"latitude" jsonschema:"Decimal degrees, north positive."`
	Date      string   `json:"date,omitempty" jsonschema:"YYYY-MM-DD. Optional; defaults to latest."`
	Fields    []string `json:"fields,omitempty" jsonschema:"sst, sst_anomaly; defaults to ['sst'] if omitted."`
	Method    string   `json:"method,omitempty" jsonschema:"exact (default) requires the requested date; nearest falls back to the closest available day."`
}

type ghrsstBBoxIn struct {
	BBox   []float64 `json:"bbox" jsonschema:"[lon0, lat0, lon1, lat1] (can be unordered; tool will normalize)"`
	Date   string    `json:"date" jsonschema:"YYYY-MM-DD"`
	Fields []string  `json:"fields,omitempty" jsonschema:"sst, sst_anomaly; defaults to ['sst']."`
	Method string    `json:"method,omitempty" jsonschema:"exact requires the requested date; nearest falls back to the closest available day when the request misses."`
}

// ghrsstTools calls the routes as the real tools call the REST API, and
// charges the modelled time to the session.
type ghrsstTools struct {
	rs *Routes
	h  *mcpHandler
}

// addGHRSSTTools registers ghrsst.point_value and ghrsst.bbox_mean on s.
func addGHRSSTTools(s *mcp.Server, rs *Routes, h *mcpHandler) {
	g := &ghrsstTools{rs: rs, h: h}
	mcp.AddTool(s, &mcp.Tool{Name: "ghrsst.point_value",
		Description: "Get MUR (1-km) sea surface temperature and/or anomaly at a single lon/lat for a single date (defaults to latest)."},
		func(ctx context.Context, req *mcp.CallToolRequest, in ghrsstPointIn) (*mcp.CallToolResult, map[string]any, error) {
			out, err := g.point(req.Session.ID(), in)
			return nil, out, err
		})
	mcp.AddTool(s, &mcp.Tool{Name: "ghrsst.bbox_mean",
		Description: "Get mean MUR (1-km) sea surface temperature and/or anomaly over a bounding box for a single date. The tool auto-downsamples to respect server point limits."},
		func(ctx context.Context, req *mcp.CallToolRequest, in ghrsstBBoxIn) (*mcp.CallToolResult, map[string]any, error) {
			out, err := g.bbox(req.Session.ID(), in)
			return nil, out, err
		})
}

// toolError is a tool's error message, worded as the real tools word it
// (sentences, capitalized, often ending with a period).
type toolError string

func (e toolError) Error() string { return string(e) }

func toolErrorf(format string, args ...any) error { return toolError(fmt.Sprintf(format, args...)) }

// notFound is a day without data: FastMCP reports a NotFoundError raised by
// a tool with this prefix.
type notFound struct{ tool, msg string }

func (e *notFound) Error() string { return fmt.Sprintf("Error calling tool '%s': %s", e.tool, e.msg) }

func (g *ghrsstTools) point(session string, in ghrsstPointIn) (map[string]any, error) {
	const tool = "ghrsst.point_value"
	if in.Longitude < -180 || in.Longitude > 180 {
		return nil, toolErrorf("Longitude %v out of bounds [-180, 180].", in.Longitude)
	}
	if in.Latitude < -90 || in.Latitude > 90 {
		return nil, toolErrorf("Latitude %v out of bounds [-90, 90].", in.Latitude)
	}
	fields, err := checkCommon(in.Date, in.Method, in.Fields, false)
	if err != nil {
		return nil, err
	}
	fetch := func(date string) (map[string]any, error) {
		q := url.Values{"lon0": {ff(in.Longitude)}, "lat0": {ff(in.Latitude)}, "append": {strings.Join(fields, ",")}}
		if date != "" {
			q.Set("start", date)
		}
		rows, err := g.rows(session, tool, q)
		if err != nil {
			return nil, err
		}
		out := map[string]any{"region": []float64{in.Longitude, in.Latitude}, "date": rows[0]["date"]}
		for _, f := range fields {
			out[f] = rows[0][f]
		}
		return out, nil
	}
	return nearest(tool, in.Date, in.Method, fetch)
}

func (g *ghrsstTools) bbox(session string, in ghrsstBBoxIn) (map[string]any, error) {
	const tool = "ghrsst.bbox_mean"
	b, err := normalizeBBox(in.BBox)
	if err != nil {
		return nil, err
	}
	fields, err := checkCommon(in.Date, in.Method, in.Fields, true)
	if err != nil {
		return nil, err
	}
	fetch := func(date string) (map[string]any, error) {
		sample := fixtureSample(b)
		for try := 1; ; try++ {
			q := url.Values{"lon0": {ff(b[0])}, "lat0": {ff(b[1])}, "lon1": {ff(b[2])}, "lat1": {ff(b[3])},
				"start": {date}, "append": {strings.Join(fields, ",")}, "sample": {strconv.Itoa(sample)}}
			rows, err := g.rows(session, tool, q)
			if err != nil && strings.HasPrefix(err.Error(), "Too many points") {
				if try == 4 {
					return nil, toolError("Unable to satisfy bbox request within point limit retries.")
				}
				sample *= 2
				continue
			}
			if err != nil {
				return nil, err
			}
			out := map[string]any{"region": b, "date": date, "sample": sample}
			for _, f := range fields {
				out[f] = mean(rows, f)
			}
			return out, nil
		}
	}
	return nearest(tool, in.Date, in.Method, fetch)
}

// checkCommon checks the date, method and fields as the real tools do and
// returns the fields asked for, without repeats (["sst"] when none).
func checkCommon(date, method string, fields []string, dateRequired bool) ([]string, error) {
	if date != "" || dateRequired {
		if _, err := time.Parse(time.DateOnly, date); err != nil {
			return nil, toolErrorf("Invalid date (expected YYYY-MM-DD): %s", date)
		}
	}
	if method != "" && method != "exact" && method != "nearest" {
		return nil, toolErrorf("Unsupported method '%s'. Allowed: ['exact', 'nearest'].", method)
	}
	if len(fields) == 0 {
		return []string{"sst"}, nil
	}
	var out []string
	for _, f := range fields {
		if f != "sst" && f != "sst_anomaly" {
			return nil, toolErrorf("Unsupported field '%s'. Allowed: ['sst', 'sst_anomaly']", f)
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

func normalizeBBox(b []float64) ([]float64, error) {
	if len(b) != 4 {
		return nil, toolError("bbox must contain exactly four numbers: [lon0, lat0, lon1, lat1].")
	}
	for _, lon := range []float64{b[0], b[2]} {
		if lon < -180 || lon > 180 {
			return nil, toolErrorf("Longitude %v out of bounds [-180, 180].", lon)
		}
	}
	for _, lat := range []float64{b[1], b[3]} {
		if lat < -90 || lat > 90 {
			return nil, toolErrorf("Latitude %v out of bounds [-90, 90].", lat)
		}
	}
	lon0, lon1 := math.Min(b[0], b[2]), math.Max(b[0], b[2])
	lat0, lat1 := math.Min(b[1], b[3]), math.Max(b[1], b[3])
	if lon0 == lon1 || lat0 == lat1 {
		return nil, toolError("bbox must cover a non-zero area.")
	}
	return []float64{lon0, lat0, lon1, lat1}, nil
}

// fixtureSample is the stride the fixture files were made with.
func fixtureSample(b []float64) int {
	cells := math.Round((b[2]-b[0])/0.01) * math.Round((b[3]-b[1])/0.01)
	return max(1, int(math.Ceil(math.Sqrt(cells/400))))
}

func ff(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// mean averages the non-null values of field; nil when there are none.
func mean(rows []map[string]any, field string) any {
	var sum float64
	n := 0
	for _, r := range rows {
		if v, ok := r[field].(float64); ok {
			sum += v
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return sum / float64(n)
}

// availableRange reads the first and last dates an API error names.
var availableRange = regexp.MustCompile(`\d{4}-\d{2}-\d{2}`)

// nearest runs fetch on date and, for method nearest, once more on the
// nearest day of the range a NOT_FOUND names, within the tolerance.
func nearest(tool, date, method string, fetch func(string) (map[string]any, error)) (map[string]any, error) {
	out, err := fetch(date)
	var nf *notFound
	if err == nil || method != "nearest" || date == "" || !errors.As(err, &nf) {
		return out, err
	}
	dates := availableRange.FindAllString(nf.msg, -1)
	if len(dates) < 2 {
		return nil, err
	}
	first, last := min(dates[len(dates)-2], dates[len(dates)-1]), max(dates[len(dates)-2], dates[len(dates)-1])
	req, _ := time.Parse(time.DateOnly, date)
	t0, _ := time.Parse(time.DateOnly, first)
	t1, _ := time.Parse(time.DateOnly, last)
	fallback := last
	switch {
	case !req.After(t0):
		fallback = first
	case req.Before(t1) && req.Sub(t0) <= t1.Sub(req):
		fallback = first
	}
	if fallback == date {
		return nil, err
	}
	t, _ := time.Parse(time.DateOnly, fallback)
	days := int(math.Abs(t.Sub(req).Hours() / 24))
	if days > ghrsstTolerance {
		return nil, &notFound{tool, fmt.Sprintf("No data for %s; nearest available date %s is %d days away (tolerance %d days).", date, fallback, days, ghrsstTolerance)}
	}
	out, err = fetch(fallback)
	if errors.As(err, &nf) {
		return nil, &notFound{tool, fmt.Sprintf("No data for %s; nearest available date %s is also unavailable.", date, fallback)}
	}
	if err != nil {
		return nil, err
	}
	out["requested_date"], out["method"] = date, "nearest"
	return out, nil
}

// rows calls the REST routes with q, as the real tools do: a 429 or 5xx is
// tried three times in all, 0.75 s then 1.5 s apart; a 400 naming missing
// data, or a 404, is NOT_FOUND; another 400 is its message; an empty
// answer is NOT_FOUND.
func (g *ghrsstTools) rows(session, tool string, q url.Values) ([]map[string]any, error) {
	var status int
	var body string
	for try := range 3 {
		rec := httptest.NewRecorder()
		g.rs.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, ghrsstRESTPath+"?"+q.Encode(), nil))
		d, _ := time.ParseDuration(rec.Header().Get(LatencyHeader))
		g.h.spend(session, d)
		status, body = rec.Code, strings.TrimSpace(rec.Body.String())
		if status != http.StatusTooManyRequests && status < 500 {
			break
		}
		if try < 2 {
			g.h.spend(session, 750*time.Millisecond<<try)
		}
	}
	switch {
	case status == http.StatusBadRequest && (strings.Contains(body, "Data not exist") || strings.Contains(body, "available date")):
		return nil, &notFound{tool, body}
	case status == http.StatusNotFound:
		return nil, &notFound{tool, body}
	case status == http.StatusBadRequest:
		return nil, toolError(body)
	case status >= 400:
		return nil, toolErrorf("GHRSST API error (%d): %s", status, body)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(body), &rows); err != nil {
		return nil, toolError("Invalid JSON in GHRSST response.")
	}
	if len(rows) == 0 {
		return nil, &notFound{tool, "No data returned for requested parameters."}
	}
	return rows, nil
}
