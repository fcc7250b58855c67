// Package upstream serves canned responses for the upstream HTTP APIs the
// agents call, so that recordings can be made offline.
//
// A system's routes live in fixtures/<system>/routes.yaml: each route maps a
// method, a path, a subset of query parameters and a subset of request headers
// (headers_match:) to a response file, a status, headers and a modelled
// latency. Load reads and checks the file (and every response file it names)
// once; Routes is then an http.Handler, and Start serves it on a loopback port.
//
// The servers never sleep. A route's latency is reported in the LatencyHeader
// response header, and the recorder uses it as the interaction's duration, so
// recordings are reproducible. The package does not match request bodies, and
// it has no fallback route: a request that no route matches gets a 404 that
// says which file to extend, at the modelled latency of an error answer
// (60 ms). The 404 names the header values a route wants but never echoes
// the request's own header values, which may be credentials.
//
// A routes file may also list fixture MCP servers under mcp: (path and
// server), served on the official MCP Go SDK over streamable HTTP; the one
// there is, ghrsst, answers its tools from the file's routes as the real
// GHRSST MCP server answers from its REST API (see ghrsst.go).
package upstream

import (
	"errors"
	"time"

	"github.com/agentreplay/testbed/harness/cassette"
)

// LatencyHeader is the response header that carries a route's modelled
// latency as Go duration text (for example "120ms"). The recorder uses it as
// the interaction's duration so that recordings are reproducible.
const LatencyHeader = cassette.LatencyHeader

// ErrInvalid is matched (with errors.Is) by every error Load returns for a
// routes file that it could read but not accept.
var ErrInvalid = errors.New("invalid routes file")

// Route is one entry of fixtures/<system>/routes.yaml.
type Route struct {
	Method string // GET unless given
	Path   string
	// Query lists the parameters a request must carry, each exactly once with
	// exactly this value; other parameters are ignored.
	Query map[string]string
	// MatchHeaders (headers_match: in the file) lists the request headers a
	// request must carry, each exactly once with exactly this value. Names are
	// canonical (http.CanonicalHeaderKey); other headers are ignored.
	MatchHeaders map[string]string
	File         string // relative to Routes.Dir
	Status       int    // 200 unless given
	Latency      time.Duration
	// Headers are sent with the response. Content-Type defaults to
	// application/json for .json files and text/plain; charset=utf-8 otherwise.
	Headers map[string]string
	Line    int // line of the route in the routes file

	body []byte
}

// Routes is a routes file as loaded by Load, which also reads the response
// bodies; build it with Load. It is an http.Handler and, once loaded, safe
// for concurrent use.
type Routes struct {
	Dir    string // the folder holding the routes file; File paths are relative to it
	Routes []Route
	// MCP lists the fixture MCP servers the file serves (its mcp: list),
	// whose tools answer from Routes.
	MCP []MCPEndpoint

	path string // the routes file as given to Load, for load errors
	// Shown names the routes file in the 404 bodies the stub serves, which
	// recordings keep: Load sets it to the path given; a caller that loads
	// from an absolute path sets it relative to the project, so that no
	// cassette holds a local path.
	Shown string
}
