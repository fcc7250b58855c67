package report

import (
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
