package upstream

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/agentreplay/testbed/harness/files"
)

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
					body, err := files.ReadIn(l.dir, s, files.MaxBytes)
					var out *files.OutsideError
					switch {
					case errors.As(err, &out):
						l.addf(v.Line, "file %q leads outside %s, the folder of the routes file (to %s); keep response files in that folder", s, l.dir, out.To)
					case err != nil:
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

// matchHeaders decodes headers_match: into canonical header names, each a
// name a request can carry on one line.
func (l *loader) matchHeaders(k, v *yaml.Node) map[string]string {
	return l.mapping(k, v, "header names", false, func(name, val *yaml.Node, s string) string {
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
		return canon
	})
}

func validHeaderName(name string) bool {
	return name != "" && !strings.ContainsAny(name, " :\t\r\n")
}

// stringMap decodes a mapping of names to scalar values as written.
func (l *loader) stringMap(k, v *yaml.Node) map[string]string {
	return l.mapping(k, v, "names", true, func(name, _ *yaml.Node, _ string) string { return name.Value })
}

// mapping decodes the mapping v under key k, what naming its keys in the
// error when v is not one: each scalar value under the key that key gives
// its name (checking it as it likes), a key given twice being a problem
// that names it, quoted when quoted.
func (l *loader) mapping(k, v *yaml.Node, what string, quoted bool, key func(name, val *yaml.Node, s string) string) map[string]string {
	if v.Kind != yaml.MappingNode {
		l.addf(v.Line, "%s must be a mapping of %s to values", k.Value, what)
		return nil
	}
	m := make(map[string]string, len(v.Content)/2)
	for i := 0; i+1 < len(v.Content); i += 2 {
		name, val := v.Content[i], v.Content[i+1]
		s, ok := l.scalar(name, val)
		if !ok {
			continue
		}
		mk := key(name, val, s)
		if _, dup := m[mk]; dup {
			shown := mk
			if quoted {
				shown = strconv.Quote(mk)
			}
			l.addf(name.Line, "%s lists %s twice", k.Value, shown)
		}
		m[mk] = s
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
