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
	bothNetworks(b, func(b *testing.B, isolate string) {
		spec := external.Spec{Command: []string{"sh", "-c", `read l; echo '{"text":"hi"}'`}, Isolate: isolate}
		for b.Loop() {
			runOneTurn(b, spec)
		}
	})
}

// BenchmarkServiceIsolated is one scenario run of a kept-alive http:
// service (one turn, one upstream call), on the machine's network and in a
// network namespace of its own, where testbed reaches the service through
// the helper's dial: the cost of that layer per run, the program's start
// left out.
func BenchmarkServiceIsolated(b *testing.B) {
	bothNetworks(b, func(b *testing.B, isolate string) {
		spec := service("json")
		spec.Isolate, spec.KeepAlive, spec.Pool = isolate, true, external.NewPool()
		defer spec.Pool.Close()
		runOneTurn(b, spec) // the program's start
		for b.Loop() {
			runOneTurn(b, spec)
		}
	})
}

// bothNetworks runs bench as "shared" (no namespace helper) and as
// "namespace" (this test binary as the helper), the latter skipped where
// the system cannot isolate a program.
func bothNetworks(b *testing.B, bench func(b *testing.B, isolate string)) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("shared", func(b *testing.B) { bench(b, "") })
	b.Run("namespace", func(b *testing.B) {
		if iso := external.Probe(exe); !iso.Hermetic {
			b.Skip(iso.String())
		}
		bench(b, exe)
	})
}

// runOneTurn runs spec's agent for one scenario run of one turn.
func runOneTurn(b *testing.B, spec external.Spec) {
	a, err := external.New(spec, b.TempDir())(agentConfig(&seen{}, &noted{}))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := a.Run(context.Background(), agents.Input{Turns: []string{"a"}}); err != nil {
		b.Fatal(err)
	}
}
