package proxy_test

import (
	"context"
	"fmt"
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

// benchChunks is how many content events a streamed benchmark answer has.
const benchChunks = 40

// benchModel answers a chat completion as a model would: one JSON body, or
// with "stream": true server-sent chunks of OpenAI's shape.
func benchModel(w http.ResponseWriter, r *http.Request) {
	req, _ := io.ReadAll(r.Body)
	if !strings.Contains(string(req), `"stream":true`) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}]}`)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for i := range benchChunks {
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"word%d \"}}]}\n\n", i)
	}
	io.WriteString(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
}

// BenchmarkProxyCall measures the proxy's own cost per model call: one
// recorded model call (a 2 KB request, as an agent's first call), replayed
// or recorded, answered whole or streamed, straight through the cassette
// transport ("direct") and through a proxy session over loopback HTTP
// ("proxy"). Each reports its p50 and p99; the proxy's cost per call is
// the difference between a proxy and a direct sub-benchmark of one mode.
// Recording writes a cassette per call in both, so the difference is the
// proxy's alone.
func BenchmarkProxyCall(b *testing.B) {
	system := strings.Repeat("You answer briefly. ", 100)
	model := httptest.NewServer(http.HandlerFunc(benchModel))
	defer model.Close()
	p, err := proxy.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for _, mode := range []cassette.Mode{cassette.ModeReplay, cassette.ModeRecord} {
		for _, stream := range []bool{false, true} {
			body := fmt.Sprintf(`{"model":"gpt-4.1-mini","stream":%t,"messages":[{"role":"system","content":%q},{"role":"user","content":"hi"}]}`, stream, system)
			recorded := filepath.Join(b.TempDir(), "c.yaml")
			rec, err := cassette.Open(cassette.ModeRecord, recorded, cassette.Options{Real: to{mustURL(model.URL)}})
			if err != nil {
				b.Fatal(err)
			}
			call(b, rec, logicalModel+"/chat/completions", body)
			rec.Close()
			shape := map[bool]string{false: "whole", true: "stream"}[stream]
			for _, via := range []string{"direct", "proxy"} {
				b.Run(fmt.Sprintf("%s/%s/%s", mode, shape, via), func(b *testing.B) {
					dir := b.TempDir()
					var took []time.Duration
					for b.Loop() {
						path := recorded
						if mode == cassette.ModeRecord {
							path = filepath.Join(dir, fmt.Sprintf("c%d.yaml", len(took)))
						}
						tr, err := cassette.Open(mode, path, cassette.Options{Real: to{mustURL(model.URL)}})
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
						} else if err := tr.Close(); err != nil {
							b.Fatal(err)
						}
					}
					slices.Sort(took)
					b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
					b.ReportMetric(float64(took[min(len(took)-1, len(took)*99/100)].Microseconds()), "p99-µs")
				})
			}
		}
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
