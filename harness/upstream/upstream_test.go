package upstream_test

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/upstream"
)

// writeRoutes writes routes.yaml and the given response files into a fresh
// folder and returns the routes file's path.
func writeRoutes(routes string, files map[string]string) string {
	dir := GinkgoT().TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		Expect(os.MkdirAll(filepath.Dir(p), 0o755)).To(Succeed())
		Expect(os.WriteFile(p, []byte(body), 0o644)).To(Succeed())
	}
	p := filepath.Join(dir, "routes.yaml")
	Expect(os.WriteFile(p, []byte(routes), 0o644)).To(Succeed())
	return p
}

func mustLoad(routes string, files map[string]string) (*upstream.Routes, string) {
	p := writeRoutes(routes, files)
	rs, err := upstream.Load(p)
	Expect(err).NotTo(HaveOccurred())
	return rs, p
}

func get(h http.Handler, target string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	return rec
}

// getWith is get with request headers, given as name, value pairs; a name
// given twice is sent twice.
func getWith(h http.Handler, target string, headers ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

var _ = Describe("Load", func() {
	It("reads routes, their files and the defaults", func() {
		rs, p := mustLoad(`routes:
  - path: /api/ghrsst
    query: {lon0: "118", lat0: 20, start: "2025-11-06"}
    file: data/a.json
    latency: 140ms
  - method: POST
    path: /api/other
    file: err.txt
    status: 400
    headers: {X-Stride: "30"}
`, map[string]string{"data/a.json": `[{"sst":26.4}]`, "err.txt": "bad"})

		Expect(rs.Dir).To(Equal(filepath.Dir(p)))
		Expect(rs.Routes).To(HaveLen(2))
		a, b := rs.Routes[0], rs.Routes[1]
		Expect(a.Method).To(Equal("GET"))
		Expect(a.Path).To(Equal("/api/ghrsst"))
		Expect(a.Query).To(Equal(map[string]string{"lon0": "118", "lat0": "20", "start": "2025-11-06"}))
		Expect(a.File).To(Equal("data/a.json"))
		Expect(a.Status).To(Equal(200))
		Expect(a.Latency).To(Equal(140 * time.Millisecond))
		Expect(a.Line).To(Equal(2))
		Expect(b.Method).To(Equal("POST"))
		Expect(b.Status).To(Equal(400))
		Expect(b.Latency).To(BeZero())
		Expect(b.Headers).To(Equal(map[string]string{"X-Stride": "30"}))
		Expect(b.Line).To(Equal(6))
	})

	It("reports every problem at once with its line", func() {
		p := writeRoutes(`version: 2
routes:
  - path: /ok
    file: ok.json
  - path: /a
    file: missing.json
    status: 99
    latency: fast
  - method: get
    path: api/b?x=1
    file: ok.json
    colour: blue
  - file: ok.json
    latency: -1s
    query: {a: [1, 2]}
  - path: /ok
    file: ok.json
  - just a string
`, map[string]string{"ok.json": "{}"})

		_, err := upstream.Load(p)
		Expect(err).To(HaveOccurred())
		Expect(errors.Is(err, upstream.ErrInvalid)).To(BeTrue())
		Expect(strings.Split(err.Error(), "\n")).To(Equal([]string{
			p + `:1: unknown key "version" (want routes, mcp)`,
			p + `:6: file "missing.json": no such file or directory`,
			p + `:7: status "99": want an HTTP status code from 100 to 599`,
			p + `:8: latency "fast": want a Go duration such as 140ms`,
			p + `:9: method "get": want one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS (upper case)`,
			p + `:10: path "api/b?x=1" must start with /`,
			p + `:12: unknown key "colour" (want method, path, query, headers_match, file, status, latency, headers)`,
			p + `:13: route has no path:`,
			p + `:14: latency "-1s" must not be negative`,
			p + `:15: a must be a single value`,
			p + `:16: same method, path, query and headers_match as the route at line 3, which always wins`,
			p + `:18: a route must be a mapping with at least path: and file:`,
		}))
	})

	It("reads headers_match with canonical header names", func() {
		rs, _ := mustLoad(`routes:
  - path: /api/v1/inventory/x
    headers_match: {authorization: "Bearer tok-a", X-SERVICE-NAME: climate-advisor}
    file: ok.json
  - path: /api/v1/inventory/x
    file: ok.json
`, map[string]string{"ok.json": "{}"})

		Expect(rs.Routes).To(HaveLen(2))
		Expect(rs.Routes[0].MatchHeaders).To(Equal(map[string]string{
			"Authorization": "Bearer tok-a", "X-Service-Name": "climate-advisor"}))
		Expect(rs.Routes[0].Headers).To(BeNil())
		Expect(rs.Routes[1].MatchHeaders).To(BeNil())
	})

	It("reports every problem in headers_match with its line", func() {
		p := writeRoutes(`routes:
  - path: /a
    headers_match: Authorization
    file: ok.json
  - path: /b
    headers_match:
      Bad Name: x
      host: example.org
      Authorization: [a, b]
      X-Two: "a\nb"
      x-dup: one
      X-Dup: two
    file: ok.json
  - path: /c
    headers_match: {Authorization: Bearer a}
    file: ok.json
  - path: /c
    headers_match: {Authorization: Bearer b}
    file: ok.json
  - path: /c
    headers_match: {authorization: Bearer a}
    file: ok.json
  - path: /d
    query: {lat: "1", lat: "2"}
    headers: [x]
    file: ok.json
`, map[string]string{"ok.json": "{}"})

		_, err := upstream.Load(p)
		Expect(errors.Is(err, upstream.ErrInvalid)).To(BeTrue())
		Expect(strings.Split(err.Error(), "\n")).To(Equal([]string{
			p + `:3: headers_match must be a mapping of header names to values`,
			p + `:7: header name "Bad Name" is not valid`,
			p + `:8: headers_match cannot test Host; give the route a path instead`,
			p + `:9: Authorization must be a single value`,
			p + `:10: header X-Two: value must be on one line`,
			p + `:12: headers_match lists X-Dup twice`,
			p + `:20: same method, path, query and headers_match as the route at line 14, which always wins`,
			p + `:24: query lists "lat" twice`,
			p + `:25: headers must be a mapping of names to values`,
		}))
	})

	It("reports a YAML syntax error with its line", func() {
		p := writeRoutes("routes:\n  - path: /a\n    file: [x\n", nil)
		_, err := upstream.Load(p)
		Expect(errors.Is(err, upstream.ErrInvalid)).To(BeTrue())
		Expect(err.Error()).To(HavePrefix(p + ":"))
		Expect(err.Error()).NotTo(HavePrefix(p + ":1:"))
	})

	It("reports a missing routes file without ErrInvalid", func() {
		_, err := upstream.Load(filepath.Join(GinkgoT().TempDir(), "routes.yaml"))
		Expect(err).To(MatchError(ContainSubstring("no such file")))
		Expect(errors.Is(err, upstream.ErrInvalid)).To(BeFalse())
	})

	It("rejects a file without a routes list", func() {
		p := writeRoutes("routes: {}\n", nil)
		_, err := upstream.Load(p)
		Expect(err).To(MatchError(p + ":1: routes must be a list"))
	})
})

var _ = Describe("Routes", func() {
	var rs *upstream.Routes
	var path string

	BeforeEach(func() {
		rs, path = mustLoad(`routes:
  - path: /api/ghrsst
    file: any.txt
  - path: /api/ghrsst
    query: {lon0: "118"}
    file: lon0.json
  - path: /api/ghrsst
    query: {lon0: "118", start: "2025-11-06"}
    file: first.json
    latency: 140ms
  - path: /api/ghrsst
    query: {lon0: "118", end: "2025-11-06"}
    file: second.json
  - method: POST
    path: /api/ghrsst
    query: {lon0: "118", start: "2025-11-06", end: "2025-11-06"}
    file: post.txt
    status: 201
  - path: /api/fail
    file: fail.txt
    status: 503
    latency: 60ms
    headers: {Content-Type: application/problem+json, X-Served-Rows: "0"}
`, map[string]string{
			"any.txt": "any", "lon0.json": "lon0", "first.json": "first",
			"second.json": "second", "post.txt": "post", "fail.txt": "No available dates.",
		})
	})

	DescribeTable("picks the route with the most matching query parameters, then the first",
		func(target, want string) {
			rec := get(rs, target)
			Expect(rec.Code).To(Equal(http.StatusOK))
			Expect(rec.Body.String()).To(Equal(want))
		},
		Entry("no query", "/api/ghrsst", "any"),
		Entry("an unlisted parameter is ignored", "/api/ghrsst?lat0=20", "any"),
		Entry("one listed parameter", "/api/ghrsst?lat0=20&lon0=118", "lon0"),
		Entry("values are exact strings", "/api/ghrsst?lon0=118.0", "any"),
		Entry("a repeated parameter does not match", "/api/ghrsst?lon0=118&lon0=118&start=2025-11-06", "any"),
		Entry("two listed parameters", "/api/ghrsst?start=2025-11-06&lon0=118", "first"),
		Entry("a tie goes to the first in the file", "/api/ghrsst?lon0=118&end=2025-11-06&start=2025-11-06", "first"),
		Entry("the other of the tie", "/api/ghrsst?lon0=118&end=2025-11-06", "second"),
		Entry("escaped values are decoded", "/api/ghrsst?lon0=%31%318&end=2025-11-06", "second"),
	)

	It("matches the method", func() {
		rec := httptest.NewRecorder()
		rs.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/api/ghrsst?lon0=118&start=2025-11-06&end=2025-11-06", nil))
		Expect(rec.Code).To(Equal(http.StatusCreated))
		Expect(rec.Body.String()).To(Equal("post"))
		Expect(rec.Header().Get("Content-Type")).To(Equal("text/plain; charset=utf-8"))
	})

	It("reports the modelled latency in a header", func() {
		rec := get(rs, "/api/ghrsst?lon0=118&start=2025-11-06")
		Expect(rec.Header().Get(upstream.LatencyHeader)).To(Equal("140ms"))
		Expect(rec.Header().Get("Content-Type")).To(Equal("application/json"))
		Expect(rec.Header().Get("Content-Length")).To(Equal("5"))

		Expect(get(rs, "/api/ghrsst").Header().Get(upstream.LatencyHeader)).To(Equal("0s"))
	})

	It("does not sleep for the modelled latency", func() {
		// A route modelled as taking a year: a server that slept would
		// never answer, whatever the machine's speed.
		slow, _ := mustLoad("routes:\n  - path: /slow\n    file: a.txt\n    latency: 8760h\n", map[string]string{"a.txt": "a"})
		answered := make(chan string, 1)
		go func() { answered <- get(slow, "/slow").Header().Get(upstream.LatencyHeader) }()
		Eventually(answered, time.Minute).Should(Receive(Equal("8760h0m0s")))
	})

	It("sends the route's status and headers, which override the defaults", func() {
		rec := get(rs, "/api/fail")
		Expect(rec.Code).To(Equal(http.StatusServiceUnavailable))
		Expect(rec.Body.String()).To(Equal("No available dates."))
		Expect(rec.Header().Get("Content-Type")).To(Equal("application/problem+json"))
		Expect(rec.Header().Get("X-Served-Rows")).To(Equal("0"))
		Expect(rec.Header().Get(upstream.LatencyHeader)).To(Equal("60ms"))
	})

	It("answers an unmatched request with a 404 naming it and the file to extend, at an error's modelled latency (a recording of it is the same twice)", func() {
		rec := httptest.NewRecorder()
		rs.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/api/ghrsst?lon0=119&start=2025-11-06", nil))
		Expect(rec.Code).To(Equal(http.StatusNotFound))
		Expect(rec.Header().Get("Content-Type")).To(Equal("text/plain; charset=utf-8"))
		Expect(rec.Header().Get(upstream.LatencyHeader)).To(Equal("60ms"))
		Expect(rec.Body.String()).To(Equal(
			"POST /api/ghrsst?lon0=119&start=2025-11-06: no route in " + path + " matches; add one\n" +
				"nearest routes for this method and path:\n" +
				"  " + path + ":14 wants end=2025-11-06 (missing), lon0=118 (got 119)\n"))

		rec = get(rs, "/nowhere")
		Expect(rec.Code).To(Equal(http.StatusNotFound))
		Expect(rec.Body.String()).To(Equal("GET /nowhere: no route in " + path + " matches; add one\n"))
	})
})

var _ = Describe("Start", func() {
	It("serves on 127.0.0.1 until Close", func() {
		rs, _ := mustLoad("routes:\n  - path: /ping\n    file: pong.txt\n", map[string]string{"pong.txt": "pong"})
		srv, err := upstream.Start(rs)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(srv.Close)

		u, err := url.Parse(srv.URL())
		Expect(err).NotTo(HaveOccurred())
		Expect(u.Scheme).To(Equal("http"))
		Expect(u.Hostname()).To(Equal("127.0.0.1"))
		Expect(u.Port()).NotTo(BeEmpty())
		Expect(srv.URL()).NotTo(HaveSuffix("/"))

		resp, err := http.Get(srv.URL() + "/ping")
		Expect(err).NotTo(HaveOccurred())
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(body)).To(Equal("pong"))

		srv.Close()
		_, err = net.DialTimeout("tcp", u.Host, time.Second)
		Expect(err).To(HaveOccurred())
	})
})

