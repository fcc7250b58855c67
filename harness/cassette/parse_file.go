package cassette

// The cassette file read from parseFast's nodes: each key and shape
// yaml.Unmarshal would read the same way, anything else refused so that
// the caller falls back to it.

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	vcr "gopkg.in/dnaeon/go-vcr.v2/cassette"
)

// decodeFile maps the parsed root onto the cassette file, refusing any key
// or shape yaml.Unmarshal might read differently.
func decodeFile(root *yamlNode) (*file, bool) {
	if root.kind != 'm' {
		return nil, false
	}
	f := &file{}
	for i, k := range root.keys {
		v := root.vals[i]
		var ok bool
		switch k {
		case "version":
			f.Version, ok = intOf(v)
		case "interactions":
			f.Interactions, ok = interactions(v)
		case "provenance":
			f.Provenance, ok = provenanceOf(v)
		}
		if !ok {
			return nil, false
		}
	}
	return f, true
}

func intOf(n *yamlNode) (int, bool) {
	if n.kind != 'v' || !n.plain {
		return 0, false
	}
	i, err := strconv.Atoi(n.val)
	return i, err == nil && strconv.Itoa(i) == n.val
}

func stringOf(n *yamlNode) (string, bool) {
	if n.kind != 'v' {
		return "", false
	}
	if n.plain {
		// Plain scalars that YAML reads as something other than a string
		// are left to yaml.Unmarshal.
		if _, err := strconv.ParseFloat(n.val, 64); err == nil {
			return "", false
		}
		switch strings.ToLower(n.val) {
		case "true", "false", "yes", "no", "on", "off", "y", "n", ".inf", "-.inf", ".nan":
			return "", false
		}
	}
	return n.val, true
}

func interactions(n *yamlNode) ([]*vcr.Interaction, bool) {
	if n.kind != 's' {
		return nil, false
	}
	out := make([]*vcr.Interaction, 0, len(n.items))
	for _, it := range n.items {
		in := &vcr.Interaction{}
		ok := eachField(it, func(k string, v *yamlNode) bool {
			switch k {
			case "request":
				return request(v, &in.Request)
			case "response":
				return response(v, &in.Response)
			}
			return k == "id" // go-vcr v4's interaction id, which replay does not need
		})
		if !ok {
			return nil, false
		}
		out = append(out, in)
	}
	return out, true
}

// eachField calls set for every key of the mapping n, in order, and reports
// whether n is a mapping and set accepted every key (an unknown key is left
// to yaml.Unmarshal).
func eachField(n *yamlNode, set func(k string, v *yamlNode) bool) bool {
	if n.kind != 'm' {
		return false
	}
	for i, k := range n.keys {
		if !set(k, n.vals[i]) {
			return false
		}
	}
	return true
}

func request(n *yamlNode, r *vcr.Request) bool {
	return eachField(n, func(k string, v *yamlNode) (ok bool) {
		switch k {
		case "body":
			r.Body, ok = stringOf(v)
		case "form":
			var m map[string][]string
			m, ok = stringLists(v)
			r.Form = url.Values(m)
		case "headers":
			r.Headers, ok = headersOf(v)
		case "url":
			r.URL, ok = stringOf(v)
		case "method":
			r.Method, ok = stringOf(v)
		default:
			ok = govcr4Request[k]
		}
		return ok
	})
}

// govcr4Request and govcr4Response are the keys go-vcr v4 writes beside
// those of go-vcr v2. The interaction type has no field for them, so
// yaml.Unmarshal skips them whatever they hold, and so does the fast reader.
var (
	govcr4Request = map[string]bool{"proto": true, "proto_major": true, "proto_minor": true, "content_length": true,
		"transfer_encoding": true, "trailer": true, "host": true, "remote_addr": true, "request_uri": true}
	govcr4Response = map[string]bool{"proto": true, "proto_major": true, "proto_minor": true, "content_length": true,
		"transfer_encoding": true, "trailer": true, "uncompressed": true}
)

// headersOf reads a mapping of header names to lists of values.
func headersOf(n *yamlNode) (http.Header, bool) {
	m, ok := stringLists(n)
	return http.Header(m), ok
}

func response(n *yamlNode, r *vcr.Response) bool {
	return eachField(n, func(k string, v *yamlNode) (ok bool) {
		switch k {
		case "body":
			r.Body, ok = stringOf(v)
		case "headers":
			r.Headers, ok = headersOf(v)
		case "status":
			r.Status, ok = stringOf(v)
		case "code":
			r.Code, ok = intOf(v)
		case "duration":
			if v.kind == 'v' && v.plain {
				d, err := time.ParseDuration(v.val)
				r.Duration, ok = d, err == nil
			}
		default:
			ok = govcr4Response[k]
		}
		return ok
	})
}

func stringLists(n *yamlNode) (map[string][]string, bool) {
	if n.kind != 'm' {
		return nil, false
	}
	m := make(map[string][]string, len(n.keys))
	for i, k := range n.keys {
		v := n.vals[i]
		if v.kind != 's' {
			return nil, false
		}
		list := make([]string, 0, len(v.items))
		for _, it := range v.items {
			s, ok := stringOf(it)
			if !ok {
				return nil, false
			}
			list = append(list, s)
		}
		m[k] = list
	}
	return m, true
}

func provenanceOf(n *yamlNode) (*Provenance, bool) {
	if n.kind != 'm' {
		return nil, false
	}
	p := &Provenance{}
	for i, k := range n.keys {
		v := n.vals[i]
		var ok bool
		switch k {
		case "recorder":
			p.Recorder, ok = stringOf(v)
		case "provider":
			p.Provider, ok = stringOf(v)
		case "endpoint":
			p.Endpoint, ok = stringOf(v)
		case "model":
			p.Model, ok = stringOf(v)
		case "upstream":
			p.Upstream, ok = stringOf(v)
		case "policy":
			p.Policy, ok = stringOf(v)
		case "role":
			p.Role, ok = stringOf(v)
		case "standin":
			ok = v.kind == 'v' && v.plain && (v.val == "true" || v.val == "false")
			p.StandIn = v.val == "true"
		}
		if !ok {
			return nil, false
		}
	}
	// The scalars are slices of the cassette's whole text: a provenance kept
	// after the replay (reports quote it) must not keep that text alive.
	p.Recorder, p.Provider, p.Endpoint = strings.Clone(p.Recorder), strings.Clone(p.Provider), strings.Clone(p.Endpoint)
	p.Model, p.Upstream, p.Policy = strings.Clone(p.Model), strings.Clone(p.Upstream), strings.Clone(p.Policy)
	p.Role = strings.Clone(p.Role)
	return p, true
}
