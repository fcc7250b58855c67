package judge

import (
	"encoding/json"
	"strings"
)

// Sections splits the built-in grading layout ("## Rubric", "## Input",
// "## Answer", "## Answer A", …) into its sections by title.
func Sections(text string) map[string]string {
	out := map[string]string{}
	var title string
	var body []string
	flush := func() {
		if title != "" {
			out[title] = strings.TrimSpace(strings.Join(body, "\n"))
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if t, ok := strings.CutPrefix(line, "## "); ok {
			flush()
			title, body = strings.TrimSpace(t), nil
			continue
		}
		body = append(body, line)
	}
	flush()
	return out
}

// Recorded finds the grading layout in a recorded request body of any
// provider (the string that holds "## Rubric") and returns its sections;
// false when the body has none (a custom judge prompt).
func Recorded(body string) (map[string]string, bool) {
	var v any
	if json.Unmarshal([]byte(body), &v) != nil {
		return nil, false
	}
	var found string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if found == "" && strings.HasPrefix(x, "## Rubric\n") {
				found = x
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	if found == "" {
		return nil, false
	}
	return Sections(found), true
}