var _ = Describe("Routes with header conditions", func() {
	var rs *upstream.Routes
	var path string

	BeforeEach(func() {
		rs, path = mustLoad(`routes:
  - path: /inv
    file: plain.json
  - path: /inv
    headers_match: {Authorization: Bearer tok-new}
    file: new.json
  - path: /inv
    headers_match: {authorization: Bearer tok-old}
    file: expired.json
    status: 401
  - path: /inv
    query: {v: "2"}
    file: v2.json
  - path: /inv
    headers_match: {X-Trace: "on"}
    file: trace.json
  - path: /inv
    query: {v: "2"}
    headers_match: {X-Trace: full}
    file: v2-full.json
  - path: /only
    headers_match: {Authorization: Bearer tok-new, X-Service-Name: climate-advisor}
    file: only.json
  - path: /mixed
    query: {v: "1"}
    headers_match: {X-Trace: "on"}
    file: mixed.json
`, map[string]string{
			"plain.json": "plain", "new.json": "new", "expired.json": "expired", "v2.json": "v2",
			"trace.json": "trace", "v2-full.json": "v2-full", "only.json": "only", "mixed.json": "mixed",
		})
	})

	DescribeTable("picks the route with the most matching conditions, query and headers together, then the first",
		func(target string, status int, want string, headers ...string) {
			rec := getWith(rs, target, headers...)
			Expect(rec.Code).To(Equal(status))
			Expect(rec.Body.String()).To(Equal(want))
		},
		Entry("without the header", "/inv", 200, "plain"),
		Entry("with an unlisted header", "/inv", 200, "plain", "X-Other", "1"),
		Entry("with the header", "/inv", 200, "new", "Authorization", "Bearer tok-new"),
		Entry("with the other value of the header", "/inv", 401, "expired", "Authorization", "Bearer tok-old"),
		Entry("header values are exact strings", "/inv", 200, "plain", "Authorization", "bearer tok-new"),
		Entry("a repeated header does not match", "/inv", 200, "plain",
			"Authorization", "Bearer tok-new", "Authorization", "Bearer tok-new"),
		Entry("a header and a parameter tie: the first in the file", "/inv?v=2", 200, "v2", "X-Trace", "on"),
		Entry("the header of the tie alone", "/inv", 200, "trace", "X-Trace", "on"),
		Entry("a header and a parameter beat either", "/inv?v=2", 200, "v2-full", "X-Trace", "full"),
		Entry("all listed headers", "/only", 200, "only",
			"X-Service-Name", "climate-advisor", "Authorization", "Bearer tok-new"),
	)

	It("matches headers the client sent in any case, over the wire", func() {
		srv, err := upstream.Start(rs)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(srv.Close)
		req, err := http.NewRequest(http.MethodGet, srv.URL()+"/inv", nil)
		Expect(err).NotTo(HaveOccurred())
		req.Header["authorization"] = []string{"Bearer tok-old"} // not canonical, as some clients send it
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized))
		Expect(string(body)).To(Equal("expired"))
	})

	DescribeTable("answers a header mismatch with a 404 naming the wanted headers but not the received values",
		func(target string, want string, headers ...string) {
			rec := getWith(rs, target, headers...)
			Expect(rec.Code).To(Equal(http.StatusNotFound))
			Expect(rec.Body.String()).To(Equal(strings.ReplaceAll(want, "ROUTES", path)))
			Expect(rec.Body.String()).NotTo(ContainSubstring("tok-secret"))
		},
		Entry("missing headers", "/only", "GET /only: no route in ROUTES matches; add one\n"+
			"nearest routes for this method and path:\n"+
			"  ROUTES:21 wants header Authorization: Bearer tok-new (missing), header X-Service-Name: climate-advisor (missing)\n"),
		Entry("another value", "/only", "GET /only: no route in ROUTES matches; add one\n"+
			"nearest routes for this method and path:\n"+
			"  ROUTES:21 wants header Authorization: Bearer tok-new (got another value)\n",
			"Authorization", "Bearer tok-secret", "X-Service-Name", "climate-advisor"),
		Entry("every listed header is needed", "/only", "GET /only: no route in ROUTES matches; add one\n"+
			"nearest routes for this method and path:\n"+
			"  ROUTES:21 wants header X-Service-Name: climate-advisor (missing)\n",
			"Authorization", "Bearer tok-new"),
		Entry("a repeated header", "/only", "GET /only: no route in ROUTES matches; add one\n"+
			"nearest routes for this method and path:\n"+
			"  ROUTES:21 wants header Authorization: Bearer tok-new (got 2 values)\n",
			"Authorization", "Bearer tok-new", "Authorization", "Bearer tok-secret", "X-Service-Name", "climate-advisor"),
		Entry("parameters first, then headers", "/mixed?v=3", "GET /mixed?v=3: no route in ROUTES matches; add one\n"+
			"nearest routes for this method and path:\n"+
			"  ROUTES:24 wants v=1 (got 3), header X-Trace: on (missing)\n",
			"Authorization", "Bearer tok-secret"),
	)
})

