package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// ErrSchemaVersion is returned by ReadJSON for a report without a
// schemaVersion or with one this package does not read.
var ErrSchemaVersion = errors.New("unsupported report schemaVersion")

// WriteJSON writes r to w as JSON indented by two spaces, with a trailing
// newline and without HTML escaping. The first field is schemaVersion, always SchemaVersion whatever
// r.SchemaVersion holds, since that is the format written. The same Report
// gives the same bytes: fields are in declaration order and map keys sorted.
// Likewise each scenario's unmeasured is written from its verdicts
// (Scenario.Measured), whatever its Unmeasured holds.
func WriteJSON(w io.Writer, r *Report) error {
	c := *r
	c.SchemaVersion = SchemaVersion
	c.Suites = flagUnmeasured(r.Suites)
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
// encoding/json decodes into an interface (numbers as float64). Each
// scenario's Unmeasured is set from its verdicts, as WriteJSON writes it.
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
	r.Suites = flagUnmeasured(r.Suites) // a file written before the flag was
	return &r, nil
}

// flagUnmeasured returns suites with each scenario's Unmeasured set from
// its verdicts (Scenario.Measured): suites itself when every one says so
// already, else a copy down to the scenarios, so that suites are left as
// they are.
func flagUnmeasured(suites []Suite) []Suite {
	same := true
	for _, s := range suites {
		for _, v := range s.Variants {
			for _, sc := range v.Scenarios {
				same = same && sc.Unmeasured == !sc.Measured()
			}
		}
	}
	if same {
		return suites
	}
	out := slices.Clone(suites)
	for i := range out {
		out[i].Variants = slices.Clone(out[i].Variants)
		for j := range out[i].Variants {
			scs := slices.Clone(out[i].Variants[j].Scenarios)
			for k := range scs {
				scs[k].Unmeasured = !scs[k].Measured()
			}
			out[i].Variants[j].Scenarios = scs
		}
	}
	return out
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
