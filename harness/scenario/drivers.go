package scenario

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// HTTPDriver describes an outside agent that is a web service (http:):
// each user turn is POSTed to URL, and the response is the reply.
type HTTPDriver struct {
	URL string // url: on loopback; may hold {{port}}
	// Body is the request's template (body:): a string, or a mapping or
	// list sent as JSON; nil for the default.
	Body    any
	Headers map[string]string // headers:
	// Reply is a jq path into a JSON response for the reply's text
	// (reply:); empty for the default, .text.
	Reply string
	// Attachment is the template of one attachment where a template has
	// {{attachments}} (attachment:); nil for the default, the JSON-lines
	// shape.
	Attachment any
}

// MCPDriver describes an outside agent served as an MCP server (mcp:),
// over streamable HTTP, the older HTTP+SSE transport, or its stdin and
// stdout: each user turn is one call of Tool.
type MCPDriver struct {
	URL string // url: on loopback; may hold {{port}}; empty for stdio
	// Transport is transport: "streamable-http" (the default, written
	// ""), "sse" (the older HTTP+SSE transport) or "stdio" (the program's
	// stdin and stdout).
	Transport string
	Tool      string         // tool: the tool called per turn
	Args      map[string]any // args: the call's arguments' template; nil for the default
	// Reply is a jq path into the tool's structured result for the reply's
	// text (reply:); empty for the default.
	Reply string
	// Attachment is as HTTPDriver's.
	Attachment any
}

// The values of keep_alive: besides the default (scenario: a program per
// scenario run): one program per variant, or programs that serve any run
// of the agent, learning each run's variant from the run's first line.
const (
	KeepAliveVariant = "variant"
	KeepAliveAgent   = "agent"
)

var (
	httpKeys = []string{"url", "body", "headers", "reply", "attachment"}
	mcpKeys  = []string{"url", "transport", "tool", "args", "reply", "attachment"}
	// placeholder is one {{name}} of a driver's templates.
	placeholder  = regexp.MustCompile(`\{\{\s*([^{}]*?)\s*\}\}`)
	placeholders = []string{"input", "session", "turn", "port", "attachments"}
	// attachmentFields are the placeholders of an attachment: template.
	attachmentFields = []string{"name", "mime", "description", "data"}
)

// drivers reads http:, mcp:, keep_alive: and start_timeout: of agent:.
func (d *decoder) drivers(m *yaml.Node, fs fields, at string, e *External) {
	_, isHTTP := fs["http"]
	_, isMCP := fs["mcp"]
	if isHTTP && isMCP {
		d.errorf(fs["mcp"].key.Line, at, "give http: or mcp:, not both: an agent is reached one way")
	}
	if f, ok := fs["all_turns"]; ok && (isHTTP || isMCP) {
		d.errorf(f.key.Line, join(at, "all_turns"), "only for a command that speaks JSON lines; an http: or mcp: agent gets one request per turn")
	}
	if f, ok := fs["http"]; ok {
		hat := join(at, "http")
		if hm, hfs, ok := d.mapping(f.val, hat, "a mapping with url, body, headers and reply", httpKeys...); ok {
			d.require(hm, hfs, hat, "url")
			h := &HTTPDriver{}
			h.URL = d.serviceURL(hfs, hat)
			if b, ok := hfs["body"]; ok {
				h.Body = d.template(b.val, join(hat, "body"), placeholders)
			}
			if b, ok := hfs["headers"]; ok {
				h.Headers = map[string]string{}
				if efs, ok := d.anyKeys(b.val, join(hat, "headers"), "a mapping of header names to values"); ok {
					for k, ef := range efs {
						if v, ok := d.str(ef.val, join(join(hat, "headers"), k)); ok {
							h.Headers[k] = v
							d.placeholders(v, resolve(ef.val).Line, join(join(hat, "headers"), k), placeholders)
						}
					}
				}
			}
			h.Reply = d.replyPath(hfs, hat)
			h.Attachment = d.attachment(hfs, hat)
			e.HTTP = h
		}
	}
	if f, ok := fs["mcp"]; ok {
		mat := join(at, "mcp")
		if mm, mfs, ok := d.mapping(f.val, mat, "a mapping with url, transport, tool, args and reply", mcpKeys...); ok {
			d.require(mm, mfs, mat, "tool")
			c := &MCPDriver{}
			c.URL = d.serviceURL(mfs, mat)
			if f, ok := mfs["transport"]; ok {
				if v, ok := d.enum(f.val, join(mat, "transport"), "streamable-http", "sse", "stdio"); ok && v != "streamable-http" {
					c.Transport = v
				}
			}
			_, hasURL := mfs["url"]
			switch {
			case hasURL && c.Transport == "stdio":
				d.errorf(mfs["url"].key.Line, join(mat, "url"), "a server on transport: stdio is reached on the program's stdin and stdout, not at a URL; give one or the other")
			case !hasURL && c.Transport != "stdio":
				d.errorf(mm.Line, mat, "missing url: (the server's endpoint, like http://127.0.0.1:{{port}}/mcp), or transport: stdio for a server on the program's stdin and stdout")
			}
			if t, ok := mfs["tool"]; ok {
				c.Tool, _ = d.str(t.val, join(mat, "tool"))
			}
			if a, ok := mfs["args"]; ok {
				if v := resolve(a.val); v != nil && v.Kind != yaml.MappingNode {
					d.want(v, join(mat, "args"), "a mapping of the tool's arguments, like {query: \"{{input}}\"}")
				} else if args, ok := d.template(a.val, join(mat, "args"), placeholders).(map[string]any); ok {
					c.Args = args
				}
			}
			c.Reply = d.replyPath(mfs, mat)
			c.Attachment = d.attachment(mfs, mat)
			e.MCP = c
		}
	}
	if f, ok := fs["keep_alive"]; ok {
		if v, ok := d.enum(f.val, join(at, "keep_alive"), "scenario", KeepAliveVariant, KeepAliveAgent); ok && v != "scenario" {
			e.KeepAlive = v
		}
		if e.KeepAlive == KeepAliveAgent && (isHTTP || isMCP) {
			d.errorf(f.key.Line, join(at, "keep_alive"), "agent is for a command that speaks JSON lines, which learns each run's variant from the run's first line; keep an http: or mcp: service per variant (keep_alive: variant)")
		}
	}
	if f, ok := fs["start_timeout"]; ok {
		e.StartTimeout = d.duration(f.val, join(at, "start_timeout"))
	}
	if f, ok := fs["turn_timeout"]; ok {
		e.TurnTimeout = d.duration(f.val, join(at, "turn_timeout"))
	}
}

