package cassette_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/match"
)

// BenchmarkReplayMatch measures a replay's RoundTrip on cassettes of N
// interactions whose request bodies are distinct JSON documents of about
// 2 KB, the size of an agent's chat request.
//
// Interactions are consumed, so each iteration replays the next request in
// recorded order and, once all N are spent, the cassette is opened afresh
// with the timer stopped. The requests are built with the timer stopped too.
// What is timed is one RoundTrip against an index holding N distinct keys:
// reading and canonicalizing the live body, finding its interaction and
// building the response. With an index the cost should not grow with N; a
// matcher that scans the interactions, as go-vcr's does, would grow
// linearly. (Replaying only the last interaction would need a fresh
// replay per iteration and time the loading, not the matching.)
func BenchmarkReplayMatch(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		path, url, bodies := benchCassette(b, n, "")
		b.Run(fmt.Sprintf("interactions=%d", n), func(b *testing.B) {
			replayAll(b, path, url, bodies, cassette.Options{})
		})
	}
}

// BenchmarkReplayMatchRules measures the match rules' cost on 100 recorded
// interactions of an agent that stamps each request with a UUID and the
// time (metadata.request_id, metadata.sent_at), under two rules (a UUID
// normalised anywhere, sent_at ignored): "stamped" replays requests with
// other UUIDs and times, which match only under the rules, so every live
// body and every recorded one it is compared with is canonicalized and
// has the rules applied; "reindented, no rules" replays the recorded
// bodies re-indented, the canonical path without rules; "identical"
// replays the recorded bodies byte for byte under the rules (no
// canonicalization); "stamped, tool results in any order" is "stamped"
// with tool_results: any_order too, which walks every body for runs of
// tool results.
func BenchmarkReplayMatchRules(b *testing.B) {
	const n = 100
	rules := &match.Rules{List: []match.Rule{
		{Where: match.WhereAnywhere, Pattern: "uuid"},
		{Ignore: true, Where: match.WhereBody, Target: "/metadata/sent_at"},
	}}
	if errs := rules.Compile(); len(errs) > 0 {
		b.Fatal(errs)
	}
	path, url, recorded := benchCassette(b, n, "3f2b8c1e-9d4a-4e6b-8f00-1a2b3c4d5e6f")
	_, _, stamped := benchCassette(b, n, "0d9e8f7a-1111-2222-3333-444455556666")
	reindented := make([][]byte, n)
	for i, body := range recorded {
		var buf bytes.Buffer
		if err := json.Indent(&buf, body, "", "  "); err != nil {
			b.Fatal(err)
		}
		reindented[i] = buf.Bytes()
	}
	anyOrder := *rules
	anyOrder.AnyOrderToolResults = true
	anyForm := *rules
	anyForm.AnyFormEmptyContent = true
	b.Run("stamped", func(b *testing.B) { replayAll(b, path, url, stamped, cassette.Options{Match: rules}) })
	b.Run("stamped, tool results in any order", func(b *testing.B) {
		replayAll(b, path, url, stamped, cassette.Options{Match: &anyOrder})
	})
	b.Run("stamped, empty content in any form", func(b *testing.B) {
		replayAll(b, path, url, stamped, cassette.Options{Match: &anyForm})
	})
	b.Run("reindented, no rules", func(b *testing.B) { replayAll(b, path, url, reindented, cassette.Options{}) })
	b.Run("identical", func(b *testing.B) { replayAll(b, path, url, recorded, cassette.Options{Match: rules}) })
}

// replayAll times RoundTrip of the bodies, in order, against the cassette
// at path opened with opts, opening it afresh, timer stopped, when they
// are spent.
func replayAll(b *testing.B, path, url string, bodies [][]byte, opts cassette.Options) {
	n := len(bodies)
	var (
		rp   cassette.Transport
		reqs []*http.Request
		next = n
	)
	b.ReportAllocs()
	b.SetBytes(int64(len(bodies[n-1])))
	b.ResetTimer()
	for b.Loop() {
		if next == n {
			b.StopTimer()
			var err error
			if rp, err = cassette.Open(cassette.ModeReplay, path, opts); err != nil {
				b.Fatal(err)
			}
			reqs = reqs[:0]
			for _, body := range bodies {
				req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				reqs = append(reqs, req)
			}
			next = 0
			b.StartTimer()
		}
		resp, err := rp.RoundTrip(reqs[next])
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		next++
	}
}

