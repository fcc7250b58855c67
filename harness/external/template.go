package external

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/itchyny/gojq"

	"github.com/agentreplay/testbed/agents"
)

// placeholder is one {{name}} of a driver's templates.
var placeholder = regexp.MustCompile(`\{\{\s*([^{}]*?)\s*\}\}`)

// vars are the values a turn's templates are filled with.
type vars struct {
	input   string // {{input}}: the user's turn
	session string // {{session}}: the conversation, one per scenario run
	turn    int    // {{turn}}: from 0
	port    int    // {{port}}: the service's PORT
	// files are {{attachments}}: the scenario's, on its first turn only;
	// each filled into file, the attachment: template (nil: the JSON-lines
	// shape).
	files []agents.Attachment
	file  any
}

// lookup is the value of one placeholder, and whether it is known.
func (v vars) lookup(name string) (any, bool) {
	switch name {
	case "input":
		return v.input, true
	case "session":
		return v.session, true
	case "turn":
		return v.turn, true
	case "port":
		return v.port, true
	case "attachments":
		return v.attachments(), true
	}
	return nil, false
}

// attachments are the turn's files, each as the attachment: template
// makes it; spread in a list.
func (v vars) attachments() spread {
	out := spread{}
	for _, f := range v.files {
		fields := map[string]any{"name": f.Name, "mime": f.MIME, "description": f.Description, "data": base64.StdEncoding.EncodeToString(f.Data)}
		if v.file == nil {
			out = append(out, fields)
			continue
		}
		out = append(out, fill(v.file, func(name string) (any, bool) {
			x, ok := fields[name]
			return x, ok
		}))
	}
	return out
}

// spread is a list whose items stand in a template's list for the one
// placeholder that gave it (a list item "{{attachments}}"); elsewhere it
// is the list.
type spread []any

// at is v for turn i, whose input is input: the attachments go with the
// first turn only.
func (v vars) at(i int, input string) vars {
	v.input, v.turn = input, i
	if i > 0 {
		v.files = nil
	}
	return v
}

// text fills in the placeholders of s.
func (v vars) text(s string) string { return fillText(s, v.lookup) }

// value fills in a JSON template (plain Go values); see fill.
func (v vars) value(t any) any { return fill(t, v.lookup) }

// fillText fills in the placeholders of s known to lookup, a list as its
// JSON.
func fillText(s string, lookup func(string) (any, bool)) string {
	return placeholder.ReplaceAllStringFunc(s, func(m string) string {
		x, ok := lookup(placeholder.FindStringSubmatch(m)[1])
		if !ok {
			return m
		}
		switch x := x.(type) {
		case int:
			return strconv.Itoa(x)
		case string:
			return x
		}
		b, _ := json.Marshal(x)
		return string(b)
	})
}

// fill fills in a JSON template (plain Go values) from lookup: a string
// that is one placeholder alone takes the placeholder's JSON type
// ({{turn}} is a number, {{attachments}} a list, whose items a list holding
// it alone takes in its place), any other string has its placeholders
// filled in as text.
func fill(t any, lookup func(string) (any, bool)) any {
	whole := func(s string) (any, bool) {
		if m := placeholder.FindStringSubmatch(s); m != nil && m[0] == s {
			return lookup(m[1])
		}
		return nil, false
	}
	switch x := t.(type) {
	case string:
		if val, ok := whole(x); ok {
			if sp, isSpread := val.(spread); isSpread {
				return []any(sp)
			}
			return val
		}
		return fillText(x, lookup)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = fill(e, lookup)
		}
		return out
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			if s, isString := e.(string); isString {
				if val, ok := whole(s); ok {
					if sp, isSpread := val.(spread); isSpread {
						out = append(out, sp...)
						continue
					}
				}
			}
			out = append(out, fill(e, lookup))
		}
		return out
	}
	return t
}

// mentions reports whether template t (plain Go values) has the
// placeholder {{name}} anywhere.
func mentions(t any, name string) bool {
	switch x := t.(type) {
	case string:
		return slices.ContainsFunc(placeholder.FindAllStringSubmatch(x, -1), func(m []string) bool { return m[1] == name })
	case map[string]any:
		for _, e := range x {
			if mentions(e, name) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(x, func(e any) bool { return mentions(e, name) })
	}
	return false
}

// replyPath is a compiled reply: path (nil for the default).
type replyPath struct {
	expr string
	code *gojq.Code
}

// compileReply compiles a reply: path; empty is the default.
func compileReply(expr string) (*replyPath, error) {
	if expr == "" {
		return nil, nil
	}
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("reply path %s: %w", expr, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, fmt.Errorf("reply path %s: %w", expr, err)
	}
	return &replyPath{expr: expr, code: code}, nil
}

// fromJSON is the reply a JSON value makes: the text at path (by default
// the value's text field, or the value itself when it is a string), the
// whole value as data, and the notes and tools it reports in the shape of
// a JSON-lines reply, if it does.
// all returns every value path finds in v.
func (p *replyPath) all(v any) ([]any, error) {
	var got []any
	iter := p.code.Run(v)
	for {
		x, ok := iter.Next()
		if !ok {
			return got, nil
		}
		if err, isErr := x.(error); isErr {
			return nil, fmt.Errorf("reply path %s: %w", p.expr, err)
		}
		got = append(got, x)
	}
}

// joinStrings joins vs when all of them are strings.
func joinStrings(vs []any) (string, bool) {
	var b strings.Builder
	for _, v := range vs {
		s, ok := v.(string)
		if !ok {
			return "", false
		}
		b.WriteString(s)
	}
	return b.String(), true
}

// rpcError says, after a colon, the JSON-RPC error v answers ({"error":
// {"code", "message"}}), or "" when it is none.
func rpcError(v any) string {
	m, _ := v.(map[string]any)
	e, _ := m["error"].(map[string]any)
	msg, _ := e["message"].(string)
	if msg == "" {
		return ""
	}
	if code, ok := e["code"].(float64); ok {
		return fmt.Sprintf(": the agent answered the JSON-RPC error %d %q", int(code), msg)
	}
	return fmt.Sprintf(": the agent answered the error %q", msg)
}

func fromJSON(body []byte, path *replyPath) (turnOut, error) {
	var out turnOut
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return out, err
	}
	var text any
	switch {
	case path != nil:
		got, err := path.all(v)
		if err != nil {
			return out, err
		}
		if len(got) == 0 {
			return out, fmt.Errorf("reply path %s found nothing in %s%s", path.expr, clip(string(body)), rpcError(v))
		}
		text = got[0]
		if strs, joined := joinStrings(got); joined {
			text = strs // the parts of one answer (an artifact's, say)
		}
	default:
		if s, ok := v.(string); ok {
			text = s
		} else if m, ok := v.(map[string]any); ok {
			text = m["text"]
		}
	}
	s, ok := text.(string)
	if !ok {
		where := ".text"
		if path != nil {
			where = path.expr
		}
		if e := rpcError(v); e != "" {
			return out, fmt.Errorf("the reply has no text at %s%s", where, e)
		}
		return out, fmt.Errorf("the reply has no text at %s (got %s); say where it is with reply:, like reply: .answer", where, clip(string(body)))
	}
	out.Text = &s
	if _, isObject := v.(map[string]any); isObject {
		out.Data = body
		var reports struct {
			Notes []Note       `json:"notes"`
			Tools []toolReport `json:"tools"`
		}
		if json.Unmarshal(body, &reports) == nil {
			out.Notes, out.Tools = reports.Notes, reports.Tools
		}
	}
	return out, nil
}
