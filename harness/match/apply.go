package match

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Ignored is what an ignore rule puts in place of an array element it
// targets: removing the element would shift the ones after it.
const Ignored = "<ignored>"

// ignored is the token walk leaves for an ignored element: a type of its
// own, so that a normalise rule applied after the ignore rule leaves it as
// it is (value changes strings only); it marshals as Ignored.
type ignored string

// JSON applies the rules to v, a JSON document decoded with
// json.Decoder.UseNumber, and returns the result; v's maps and slices are
// changed in place.
func (r *Rules) JSON(v any) any {
	if r == nil {
		return v
	}
	for i := range r.List {
		rule := &r.List[i]
		switch {
		case rule.Where == WhereBody && rule.Ignore:
			v = walk(v, rule.ptr, func(any) (any, bool) { return nil, false })
		case rule.Where == WhereBody:
			v = walk(v, rule.ptr, func(x any) (any, bool) { return rule.value(x), true })
		case rule.Where == WhereAnywhere:
			v = rule.value(v)
		}
	}
	return v
}

// walk replaces what segs points at in v by f's result, or removes it
// when f says not to keep it (a member is deleted, an element becomes
// Ignored). A path that does not exist changes nothing.
func walk(v any, segs []string, f func(any) (any, bool)) any {
	if len(segs) == 0 {
		if out, keep := f(v); keep {
			return out
		}
		return ignored(Ignored)
	}
	seg, rest := segs[0], segs[1:]
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if seg != "*" && k != seg {
				continue
			}
			if len(rest) == 0 {
				if out, keep := f(x); keep {
					v[k] = out
				} else {
					delete(v, k)
				}
				continue
			}
			v[k] = walk(x, rest, f)
		}
	case []any:
		for i, x := range v {
			if seg == "*" || seg == strconv.Itoa(i) {
				v[i] = walk(x, rest, f)
			}
		}
	}
	return v
}

// value normalises every string and number in x, at any depth: what the
// pattern matches becomes the token. A number that changes becomes a
// string.
func (r *Rule) value(x any) any {
	switch x := x.(type) {
	case string:
		return r.re.ReplaceAllString(x, r.Token)
	case json.Number:
		if s := r.re.ReplaceAllString(string(x), r.Token); s != string(x) {
			return s
		}
	case map[string]any:
		for k, y := range x {
			x[k] = r.value(y)
		}
	case []any:
		for i, y := range x {
			x[i] = r.value(y)
		}
	}
	return x
}

// Text applies the normalise rules that apply anywhere to s, a body that is
// not JSON.
func (r *Rules) Text(s string) string {
	if r == nil {
		return s
	}
	for _, rule := range r.List {
		if rule.Where == WhereAnywhere {
			s = rule.re.ReplaceAllString(s, rule.Token)
		}
	}
	return s
}

// URL applies the rules to a URL: ignored query keys are dropped, query
// values and the path normalised, and the query written sorted by key. A
// URL that does not parse is returned as it is.
func (r *Rules) URL(raw string) string {
	if r == nil || len(r.List) == 0 {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q := u.Query()
	for _, rule := range r.List {
		switch {
		case rule.Where == WhereQuery && rule.Ignore:
			q.Del(rule.Target)
		case rule.Where == WhereQuery:
			for i, v := range q[rule.Target] {
				q[rule.Target][i] = rule.re.ReplaceAllString(v, rule.Token)
			}
		case rule.Where == WhereAnywhere:
			for _, vs := range q {
				for i, v := range vs {
					vs[i] = rule.re.ReplaceAllString(v, rule.Token)
				}
			}
			u.Path, u.RawPath = rule.re.ReplaceAllString(u.Path, rule.Token), ""
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// Header is what matching compares of the request headers h: one
// "Name: value" line per header the rules name, sorted by name; a header
// only ignored shows "(present)", a missing one "(absent)".
func (r *Rules) Header(h http.Header) []string {
	names := r.HeaderNames()
	if len(names) == 0 {
		return nil
	}
	out := make([]string, 0, len(names))
	for _, name := range names {
		vs, ok := h[name]
		if !ok {
			vs, ok = lookup(h, name)
		}
		v := strings.Join(vs, ", ")
		switch {
		case !ok:
			v = "(absent)"
		case r.ignores(name):
			v = "(present)"
		default:
			for _, rule := range r.List {
				if rule.Where == WhereAnywhere || rule.Where == WhereHeader && rule.Target == name && !rule.Ignore {
					v = rule.re.ReplaceAllString(v, rule.Token)
				}
			}
		}
		out = append(out, name+": "+v)
	}
	return out
}

// lookup finds a header whatever the case of its recorded name.
func lookup(h http.Header, name string) ([]string, bool) {
	for k, vs := range h {
		if strings.EqualFold(k, name) {
			return vs, true
		}
	}
	return nil, false
}

// ignores reports whether an ignore rule names the header.
func (r *Rules) ignores(name string) bool {
	for _, rule := range r.List {
		if rule.Ignore && rule.Where == WhereHeader && rule.Target == name {
			return true
		}
	}
	return false
}