// benchCassette records n interactions with distinct ~2 KB JSON bodies
// against a loopback server and returns the cassette's path, the URL the
// requests went to (the server is gone when this returns) and the bodies.
// With a stamp, each body also carries it as metadata.request_id, with
// metadata.sent_at the time of recording.
func benchCassette(b *testing.B, n int, stamp string) (path, url string, bodies [][]byte) {
	b.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"ok"}}],"usage":{"prompt_tokens":500,"completion_tokens":1}}`)
	}))
	defer srv.Close()

	path = filepath.Join(b.TempDir(), fmt.Sprintf("bench-%d-%s.yaml", n, stamp))
	rec, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport})
	if err != nil {
		b.Fatal(err)
	}
	system := strings.Repeat("You answer questions about ocean data; cite the dataset and the date range. ", 24)
	bodies = make([][]byte, n)
	for i := range bodies {
		meta := ""
		if stamp != "" {
			meta = fmt.Sprintf(`"metadata":{"request_id":%q,"sent_at":%q},`, stamp, time.Now().Format(time.RFC3339Nano))
		}
		bodies[i] = fmt.Appendf(nil, `{"model":"qwen3:4b","temperature":0,"max_tokens":512,%s"messages":[`+
			`{"role":"system","content":%q},`+
			`{"role":"user","content":"What was the sea surface temperature at station %d on day %d?"}]}`,
			meta, system, i, i%365)
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions", bytes.NewReader(bodies[i]))
		if err != nil {
			b.Fatal(err)
		}
		resp, err := rec.RoundTrip(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if err := rec.Close(); err != nil {
		b.Fatal(err)
	}
	return path, srv.URL + "/v1/chat/completions", bodies
}

// BenchmarkLoad measures opening a committed cassette for replay (reading
// the YAML, checking it, canonicalizing every recorded request body and
// indexing it), per byte of cassette file: a small one, a typical one and
// the largest.
func BenchmarkLoad(b *testing.B) {
	for _, c := range []struct{ name, path string }{
		{"small", "odbchat/single-pass/ac1-taiwan-sst.yaml"},
		{"typical", "climate/trimmed/datasources-rio.yaml"},
		{"largest", "climate/untrimmed/datasources-new-york-2023.yaml"},
	} {
		path := filepath.Join("..", "..", "cassettes", filepath.FromSlash(c.path))
		st, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(st.Size())
			for b.Loop() {
				if _, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScan measures the secret scan of every committed cassette, as
// `make test` runs it, per byte scanned.
func BenchmarkScan(b *testing.B) {
	root := filepath.Join("..", "..", "cassettes")
	var size int64
	filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				size += info.Size()
			}
		}
		return nil
	})
	b.SetBytes(size)
	for b.Loop() {
		if _, err := cassette.Scan(root, nil, "HA_TOKEN"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplayMiss measures a replay's RoundTrip for a request the
// cassette lacks, on cassettes of N interactions with ~2 KB bodies: the
// diagnosis compares it with every recorded request to the same method and
// URL to find the nearest and lists how they differ.
func BenchmarkReplayMiss(b *testing.B) {
	for _, n := range []int{10, 100} {
		path, url, bodies := benchCassette(b, n, "")
		live := bytes.Replace(bodies[n/2], []byte("sea surface temperature"), []byte("salinity"), 1)
		b.Run(fmt.Sprintf("interactions=%d", n), func(b *testing.B) {
			rp, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(live))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := rp.RoundTrip(req); err == nil {
					b.Fatal("no miss")
				}
			}
		})
	}
}

// BenchmarkRecord measures a recording's cost per call through the public
// API: 100 calls of about 2 KB each to a loopback server, recorded and
// written at Close, made one after the other ("sequential") or four at once
// ("parallel-4"), so that what the recording adds to keep calls in the
// order the agent made them (a number per call, and the order computed at
// Close) shows beside what a call costs anyway.
func BenchmarkRecord(b *testing.B) {
	const n = 100
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set(cassette.LatencyHeader, "20ms")
		io.WriteString(w, `{"answer":"ok"}`)
	}))
	defer srv.Close()
	_, _, bodies := benchCassette(b, n, "")
	for _, at := range []int{1, 4} {
		name := "sequential"
		if at > 1 {
			name = fmt.Sprintf("parallel-%d", at)
		}
		b.Run(name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "rec.yaml")
			for b.Loop() {
				tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport})
				if err != nil {
					b.Fatal(err)
				}
				client := &http.Client{Transport: tr}
				for i := 0; i < n; i += at {
					done := make(chan error, at)
					for k := i; k < i+at; k++ {
						go func() {
							resp, err := client.Post(srv.URL+"/v1/chat/completions", "application/json", bytes.NewReader(bodies[k]))
							if err == nil {
								_, err = io.Copy(io.Discard, resp.Body)
								resp.Body.Close()
							}
							done <- err
						}()
					}
					for range at {
						if err := <-done; err != nil {
							b.Fatal(err)
						}
					}
				}
				if err := tr.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/call")
		})
	}
}
