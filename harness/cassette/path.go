package cassette

import (
	"fmt"
	"path/filepath"
)

// Dir is the folder under root that holds suite's cassettes:
// cassettes/<suite>, one folder per variant inside.
func Dir(root, suite string) string {
	return filepath.Join(root, "cassettes", suite)
}

// Path is where the cassette of one scenario under one variant lives:
// cassettes/<suite>/<variant>/<id>.yaml under root.
func Path(root, suite, variant, id string) string {
	return SamplePath(root, suite, variant, id, 1)
}

// SamplePath is where sample k (1-based) of a scenario's cassettes lives:
// <id>.yaml for the first, <id>.sample<k>.yaml for the others.
func SamplePath(root, suite, variant, id string, k int) string {
	name := id + ".yaml"
	if k > 1 {
		name = fmt.Sprintf("%s.sample%d.yaml", id, k)
	}
	return filepath.Join(Dir(root, suite), variant, name)
}
