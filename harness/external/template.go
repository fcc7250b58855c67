package external

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"

	"github.com/itchyny/gojq"
)

// placeholder is one {{name}} of a driver's templates.
var placeholder = regexp.MustCompile(`\{\{\s*([^{}]*?)\s*\}\}`)

// vars are the values a turn's templates are filled with.
type vars struct {
	input   string // {{input}}: the user's turn
	session string // {{session}}: the conversation, one per scenario run
	turn    int    // {{turn}}: from 0
	port    int    // {{port}}: the service's PORT
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
	}
	return nil, false
}

// text fills in the placeholders of s.
func (v vars) text(s string) string {
	return placeholder.ReplaceAllStringFunc(s, func(m string) string {
		x, ok := v.lookup(placeholder.FindStringSubmatch(m)[1])
		if !ok {
			return m
		}
		if n, isInt := x.(int); isInt {
			return strconv.Itoa(n)
		}
		return x.(string)
	})
}

// value fills in a JSON template (plain Go values): a string that is one
// placeholder alone takes the placeholder's JSON type ({{turn}} is a
// number), any other string has its placeholders filled in as text.
func (v vars) value(t any) any {
	switch x := t.(type) {
	case string:
		if m := placeholder.FindStringSubmatch(x); m != nil && m[0] == x {
			if val, ok := v.lookup(m[1]); ok {
				return val
			}
		}
		return v.text(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = v.value(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = v.value(e)
		}
		return out
	}
	return t
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
func fromJSON(body []byte, path *replyPath) (turnOut, error) {
	var out turnOut
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return out, err
	}
	var text any
	switch {
	case path != nil:
		iter := path.code.Run(v)
		got, ok := iter.Next()
		if err, isErr := got.(error); isErr {
			return out, fmt.Errorf("reply path %s: %w", path.expr, err)
		}
		if !ok {
			return out, fmt.Errorf("reply path %s found nothing in %s", path.expr, clip(string(body)))
		}
		text = got
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
