package scenario_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentreplay/testbed/harness/scenario"
)

// BenchmarkLoadDataFile loads a suite whose 10,000 scenarios come from a
// JSONL file (scenarios_from), as testbed run, lint and list do. Its
// B/op is the memory a load allocates (docs/performance.md).
func BenchmarkLoadDataFile(b *testing.B) {
	for _, ext := range []string{"jsonl", "csv"} {
		b.Run(fmt.Sprintf("10000-rows-%s", ext), func(b *testing.B) {
			dir := b.TempDir()
			var data strings.Builder
			if ext == "csv" {
				data.WriteString("case_id,question,tags,mode,tool,language\n")
			}
			for i := range 10000 {
				if ext == "csv" {
					fmt.Fprintf(&data, "case-%05d,\"現在台灣周遭海溫多少？ (%d)\",zh;bbox,tool,ghrsst.bbox_mean,zh\n", i, i)
				} else {
					fmt.Fprintf(&data, `{"case_id": "case-%05d", "question": "現在台灣周遭海溫多少？ (%d)", "tags": ["zh", "bbox"], "mode": "tool", "tool": "ghrsst.bbox_mean", "language": "zh"}`+"\n", i, i)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, "cases."+ext), []byte(data.String()), 0o644); err != nil {
				b.Fatal(err)
			}
			suite := strings.ReplaceAll(`suite: big
agent: odbchat
clock: 2025-11-06T10:00:00+08:00
baseline: single-pass
variants:
  single-pass: {config: {router: single-pass}}
scenarios_from:
  file: cases.EXT
  id: case_id
  input: question
  tags: tags
  expect:
    route: {mode: "{mode}", tool: "{tool}"}
    answer: {language: "{language}"}
`, "EXT", ext)
			path := filepath.Join(dir, "big.yaml")
			if err := os.WriteFile(path, []byte(suite), 0o644); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				s, err := scenario.Load(path, scenario.LoadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if len(s.Scenarios) != 10000 {
					b.Fatalf("%d scenarios", len(s.Scenarios))
				}
			}
		})
	}
}
