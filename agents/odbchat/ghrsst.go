package odbchat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents"
)

// ghrsstClient calls the ODB GHRSST REST API:
// GET /api/ghrsst?lon0&lat0[&lon1&lat1]&start&end&append=…[&sample].
type ghrsstClient struct {
	base    string
	http    *http.Client
	timeout time.Duration // per request
}

// RequestTimeout is how long ODBchat waits for one GHRSST request: the
// default of the MCP streamable-HTTP client the real server's GHRSST proxy
// uses (30 s). A request that takes longer is UNAVAILABLE (seed §4.9).
const RequestTimeout = 30 * time.Second

// targetRows bounds the rows one bbox request asks for; the stride (sample)
// is chosen so that the served grid has about this many cells.
const targetRows = 400

// sampleFor returns the stride for a bbox on the 0.01° MUR grid.
func sampleFor(b []float64) int {
	cells := math.Round((b[2]-b[0])/0.01) * math.Round((b[3]-b[1])/0.01)
	return max(1, int(math.Ceil(math.Sqrt(cells/targetRows))))
}

type row struct {
	Lon        float64  `json:"lon"`
	Lat        float64  `json:"lat"`
	Date       string   `json:"date"`
	SST        *float64 `json:"sst"`
	SSTAnomaly *float64 `json:"sst_anomaly"`
}

// rowsOf is json.Unmarshal of an answer into []row.
func rowsOf(body []byte) ([]row, error) {
	var rows []row
	err := json.Unmarshal(body, &rows)
	return rows, err
}

func ff(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// query calls the API for tool with args and returns the normalized result
// and the raw response body.
func (c *ghrsstClient) query(ctx context.Context, tool string, args Args) (*ToolResult, []byte, error) {
	res := &ToolResult{Tool: tool, Arguments: args, Date: args.Date}
	var q []string
	if tool == ToolBBoxMean {
		res.Region = args.BBox
		res.Sample = sampleFor(args.BBox)
		q = append(q, "lon0="+ff(args.BBox[0]), "lat0="+ff(args.BBox[1]), "lon1="+ff(args.BBox[2]), "lat1="+ff(args.BBox[3]))
	} else {
		res.Region = []float64{*args.Longitude, *args.Latitude}
		q = append(q, "lon0="+ff(*args.Longitude), "lat0="+ff(*args.Latitude))
	}
	q = append(q, "start="+args.Date, "end="+args.Date, "append="+strings.Join(args.Fields, ","))
	if res.Sample > 0 {
		q = append(q, "sample="+strconv.Itoa(res.Sample))
	}
	u := strings.TrimRight(c.base, "/") + "/api/ghrsst?" + strings.Join(q, "&")
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return c.fail(res, CodeInvalidArgument, err.Error()), nil, res.Error
	}
	resp, err := c.http.Do(req)
	if errors.Is(err, context.DeadlineExceeded) {
		return c.fail(res, CodeUnavailable, fmt.Sprintf("the GHRSST service did not answer within %s", c.timeout)), nil, res.Error
	}
	if err != nil {
		return c.fail(res, CodeUnavailable, "the GHRSST service did not answer"), nil, res.Error
	}
	defer resp.Body.Close()
	body, err := agents.ReadBody(resp)
	if err != nil {
		return c.fail(res, CodeUnavailable, "the GHRSST answer "+agents.Unreadable(err)), body, res.Error
	}
	if resp.StatusCode != http.StatusOK {
		code, msg := mapError(resp.StatusCode, string(body))
		return c.fail(res, code, msg), body, res.Error
	}
	rows, err := rowsOf(body)
	if err != nil {
		return c.fail(res, CodeUnavailable, "the GHRSST answer is not JSON rows"), body, res.Error
	}
	res.Rows = len(rows)
	res.SST, res.SSTAnomaly = means(rows)
	if res.SST == nil && res.SSTAnomaly == nil {
		return c.fail(res, CodeNotFound, fmt.Sprintf("no sea-surface data on %s at this location (land or ice)", args.Date)), body, res.Error
	}
	return res, body, nil
}

func (c *ghrsstClient) fail(res *ToolResult, code, msg string) *ToolResult {
	res.Error = &ToolError{Code: code, Message: msg}
	return res
}

// mapError maps the service's status and text to a standard code.
func mapError(status int, body string) (string, string) {
	msg := strings.TrimSpace(body)
	if r := []rune(msg); len(r) > 160 {
		msg = string(r[:160]) + "…"
	}
	switch {
	case status == http.StatusBadRequest && strings.Contains(msg, "Data not exist"):
		return CodeNotFound, msg
	case status == http.StatusBadRequest, status == http.StatusUnprocessableEntity:
		return CodeInvalidArgument, msg
	case status == http.StatusNotFound:
		return CodeNotFound, msg
	}
	return CodeUnavailable, msg
}

// means averages the non-null values, rounded to 2 decimals.
func means(rows []row) (sst, anom *float64) {
	var s, a float64
	var ns, na int
	for _, r := range rows {
		if r.SST != nil {
			s += *r.SST
			ns++
		}
		if r.SSTAnomaly != nil {
			a += *r.SSTAnomaly
			na++
		}
	}
	if ns > 0 {
		v := math.Round(s/float64(ns)*100) / 100
		sst = &v
	}
	if na > 0 {
		v := math.Round(a/float64(na)*100) / 100
		anom = &v
	}
	return sst, anom
}
