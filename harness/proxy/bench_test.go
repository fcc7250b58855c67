package proxy_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/proxy"
)

// BenchmarkModelCall replays one recorded model call (a 2 KB request, as an
// agent's first call) straight from the cassette transport and through a
// proxy session over loopback HTTP, and reports each one's p50 and p95: the
// proxy's overhead per model call.
func BenchmarkModelCall(b *testing.B) {
	body := `{"model":"gpt-4.1-mini","messages":[{"role":"system","content":"` + strings.Repeat("You answer briefly. ", 100) + `"},{"role":"user","content":"hi"}]}`
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}]}`)
	}))
	defer model.Close()
	path := filepath.Join(b.TempDir(), "c.yaml")
	rec, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: to{mustURL(model.URL)}})
	if err != nil {
		b.Fatal(err)
	}
	call(b, rec, logicalModel+"/chat/completions", body)
	rec.Close()

	p, err := proxy.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for _, via := range []string{"direct", "proxy"} {
		b.Run(via, func(b *testing.B) {
			var took []time.Duration
			for b.Loop() {
				tr, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{})
				if err != nil {
					b.Fatal(err)
				}
				rt, target := http.RoundTripper(tr), logicalModel+"/chat/completions"
				var id string
				if via == "proxy" {
					var base string
					id, base = p.Open(proxy.Session{Transport: tr, Model: logicalModel})
					rt, target = http.DefaultTransport, base+"/v1/chat/completions"
				}
				start := time.Now()
				call(b, rt, target, body)
				took = append(took, time.Since(start))
				if id != "" {
					if err := p.End(id); err != nil {
						b.Fatal(err)
					}
				}
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(took[len(took)*95/100].Microseconds()), "p95-µs")
		})
	}
}

func call(b *testing.B, rt http.RoundTripper, url, body string) {
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := rt.RoundTrip(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("status %d", resp.StatusCode)
	}
}