// duration reads a Go duration above 0.
func (d *decoder) duration(v *yaml.Node, at string) time.Duration {
	s, ok := d.str(v, at)
	if !ok {
		return 0
	}
	t, err := time.ParseDuration(s)
	if err != nil || t <= 0 {
		d.errorf(resolve(v).Line, at, "%q is not a duration above 0; write it like 30s", s)
		return 0
	}
	return t
}

// serviceURL reads url: a service testbed starts and reaches on loopback.
func (d *decoder) serviceURL(fs fields, at string) string {
	f, ok := fs["url"]
	if !ok {
		return ""
	}
	at = join(at, "url")
	raw, ok := d.str(f.val, at)
	if !ok {
		return ""
	}
	line := resolve(f.val).Line
	d.placeholders(raw, line, at, placeholders)
	u, err := url.Parse(placeholder.ReplaceAllString(raw, "1"))
	switch {
	case err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https":
		d.errorf(line, at, "%q is not an http URL; write it like http://127.0.0.1:{{port}}/chat", raw)
	case !loopback(u.Hostname()):
		d.errorf(line, at, "%q is not on loopback: testbed starts the service with command: and reaches it on 127.0.0.1, like http://127.0.0.1:{{port}}/chat", raw)
	}
	return raw
}

// loopback reports whether host names this machine.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// replyPath reads reply: a jq path.
func (d *decoder) replyPath(fs fields, at string) string {
	f, ok := fs["reply"]
	if !ok {
		return ""
	}
	expr, ok := d.str(f.val, join(at, "reply"))
	if ok && d.opts.JQ != nil {
		if err := d.opts.JQ(expr); err != nil {
			d.errorf(resolve(f.val).Line, join(at, "reply"), "%v", err)
		}
	}
	return expr
}

// attachment reads attachment: the template of one attachment, whose
// placeholders are its fields.
func (d *decoder) attachment(fs fields, at string) any {
	f, ok := fs["attachment"]
	if !ok {
		return nil
	}
	return d.template(f.val, join(at, "attachment"), attachmentFields)
}

// template reads a request template (a string, a list or a mapping, as
// plain Go values) and checks that its placeholders are known ones.
func (d *decoder) template(v *yaml.Node, at string, known []string) any {
	v = resolve(v)
	if !d.present(v, at) {
		return nil
	}
	before := len(d.errs)
	d.checkKeys(v, at, map[*yaml.Node]bool{})
	var out any
	if err := v.Decode(&out); err != nil {
		d.errorf(v.Line, at, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(d.errs) > before {
		return nil
	}
	d.templateStrings(v, at, known)
	return plain(out)
}

// templateStrings checks the placeholders of every string in v.
func (d *decoder) templateStrings(v *yaml.Node, at string, known []string) {
	v = resolve(v)
	switch {
	case v == nil:
	case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str":
		d.placeholders(v.Value, v.Line, at, known)
	case v.Kind == yaml.MappingNode:
		list, _ := d.fields(v, at)
		for _, f := range list {
			d.templateStrings(f.val, join(at, f.key.Value), known)
		}
	case v.Kind == yaml.SequenceNode:
		for i, item := range v.Content {
			d.templateStrings(item, index(at, i), known)
		}
	}
}

// placeholders records a problem for each {{name}} in s not known.
func (d *decoder) placeholders(s string, line int, at string, known []string) {
	for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
		if !slices.Contains(known, m[1]) {
			d.errorf(line, at, "unknown placeholder %s (known: %s)", m[0], fmt.Sprintf("{{%s}}", strings.Join(known, "}}, {{")))
		}
	}
}
