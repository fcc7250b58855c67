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
// says which file to extend. The 404 names the header values a route wants but
// never echoes the request's own header values, which may be credentials.
//
// A routes file may also list fixture MCP servers under mcp: (path and
// server), served on the official MCP Go SDK over streamable HTTP; the one
// there is, ghrsst, answers its tools from the file's routes as the real
// GHRSST MCP server answers from its REST API (see ghrsst.go).
package upstream

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/agentreplay/testbed/harness/cassette"

	"github.com/agentreplay/testbed/harness/files"
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

// Load reads a routes file and every response file it names. Problems are
// reported all at once, one per line, as "path:line: message".
func Load(path string) (*Routes, error) {
	data, err := files.ReadRegular(path, files.MaxBytes)
	if err != nil {
		return nil, fmt.Errorf("load routes: %w", err)
	}
	l := &loader{path: path, dir: filepath.Dir(path)}
	rs := l.parse(data)
	if len(l.problems) > 0 {
		sort.SliceStable(l.problems, func(i, j int) bool { return l.problems[i].line < l.problems[j].line })
		e := &loadError{}
		for _, p := range l.problems {
			e.lines = append(e.lines, fmt.Sprintf("%s:%d: %s", path, p.line, p.msg))
		}
		return nil, e
	}
	return rs, nil
}

// loadError lists every problem found in one routes file, in line order.
type loadError struct{ lines []string }

func (e *loadError) Error() string        { return strings.Join(e.lines, "\n") }
func (e *loadError) Is(target error) bool { return target == ErrInvalid }

type loader struct {
	path     string
	dir      string
	problems []problem
}

type problem struct {
	line int
	msg  string
}

func (l *loader) addf(line int, format string, args ...any) {
	l.problems = append(l.problems, problem{line, fmt.Sprintf(format, args...)})
}

func (l *loader) parse(data []byte) *Routes {
	rs := &Routes{Dir: l.dir, path: l.path, Shown: l.path}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		l.addf(yamlErrorLine(err), "%s", yamlErrorText(err))
		return rs
	}
	if len(doc.Content) == 0 {
		l.addf(1, "empty file; want a top-level routes: list")
		return rs
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		l.addf(top.Line, "want a mapping with a routes: list at the top level")
		return rs
	}
	var list *yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		switch k.Value {
		case "routes":
			list = v
		case "mcp":
			l.mcpList(rs, v)
		default:
			l.addf(k.Line, "unknown key %q (want routes, mcp)", k.Value)
		}
	}
	if list == nil {
		l.addf(top.Line, "missing routes: list")
		return rs
	}
	if list.Kind != yaml.SequenceNode {
		l.addf(list.Line, "routes must be a list")
		return rs
	}
	seen := map[string]int{} // route identity → line
	for _, n := range list.Content {
		r, ok := l.route(n)
		if !ok {
			continue
		}
		id := r.identity()
		if first, dup := seen[id]; dup {
			l.addf(r.Line, "same method, path, query and headers_match as the route at line %d, which always wins", first)
			continue
		}
		seen[id] = r.Line
		rs.Routes = append(rs.Routes, r)
	}
	return rs
}

var methods = map[string]bool{
	http.MethodGet: true, http.MethodHead: true, http.MethodPost: true, http.MethodPut: true,
	http.MethodPatch: true, http.MethodDelete: true, http.MethodOptions: true,
}

// route decodes one list item; ok is false when it has a problem (already
// reported).
func (l *loader) route(n *yaml.Node) (r Route, ok bool) {
	r = Route{Method: http.MethodGet, Status: http.StatusOK, Line: n.Line}
	if n.Kind != yaml.MappingNode {
		l.addf(n.Line, "a route must be a mapping with at least path: and file:")
		return r, false
	}
	before := len(l.problems)
	var hasPath, hasFile bool
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "method":
			if s, ok := l.scalar(k, v); ok {
				if !methods[s] {
					l.addf(v.Line, "method %q: want one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS (upper case)", s)
				}
				r.Method = s
			}
		case "path":
			hasPath = true
			if s, ok := l.scalar(k, v); ok {
				switch {
				case !strings.HasPrefix(s, "/"):
					l.addf(v.Line, "path %q must start with /", s)
				case strings.ContainsAny(s, "?#"):
					l.addf(v.Line, "path %q must not hold a query or fragment; list parameters under query:", s)
				}
				r.Path = s
			}
		case "query":
			r.Query = l.stringMap(k, v)
		case "headers_match":
			r.MatchHeaders = l.matchHeaders(k, v)
		case "file":
			hasFile = true
			if s, ok := l.scalar(k, v); ok {
				r.File = s
				switch {
				case s == "":
					l.addf(v.Line, "file must not be empty")
				case filepath.IsAbs(s):
					l.addf(v.Line, "file %q must be relative to %s", s, l.dir)
				default:
					body, err := files.ReadRegular(filepath.Join(l.dir, filepath.FromSlash(s)), files.MaxBytes)
					if err != nil {
						l.addf(v.Line, "file %q: %v", s, unwrapPathError(err))
					}
					r.body = body
				}
			}
		case "status":
			if s, ok := l.scalar(k, v); ok {
				code, err := strconv.Atoi(s)
				if err != nil || code < 100 || code > 599 {
					l.addf(v.Line, "status %q: want an HTTP status code from 100 to 599", s)
				}
				r.Status = code
			}
		case "latency":
			if s, ok := l.scalar(k, v); ok {
				d, err := time.ParseDuration(s)
				switch {
				case err != nil:
					l.addf(v.Line, "latency %q: want a Go duration such as 140ms", s)
				case d < 0:
					l.addf(v.Line, "latency %q must not be negative", s)
				}
				r.Latency = d
			}
		case "headers":
			r.Headers = l.stringMap(k, v)
			for name := range r.Headers {
				if !validHeaderName(name) {
					l.addf(v.Line, "header name %q is not valid", name)
				}
			}
		default:
			l.addf(k.Line, "unknown key %q (want method, path, query, headers_match, file, status, latency, headers)", k.Value)
		}
	}
	if !hasPath {
		l.addf(n.Line, "route has no path:")
	}
	if !hasFile {
		l.addf(n.Line, "route has no file:")
	}
	return r, len(l.problems) == before
}

