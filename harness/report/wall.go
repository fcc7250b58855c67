package report

import (
	"encoding/json"
	"time"
)

// WallTime is where the wall time of one scenario run of an agent outside
// testbed went. Start, Proxy and Cassette are measured; Agent is the rest
// of the run: the program's own work, and the loopback HTTP of its calls
// on both sides of the socket.
type WallTime struct {
	// Start is from starting the program to its first call or reply: the
	// process start, its runtime and imports, a service's wait until it
	// listens. Zero when a kept (keep_alive) program served the run.
	Start time.Duration
	// Proxy is the proxy session's own work on the program's calls: reading
	// them, decoding the model traffic for the trace, handing the answers
	// back (the session's time less the cassette's).
	Proxy time.Duration
	// Cassette is the time the cassette took to answer the calls.
	Cassette time.Duration
	// Agent is the rest: the program's own work between its calls.
	Agent time.Duration
}

// wallJSON is WallTime as JSON, in milliseconds.
type wallJSON struct {
	Start    float64 `json:"start_ms"`
	Proxy    float64 `json:"proxy_ms"`
	Cassette float64 `json:"cassette_ms"`
	Agent    float64 `json:"agent_ms"`
}

// micros is d in milliseconds, to the microsecond.
func micros(d time.Duration) float64 { return millis(d.Truncate(time.Microsecond)) }

// MarshalJSON writes the durations in milliseconds (to the microsecond).
func (w WallTime) MarshalJSON() ([]byte, error) {
	return json.Marshal(wallJSON{micros(w.Start), micros(w.Proxy), micros(w.Cassette), micros(w.Agent)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (w *WallTime) UnmarshalJSON(b []byte) error {
	var j wallJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	d := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	*w = WallTime{d(j.Start), d(j.Proxy), d(j.Cassette), d(j.Agent)}
	return nil
}
