package cassette

import (
	"strings"
)

// JudgePath is where the grader's calls for sample k of a scenario live,
// beside the agent's cassette: <id>.judge.yaml, <id>.sample<k>.judge.yaml.
// It is a cassette like any other (same format, matching and redaction),
// kept apart so that the agent's cassette stays as the agent made it and a
// re-grade (record --record-missing) touches only the grading.
func JudgePath(root, suite, variant, id string, k int) string {
	return strings.TrimSuffix(SamplePath(root, suite, variant, id, k), ".yaml") + ".judge.yaml"
}

// RequestBodies returns the request body of each interaction of the
// cassette at path, in recorded order.
func RequestBodies(path string) ([]string, error) {
	f, err := readFile(path)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(f.Interactions))
	for _, in := range f.Interactions {
		out = append(out, in.Request.Body)
	}
	return out, nil
}
