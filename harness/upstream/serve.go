package upstream

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentreplay/testbed/harness/cassette"
)

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
		// Modelled, as every answer is: a measured latency would make two
		// recordings of one scenario differ.
		w.Header().Set(LatencyHeader, errorLatency.String())
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
