package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ErrSchemaVersion is returned by ReadJSON for a report without a
// schemaVersion or with one this package does not read.
var ErrSchemaVersion = errors.New("unsupported report schemaVersion")

// WriteJSON writes r to w as JSON indented by two spaces, with a trailing
// newline and without HTML escaping. The first field is schemaVersion, always SchemaVersion whatever
// r.SchemaVersion holds, since that is the format written. The same Report
// gives the same bytes: fields are in declaration order and map keys sorted.
func WriteJSON(w io.Writer, r *Report) error {
	c := *r
	c.SchemaVersion = SchemaVersion
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // keep "latency_p95 < 2s" readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(&c); err != nil {
		return fmt.Errorf("write json report: %w", err)
	}
	return nil
}

// ReadJSON reads a report written by WriteJSON. It rejects a report whose
// schemaVersion is missing or not SchemaVersion with an error wrapping
// ErrSchemaVersion. Raw JSON fields (tool-call arguments) come back compact,
// as WriteJSON's indentation is not part of them; note values come back as
// encoding/json decodes into an interface (numbers as float64).
func ReadJSON(rd io.Reader) (*Report, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("read json report: %w", err)
	}
	// The report is decoded once; only when that fails or finds another
	// version is the version read alone, whose error comes first.
	var r Report
	if err := json.Unmarshal(data, &r); err != nil || r.SchemaVersion != SchemaVersion {
		if verr := checkVersion(data); verr != nil {
			return nil, verr
		}
		return nil, fmt.Errorf("read json report: %w", err)
	}
	if err := compactRaw(&r); err != nil {
		return nil, fmt.Errorf("read json report: %w", err)
	}
	return &r, nil
}

// checkVersion reads data's schemaVersion alone and says why a report that
// lacks it, or has another, is refused (nil when it is SchemaVersion).
func checkVersion(data []byte) error {
	var probe struct {
		SchemaVersion *int `json:"schemaVersion"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return fmt.Errorf("read json report: %w", err)
	}
	switch {
	case probe.SchemaVersion == nil:
		return fmt.Errorf("read json report: no schemaVersion (want %d); is this a testbed report? %w",
			SchemaVersion, ErrSchemaVersion)
	case *probe.SchemaVersion != SchemaVersion:
		return fmt.Errorf("read json report: schemaVersion %d, but this testbed reads schemaVersion %d; "+
			"regenerate the report with this testbed or read it with the one that wrote it: %w",
			*probe.SchemaVersion, SchemaVersion, ErrSchemaVersion)
	}
	return nil
}

// compactRaw removes from r's raw JSON fields the indentation WriteJSON
// added around them.
func compactRaw(r *Report) error {
	compact := func(raw *json.RawMessage) error {
		if len(*raw) == 0 || string(*raw) == "null" {
			*raw = nil // WriteJSON writes a nil RawMessage as null
			return nil
		}
		var b bytes.Buffer
		if err := json.Compact(&b, *raw); err != nil {
			return err
		}
		*raw = b.Bytes()
		return nil
	}
	for i := range r.Suites {
		for j := range r.Suites[i].Variants {
			for k := range r.Suites[i].Variants[j].Scenarios {
				for _, e := range r.Suites[i].Variants[j].Scenarios[k].Events {
					if e.Tool != nil {
						if err := compact(&e.Tool.Args); err != nil {
							return err
						}
					}
					if e.LLM != nil {
						for c := range e.LLM.ToolCalls {
							if err := compact(&e.LLM.ToolCalls[c].Arguments); err != nil {
								return err
							}
						}
					}
				}
			}
		}
	}
	return nil
}