// scalar returns v's text; YAML numbers and booleans count, as written.
func (l *loader) scalar(k, v *yaml.Node) (string, bool) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		l.addf(v.Line, "%s must be a single value", k.Value)
		return "", false
	}
	return v.Value, true
}

// matchHeaders decodes headers_match: into canonical header names.
func (l *loader) matchHeaders(k, v *yaml.Node) map[string]string {
	if v.Kind != yaml.MappingNode {
		l.addf(v.Line, "%s must be a mapping of header names to values", k.Value)
		return nil
	}
	m := make(map[string]string, len(v.Content)/2)
	for i := 0; i+1 < len(v.Content); i += 2 {
		name, val := v.Content[i], v.Content[i+1]
		s, ok := l.scalar(name, val)
		if !ok {
			continue
		}
		canon := http.CanonicalHeaderKey(name.Value)
		switch {
		case !validHeaderName(name.Value):
			l.addf(name.Line, "header name %q is not valid", name.Value)
		case canon == "Host":
			// Go moves Host out of Request.Header, so such a route could never match.
			l.addf(name.Line, "%s cannot test Host; give the route a path instead", k.Value)
		case strings.ContainsAny(s, "\r\n"):
			l.addf(val.Line, "header %s: value must be on one line", canon)
		}
		if _, dup := m[canon]; dup {
			l.addf(name.Line, "%s lists %s twice", k.Value, canon)
		}
		m[canon] = s
	}
	return m
}

func validHeaderName(name string) bool {
	return name != "" && !strings.ContainsAny(name, " :\t\r\n")
}

func (l *loader) stringMap(k, v *yaml.Node) map[string]string {
	if v.Kind != yaml.MappingNode {
		l.addf(v.Line, "%s must be a mapping of names to values", k.Value)
		return nil
	}
	m := make(map[string]string, len(v.Content)/2)
	for i := 0; i+1 < len(v.Content); i += 2 {
		name, val := v.Content[i], v.Content[i+1]
		s, ok := l.scalar(name, val)
		if !ok {
			continue
		}
		if _, dup := m[name.Value]; dup {
			l.addf(name.Line, "%s lists %q twice", k.Value, name.Value)
		}
		m[name.Value] = s
	}
	return m
}

// identity is the part of a route that matching looks at.
func (r *Route) identity() string {
	return r.Method + " " + r.Path + "?" + encodeQuery(r.Query) + "#" + encodeQuery(r.MatchHeaders)
}

// conditions counts what a request must carry beyond method and path.
func (r *Route) conditions() int { return len(r.Query) + len(r.MatchHeaders) }

