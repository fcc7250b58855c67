package upstream_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentreplay/testbed/harness/upstream"
)

// FuzzLoad checks that Load never panics and that every problem it reports
// starts with "path:line: ".
func FuzzLoad(f *testing.F) {
	f.Add("routes:\n  - path: /a\n    file: ok.json\n")
	f.Add("routes:\n  - method: PUT\n    path: /a\n    query: {x: \"1\"}\n    file: ok.json\n    status: 418\n    latency: 1ms\n    headers: {A: b}\n")
	f.Add("routes:\n  - path: /a\n    headers_match: {authorization: Bearer x, Host: h}\n    file: ok.json\n")
	f.Add("routes: [1, {path: a}, {file: nope}]\nextra: 1\n")
	f.Add("- a\n- b\n")
	f.Add("routes:\n  - path: /a\n    file: [x\n")
	f.Fuzz(func(t *testing.T, routes string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "ok.json"), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "routes.yaml")
		if err := os.WriteFile(p, []byte(routes), 0o644); err != nil {
			t.Fatal(err)
		}
		rs, err := upstream.Load(p)
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, p+":") {
					t.Fatalf("problem without path:line: %q", line)
				}
			}
			return
		}
		for _, r := range rs.Routes {
			if !strings.HasPrefix(r.Path, "/") || r.Status < 100 || r.Status > 599 || r.Line < 1 {
				t.Fatalf("accepted a bad route: %+v", r)
			}
		}
	})
}
