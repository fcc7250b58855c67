package scenario

import (
	"path"
	"strings"

	"gopkg.in/yaml.v3"
)

// pricesKeys are the keys of a suite's prices block.
var pricesKeys = []string{"file", "models"}

// prices reads {file: path, models: {suite model: table row}}.
func (d *decoder) prices(v *yaml.Node) *Prices {
	const at = "prices"
	m, fs, ok := d.mapping(v, at, "a mapping with file and models", pricesKeys...)
	if !ok {
		return nil
	}
	p := &Prices{Line: m.Line}
	if f, ok := fs["file"]; ok {
		p.File, _ = d.str(f.val, join(at, "file"))
		if clean := path.Clean(p.File); strings.HasPrefix(p.File, "/") || clean == ".." || strings.HasPrefix(clean, "../") {
			d.errorf(resolve(f.val).Line, join(at, "file"), "%q must be a path inside the project (relative to its root, like prices/litellm.json)", p.File)
		}
	}
	if f, ok := fs["models"]; ok {
		mv := resolve(f.val)
		if mv.Kind != yaml.MappingNode {
			d.want(mv, join(at, "models"), "a mapping of the suite's model names to price table rows, like gemma3:4b: ollama/gemma3:4b")
			return p
		}
		list, _ := d.fields(mv, join(at, "models"))
		p.Models = map[string]string{}
		for _, e := range list {
			if row, ok := d.str(e.val, join(join(at, "models"), e.key.Value)); ok {
				p.Models[e.key.Value] = row
			}
		}
	}
	return p
}
