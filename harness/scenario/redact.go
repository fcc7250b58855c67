package scenario

import (
	"net/textproto"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// RedactRule is one of a suite's redact: rules: a secret testbed cannot
// know (a tenant's token, a signed URL's signature) that recording, replay
// matching, the secret scan and every report replace by a placeholder.
// Exactly one of Regex, Pointer, Header and Query is set.
type RedactRule struct {
	// Regex matches the secret anywhere in what testbed writes: its first
	// capture group when it has one, else the whole match.
	Regex *regexp.Regexp
	// Pointer is a JSON pointer (RFC 6901) into request and response
	// bodies, where "*" stands for any key or index: /metadata/tenant,
	// /messages/*/name.
	Pointer string
	// Header names a request or response header.
	Header string
	// Query names a URL query or form parameter.
	Query string
	Line  int
}

// String is the rule as written in a suite: regex: …, pointer: …,
// header: … or query: ….
func (r RedactRule) String() string {
	switch {
	case r.Regex != nil:
		return "regex: " + r.Regex.String()
	case r.Pointer != "":
		return "pointer: " + r.Pointer
	case r.Header != "":
		return "header: " + r.Header
	}
	return "query: " + r.Query
}

var redactKeys = []string{"regex", "pointer", "header", "query"}

// redact reads redact:, a list of rules of one key each.
func (d *decoder) redact(v *yaml.Node) []RedactRule {
	var out []RedactRule
	d.mappings(v, "redact", "one of regex, pointer, header or query", redactKeys, nil, func(at string, m *yaml.Node, fs fields) {
		switch {
		case len(fs) == 0 && len(m.Content) > 0:
			return // its unknown key is reported
		case len(fs) != 1:
			d.errorf(m.Line, at, "a redact rule has one of regex, pointer, header or query; got %d keys", len(fs))
			return
		}
		r := RedactRule{Line: m.Line}
		for k, f := range fs {
			s, ok := d.str(f.val, join(at, k))
			if !ok {
				return
			}
			line := resolve(f.val).Line
			switch k {
			case "regex":
				re, err := regexp.Compile(s)
				switch {
				case err != nil:
					d.errorf(line, join(at, k), "%q is not a regular expression (Go syntax, RE2): %v", s, err)
					return
				case re.MatchString(""):
					d.errorf(line, join(at, k), "%q matches the empty text, and would redact nothing or everything; make it match the secret only", s)
					return
				}
				r.Regex = re
			case "pointer":
				if !strings.HasPrefix(s, "/") || strings.Contains(strings.ReplaceAll(strings.ReplaceAll(s, "~0", ""), "~1", ""), "~") {
					d.errorf(line, join(at, k), "%q is not a JSON pointer; write one like /metadata/tenant_id (~1 for /, ~0 for ~, * for any key or index)", s)
					return
				}
				r.Pointer = s
			case "header":
				if strings.ContainsAny(s, " :\t") || textproto.CanonicalMIMEHeaderKey(s) == "" {
					d.errorf(line, join(at, k), "%q is not a header name; write it like X-Tenant-Token", s)
					return
				}
				r.Header = s
			case "query":
				if strings.ContainsAny(s, "=&?# ") {
					d.errorf(line, join(at, k), "%q is not a query parameter name; write the key only, like sig", s)
					return
				}
				r.Query = s
			}
		}
		out = append(out, r)
	})
	return out
}
