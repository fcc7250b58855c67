package family

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"mime"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/family/attach"
)

// dataRef is one entry of data_attachments: an id, or an id with a jq
// program that turns the attachment into a list of records.
type dataRef struct {
	ID string `json:"id"`
	JQ string `json:"jq"`
}

func (d *dataRef) UnmarshalJSON(b []byte) error {
	var id string
	if json.Unmarshal(b, &id) == nil {
		d.ID = id
		return nil
	}
	type plain dataRef
	return json.Unmarshal(b, (*plain)(d))
}

// chart is create_vega_chart: it injects the full data of the attachments
// into the spec, checks that every field the encoding names exists in the
// data, and reports the complete spec as an artifact. The model sees only a
// one-line result.
func (a *Agent) chart(ctx context.Context, argJSON json.RawMessage) (toolResult, []byte) {
	var args struct {
		Spec            string           `json:"spec"`
		DataAttachments []dataRef        `json:"data_attachments"`
		Data            []map[string]any `json:"data"`
		Title           string           `json:"title"`
	}
	if err := json.Unmarshal(argJSON, &args); err != nil {
		return fail("arguments are not valid JSON: %v", err), nil
	}
	var spec map[string]any
	if err := json.Unmarshal([]byte(args.Spec), &spec); err != nil || spec == nil {
		return fail("spec is not a JSON object: give the Vega-Lite spec as a JSON string"), nil
	}
	records := append([]map[string]any(nil), args.Data...)
	var raw []byte
	for _, ref := range args.DataAttachments {
		att, ok := a.store.Get(ref.ID)
		if !ok {
			return fail("Attachment with ID %s not found.", ref.ID), nil
		}
		raw = append(raw, att.Data...)
		recs, err := recordsOf(ctx, att, ref.JQ)
		if err != nil {
			return fail("attachment %s: %v", ref.ID, err), raw
		}
		records = append(records, recs...)
	}
	if len(records) == 0 {
		return fail("the chart has no data: pass data_attachments (with a jq program if needed) or data"), raw
	}
	have := map[string]bool{}
	for _, r := range records {
		for k := range r {
			have[k] = true
		}
	}
	for _, f := range encodingFields(spec) {
		if !have[f] {
			return fail("the encoding names field %q, which is not in the data (fields: %s)", f, strings.Join(slices.Sorted(maps.Keys(have)), ", ")), raw
		}
	}
	values := make([]any, len(records))
	for i, r := range records {
		values[i] = r
	}
	spec["data"] = map[string]any{"values": values}
	if args.Title != "" {
		spec["title"] = args.Title
	}
	if _, ok := spec["$schema"]; !ok {
		spec["$schema"] = "https://vega.github.io/schema/vega-lite/v5.json"
	}
	full, err := json.Marshal(spec)
	if err != nil {
		return fail("could not encode the chart: %v", err), raw
	}
	schema, err := vegaLite(a.cfg.Cache, a.cfg.Data)
	if err != nil {
		return fail("could not check the chart: %v", err), raw
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(full))
	if err == nil {
		err = schema.Validate(doc)
	}
	if err != nil {
		return fail("the spec is not valid Vega-Lite (checked against the v5.23.0 schema): %s; fix the spec and call create_vega_chart again", schemaProblems(err)), raw
	}
	a.cfg.Tracer.Note(agents.NoteArtifact, agents.Artifact{Kind: "vega-lite", Title: args.Title, Spec: full})
	return toolResult{ok: true, charts: 1,
		text: fmt.Sprintf("Chart created: %q, a %s chart of %d data points.", args.Title, markOf(spec), len(records))}, raw
}

// recordsOf turns an attachment into records: CSV rows, or JSON through an
// optional jq program that must yield a list of objects.
func recordsOf(ctx context.Context, att attach.Attachment, program string) ([]map[string]any, error) {
	if mt, _, err := mime.ParseMediaType(att.MIME); err == nil && (mt == "text/csv" || mt == "application/csv") {
		return csvRecords(att.Data)
	}
	data := att.Data
	if program != "" {
		out, err := runJQ(ctx, att, program)
		if err != nil {
			return nil, err
		}
		data = out
	}
	var recs []map[string]any
	if err := json.Unmarshal(data, &recs); err != nil {
		return nil, fmt.Errorf("the data is not a list of records; give a jq program that makes one (for example '.entities[0].states | map({time: .last_changed, value: (.state | tonumber?)})')")
	}
	return recs, nil
}

// csvRecords reads a CSV with a header row; numeric cells become numbers.
func csvRecords(data []byte) ([]map[string]any, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a byte-order mark is not part of the first column's name
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("the CSV does not parse: %v", err)
	}
	if len(rows) < 2 {
		return nil, fmt.Errorf("the CSV has no data rows")
	}
	var out []map[string]any
	for _, row := range rows[1:] {
		rec := map[string]any{}
		for i, h := range rows[0] {
			if i >= len(row) {
				break
			}
			// NaN and Inf parse as floats but JSON cannot hold them: text.
			if f, err := strconv.ParseFloat(row[i], 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
				rec[h] = f
			} else {
				rec[h] = row[i]
			}
		}
		out = append(out, rec)
	}
	return out, nil
}

// encodingFields lists the fields named by the spec's encoding channels.
func encodingFields(spec map[string]any) []string {
	enc, _ := spec["encoding"].(map[string]any)
	var out []string
	for _, ch := range enc {
		if m, ok := ch.(map[string]any); ok {
			if f, ok := m["field"].(string); ok && f != "" {
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	return out
}

func markOf(spec map[string]any) string {
	switch m := spec["mark"].(type) {
	case string:
		return m
	case map[string]any:
		if t, ok := m["type"].(string); ok {
			return t
		}
	}
	return "unspecified"
}
