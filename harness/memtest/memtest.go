// Package memtest measures the live heap, for the specs and benchmarks that
// check what replaying, reading cassettes and counting tokens keep.
package memtest

import (
	"runtime"
	"runtime/metrics"
)

// Live collects and returns the bytes of the heap still in use. It collects
// twice: what a sync.Pool holds survives one collection.
func Live() uint64 {
	runtime.GC()
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}