func encodeQuery(q map[string]string) string {
	v := url.Values{}
	for k, s := range q {
		v.Set(k, s)
	}
	return v.Encode() // sorted by key
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func yamlErrorLine(err error) int {
	// yaml.v3 syntax errors read "yaml: line N: message".
	var n int
	if _, scanErr := fmt.Sscanf(err.Error(), "yaml: line %d:", &n); scanErr == nil && n > 0 {
		return n
	}
	return 1
}

func yamlErrorText(err error) string {
	s := strings.TrimPrefix(err.Error(), "yaml: ")
	if i := strings.Index(s, ": "); strings.HasPrefix(s, "line ") && i >= 0 {
		s = s[i+2:]
	}
	return s
}

// Match returns the route that answers req: method and path equal, every
// listed query parameter present once with the listed value and every header
// of MatchHeaders present once with the listed value; among several, the one
// with the most such conditions, and among those the first in the file.
func (rs *Routes) Match(req *http.Request) (*Route, bool) {
	q := req.URL.Query()
	var best *Route
	for i := range rs.Routes {
		r := &rs.Routes[i]
		if r.Method != req.Method || r.Path != req.URL.Path || len(r.mismatches(q, req.Header)) > 0 {
			continue
		}
		if best == nil || r.conditions() > best.conditions() {
			best = r
		}
	}
	return best, best != nil
}

// mismatches names the listed query parameters that q does not satisfy, then
// the listed headers that h does not. A header's received value is not shown:
// it may be a credential, and the text ends up in recordings.
func (r *Route) mismatches(q url.Values, h http.Header) []string {
	var out, hdr []string
	for k, want := range r.Query {
		got, ok := q[k]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s=%s (missing)", k, want))
		case len(got) != 1 || got[0] != want:
			out = append(out, fmt.Sprintf("%s=%s (got %s)", k, want, strings.Join(got, ",")))
		}
	}
	for k, want := range r.MatchHeaders {
		got := h.Values(k)
		switch {
		case len(got) == 0:
			hdr = append(hdr, fmt.Sprintf("header %s: %s (missing)", k, want))
		case len(got) > 1:
			hdr = append(hdr, fmt.Sprintf("header %s: %s (got %d values)", k, want, len(got)))
		case got[0] != want:
			hdr = append(hdr, fmt.Sprintf("header %s: %s (got another value)", k, want))
		}
	}
	sort.Strings(out)
	sort.Strings(hdr)
	return append(out, hdr...)
}

// ServeHTTP answers r from the matching route, or with a 404 whose text names
// the request and the routes file to extend.
func (rs *Routes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if ep := rs.mcpFor(r.URL.Path); ep != nil {
		ep.handler.ServeHTTP(w, r)
		return
	}
	// No Date header: recordings must not change with the wall clock.
	w.Header()["Date"] = nil
	route, ok := rs.Match(r)
	if fault := r.Header.Get(cassette.FaultHeader); fault != "" {
		if rs.serveFault(w, r, fault, route, ok) {
			return
		}
	}
	if !ok {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, rs.missText(r))
		return
	}
	h := w.Header()
	h.Set("Content-Type", defaultContentType(route.File))
	for k, v := range route.Headers {
		h.Set(k, v)
	}
	h.Set("Content-Length", strconv.Itoa(len(route.body)))
	h.Set(LatencyHeader, route.Latency.String())
	w.WriteHeader(route.Status)
	if r.Method != http.MethodHead {
		w.Write(route.body)
	}
}

func (rs *Routes) missText(r *http.Request) string {
	target := r.URL.Path
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s: no route in %s matches; add one\n", r.Method, target, rs.Shown)
	// Point at the nearest routes for the same method and path, if any.
	q := r.URL.Query()
	fewest := -1
	var near []string
	for i := range rs.Routes {
		rt := &rs.Routes[i]
		if rt.Method != r.Method || rt.Path != r.URL.Path {
			continue
		}
		miss := rt.mismatches(q, r.Header)
		switch {
		case fewest < 0 || len(miss) < fewest:
			fewest, near = len(miss), nil
			fallthrough
		case len(miss) == fewest:
			near = append(near, fmt.Sprintf("  %s:%d wants %s\n", rs.Shown, rt.Line, strings.Join(miss, ", ")))
		}
	}
	const maxNear = 3
	if len(near) > maxNear {
		near = append(near[:maxNear], fmt.Sprintf("  … and %d more as near\n", len(near)-maxNear))
	}
	if len(near) > 0 {
		b.WriteString("nearest routes for this method and path:\n")
		for _, s := range near {
			b.WriteString(s)
		}
	}
	return b.String()
}

func defaultContentType(file string) string {
	if strings.EqualFold(filepath.Ext(file), ".json") {
		return "application/json"
	}
	return "text/plain; charset=utf-8"
}

// Server serves a Routes on a loopback port until Close.
type Server struct {
	url string
	srv *http.Server
}

// Start serves rs on 127.0.0.1, on a free port, until Close. It never listens
// on any other address.
func Start(rs *Routes) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start upstream stub: %w", err)
	}
	s := &Server{
		url: "http://" + ln.Addr().String(),
		srv: &http.Server{Handler: rs, ReadHeaderTimeout: 10 * time.Second},
	}
	go s.srv.Serve(ln)
	return s, nil
}

// StartFile loads the routes file at path (see Load) and serves it (see
// Start), naming it shown in its 404 bodies (path when ""): how the runner
// and the agents' specs start a stub.
func StartFile(path, shown string) (*Server, error) {
	rs, err := Load(path)
	if err != nil {
		return nil, err
	}
	if shown != "" {
		rs.Shown = shown
	}
	return Start(rs)
}

// URL is the server's base URL, "http://127.0.0.1:<port>", without a
// trailing slash.
func (s *Server) URL() string { return s.url }

// Close stops the server and closes its open connections.
func (s *Server) Close() { s.srv.Close() }
