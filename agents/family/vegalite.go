package family

import (
	"bytes"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/agentreplay/testbed/agents"
)

// VegaLiteSchema is the official Vega-Lite JSON schema the chart tool checks
// every spec against: build/vega-lite-schema.json of the vega-lite npm
// package, version 5.23.0 (the v5 line the charts' $schema names), kept
// under the agent's data folder with its BSD-3-Clause license.
const VegaLiteSchema = "vega-lite/v5.23.0.json"

// vegaLite compiles the schema in the agent's data folder, once per run
// for the same file.
func vegaLite(cache *agents.Cache, data fs.FS) (*jsonschema.Schema, error) {
	if data == nil {
		return nil, fmt.Errorf("no data folder given (it holds %s)", VegaLiteSchema)
	}
	return agents.LoadOnce(cache, data, "vega-lite schema", []string{VegaLiteSchema}, func(b [][]byte) (*jsonschema.Schema, error) {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b[0]))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", VegaLiteSchema, err)
		}
		return compileSchema(VegaLiteSchema, doc)
	})
}

// printer writes the validator's messages in English.
var printer = message.NewPrinter(language.English)

// maxSchemaProblems bounds how many places a rejected spec's error names.
const maxSchemaProblems = 3

// schemaProblems turns a validation error into what a model can act on:
// one problem for each of the deepest places in the spec the schema
// rejects (a schema of alternatives, such as Vega-Lite's, tells its branches
// apart there), "at /path: message", in the order of the paths. Where the alternatives each want one
// value, their values are listed as one "value must be one of …".
func schemaProblems(err error) string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err.Error()
	}
	var leaves []*jsonschema.ValidationError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, e)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	deepest := 0
	for _, l := range leaves {
		deepest = max(deepest, len(l.InstanceLocation))
	}
	type place struct {
		path   string
		values []string // wanted values, from const and enum leaves
		other  string   // the first other message
	}
	var places []*place
	at := map[string]*place{}
	for _, l := range leaves {
		if len(l.InstanceLocation) != deepest {
			continue
		}
		path := "/" + strings.Join(l.InstanceLocation, "/")
		p := at[path]
		if p == nil {
			p = &place{path: path}
			at[path] = p
			places = append(places, p)
		}
		switch k := l.ErrorKind.(type) {
		case *kind.Const:
			p.values = appendNew(p.values, quoted(k.Want))
		case *kind.Enum:
			for _, w := range k.Want {
				p.values = appendNew(p.values, quoted(w))
			}
		default:
			if p.other == "" {
				p.other = l.ErrorKind.LocalizedString(printer)
			}
		}
	}
	// The validator meets the places in the order of Go maps (an object's
	// properties), which varies from run to run: the message names them
	// in the order of their paths.
	slices.SortStableFunc(places, func(x, y *place) int { return strings.Compare(x.path, y.path) })
	var out []string
	for _, p := range places {
		msg := p.other
		if len(p.values) > 0 {
			msg = "value must be one of " + strings.Join(p.values, ", ")
		}
		out = append(out, fmt.Sprintf("at %s: %s", p.path, msg))
	}
	more := ""
	if len(out) > maxSchemaProblems {
		more = fmt.Sprintf(" (and %d more)", len(out)-maxSchemaProblems)
		out = out[:maxSchemaProblems]
	}
	return strings.Join(out, "; ") + more
}

// quoted writes a wanted JSON value as the validator's messages do.
func quoted(v any) string {
	if s, ok := v.(string); ok {
		return "'" + s + "'"
	}
	return fmt.Sprint(v)
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