var _ = Describe("StartFile", func() {
	It("loads a routes file and serves it on loopback", func() {
		p := writeRoutes("routes:\n  - path: /api/x\n    file: x.json\n", map[string]string{"x.json": `{"ok":true}`})
		srv, err := upstream.StartFile(p, "")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(srv.Close)
		Expect(srv.URL()).To(HavePrefix("http://127.0.0.1:"))
		resp, err := http.Get(srv.URL() + "/api/x")
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(body)).To(Equal(`{"ok":true}`))
	})

	It("names the routes file in its 404 bodies as told, never by the local path it was loaded from", func() {
		p := writeRoutes("routes:\n  - path: /api/x\n    file: x.json\n", map[string]string{"x.json": `{"ok":true}`})
		Expect(filepath.IsAbs(p)).To(BeTrue())
		srv, err := upstream.StartFile(p, "fixtures/demo/routes.yaml")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(srv.Close)
		resp, err := http.Get(srv.URL() + "/api/y")
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		Expect(string(body)).To(Equal("GET /api/y: no route in fixtures/demo/routes.yaml matches; add one\n"))
		Expect(string(body)).NotTo(ContainSubstring(filepath.Dir(p)))
	})

	It("returns Load's error for a broken routes file, and starts nothing", func() {
		p := writeRoutes("routes:\n  - path: /api/x\n    file: missing.json\n", nil)
		srv, err := upstream.StartFile(p, "")
		Expect(err).To(MatchError(upstream.ErrInvalid))
		Expect(srv).To(BeNil())
	})
})
