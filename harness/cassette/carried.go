package cassette

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// carried returns the secrets an exchange carries by where they are,
// whatever they look like: the values of its request's credential headers
// (by name or by rule; without their scheme, each cookie's value) and of
// its URL's credential query parameters, and its URL's password. A
// recording drops or replaces them there, and an agent that also put one
// in its message, its URL's path or a form, or an upstream that quotes it
// back in an error, would leave it in the cassette: replaceCarried takes
// them out of the rest of the exchange, and a replay does the same to a
// live request before matching it. The longest come first, so that a
// secret holding another is replaced whole.
func (d *Detector) carried(h http.Header, rawURL string) []string {
	var out []string
	add := func(v string) {
		if len(v) >= 8 && !notSecret(v) && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	for name, vs := range h {
		if d.secretHeader(name) {
			for _, v := range vs {
				for _, x := range headerValues(name, v) {
					add(x)
				}
			}
		}
	}
	// Most URLs a replay sees have neither a query nor user information:
	// they are not parsed.
	if _, query, ok := strings.Cut(rawURL, "?"); ok {
		q, _ := url.ParseQuery(query) // what parses of it
		for k, vs := range q {
			if slices.Contains(secretParams, k) || slices.Contains(d.queries, k) {
				for _, v := range vs {
					add(v)
				}
			}
		}
	}
	if strings.Contains(rawURL, "@") {
		if u, err := url.Parse(rawURL); err == nil {
			if pw, ok := u.User.Password(); ok {
				add(pw)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// replaceCarried returns s with each of secrets (see carried) replaced by
// its placeholder, as written and as escaped in a URL's path or query.
func replaceCarried(s string, secrets []string) string {
	for _, v := range secrets {
		p := Placeholder(v)
		for _, form := range [...]string{v, url.PathEscape(v), url.QueryEscape(v)} {
			if strings.Contains(s, form) {
				s = strings.ReplaceAll(s, form, p)
			}
		}
	}
	return s
}

// headerValues are the secrets a credential header's value v holds: the
// value without its scheme (Bearer, Basic), or a cookie header's values
// (sid=value; theme=dark).
func headerValues(name, v string) []string {
	if strings.Contains(strings.ToLower(name), "cookie") {
		var out []string
		for part := range strings.SplitSeq(v, ";") {
			if _, value, ok := strings.Cut(strings.TrimSpace(part), "="); ok {
				out = append(out, value)
			}
		}
		return out
	}
	if f := strings.Fields(v); len(f) > 0 {
		return f[len(f)-1:]
	}
	return nil
}

// requestURL is raw, a request's URL sent with headers h, with its secrets
// replaced, those the request carries by where they are (see carried)
// wherever else the URL holds them.
func (d *Detector) requestURL(h http.Header, raw string) string {
	return replaceCarried(d.URL(raw), d.carried(h, raw))
}
