package external_test

import (
	"context"
	"os"
	"testing"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/external"
)

// BenchmarkRunIsolated is one scenario run of a one-turn JSON-lines agent,
// on the machine's network and in a network namespace of its own: the cost
// of the namespace, its helper and the forwarding per program start.
func BenchmarkRunIsolated(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name    string
		isolate string
	}{{"shared", ""}, {"namespace", exe}} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.isolate != "" && !external.Probe(bc.isolate).Hermetic {
				b.Skip(external.Probe(bc.isolate).String())
			}
			spec := external.Spec{Command: []string{"sh", "-c", `read l; echo '{"text":"hi"}'`}, Isolate: bc.isolate}
			for b.Loop() {
				a, err := external.New(spec, b.TempDir())(agentConfig(&seen{}, &noted{}))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := a.Run(context.Background(), agents.Input{Turns: []string{"a"}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkServiceIsolated is one scenario run of a kept-alive http:
// service (one turn, one upstream call), on the machine's network and in a
// network namespace of its own, where testbed reaches the service through
// the helper's dial: the cost of that layer per run, the program's start
// left out.
func BenchmarkServiceIsolated(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name    string
		isolate string
	}{{"shared", ""}, {"namespace", exe}} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.isolate != "" && !external.Probe(bc.isolate).Hermetic {
				b.Skip(external.Probe(bc.isolate).String())
			}
			spec := service("json")
			spec.Isolate, spec.KeepAlive, spec.Pool = bc.isolate, true, external.NewPool()
			defer spec.Pool.Close()
			run := func() {
				a, err := external.New(spec, b.TempDir())(agentConfig(&seen{}, &noted{}))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := a.Run(context.Background(), agents.Input{Turns: []string{"a"}}); err != nil {
					b.Fatal(err)
				}
			}
			run() // the program's start
			for b.Loop() {
				run()
			}
		})
	}
}
