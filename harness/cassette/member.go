package cassette

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/harness/wire"
)

// hints says what a body difference's lines may add to help a reader
// fix it.
type hints int

const (
	// noHints: the lines say what differs, nothing more.
	noHints hints = iota
	// valueHints: a value that differs only in a value of a built-in
	// pattern names the normalise rule that compares it as one.
	valueHints
	// modelHints: besides, the body is a model request, so a top-level
	// member added or removed that has a default the providers document
	// says whether the model is asked the same (modelDefaults).
	modelHints
)

// modelDefaults are the top-level members of a model request whose value,
// when the request leaves them out, the APIs that take them document alike
// (documentedDefaults): OpenAI's Chat Completions and Responses references
// for each, Anthropic's Messages reference for stream and temperature. A
// member an SDK upgrade starts or stops sending at its default asks the
// same of the model; one at another value asks something else. Ollama's
// native API is not one of them: it streams unless told not to.
var modelDefaults = map[string]string{
	"stream":              "false",
	"temperature":         "1",
	"top_p":               "1",
	"n":                   "1",
	"presence_penalty":    "0",
	"frequency_penalty":   "0",
	"logprobs":            "false",
	"parallel_tool_calls": "true",
}

// memberLine is the line of a member (or an array element) that live adds
// to recorded (added) or leaves out, at path, with value, the one it has;
// with modelHints, a top-level member with a documented default
// (modelDefaults) says whether the model is still asked the same.
func memberLine(path string, value any, added bool, h hints) string {
	what, at := "member", ""
	switch last := path[strings.LastIndexByte(path, '/')+1:]; {
	case last == "-": // appended (RFC 6902)
		path, what, at = cmpPath(path[:len(path)-2], ""), "element", " at the end"
	case isIndex(last):
		what = "element"
	}
	note := ""
	if what == "member" && h >= modelHints && strings.Count(path, "/") == 1 {
		note = defaultNote(unescapePointer(path[1:]), value, added)
	}
	if added {
		if note != "" {
			note = " (" + note + ")"
		}
		return fmt.Sprintf("%s: %s added%s: %s%s", path, what, at, clip(compactJSON(value)), note)
	}
	if note != "" {
		note = ", " + note
	}
	return fmt.Sprintf("%s: %s removed (was %s%s)", path, what, clip(compactJSON(value)), note)
}

// defaultNote says of a model request's top-level member, added or
// removed with value, whether the model is still asked the same, when the
// APIs document the default its absence means (modelDefaults); "" when
// they do not.
func defaultNote(name string, value any, added bool) string {
	def, ok := modelDefaults[name]
	switch {
	case !ok:
		return ""
	case sameScalar(value, def):
		return "the APIs' default: the model is asked the same"
	case added:
		return fmt.Sprintf("recorded without it, the APIs took %s as %s: the model is asked something else", name, def)
	}
	return fmt.Sprintf("without it the APIs take %s as %s: the model is asked something else", name, def)
}

// emptyContentNote is what a miss adds to the one difference of an
// assistant message that calls tools and says nothing, written with its
// empty content another way (emptyContentOnly), where the suite's rules
// do not already compare such contents as one.
const emptyContentNote = " (an assistant message that only calls tools, its empty content written another way: SDK versions differ in null, \"\" or none, and the model is asked the same; compare them as one with match: {empty_content: any_form} (docs/recording.md))"

// emptyContentOnly reports whether two messages differ only in how they
// write an empty content (null, "", [] or none), and call tools: what SDK
// versions write differently for a Chat Completions assistant message.
func emptyContentOnly(recorded, live any) bool {
	rm, rok := recorded.(map[string]any)
	lm, lok := live.(map[string]any)
	if !rok || !lok || !wire.CallsToolsSilently(rm) || !wire.CallsToolsSilently(lm) {
		return false
	}
	rm, lm = maps.Clone(rm), maps.Clone(lm)
	delete(rm, "content")
	delete(lm, "content")
	return equalJSON(rm, lm)
}

// isIndex reports whether a JSON pointer token is an array index.
func isIndex(tok string) bool {
	if tok == "" {
		return false
	}
	for _, c := range tok {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// sameScalar reports whether v, a decoded JSON scalar, is the literal
// def: the same boolean, or the same number however written (1, 1.0).
func sameScalar(v any, def string) bool {
	if b, ok := v.(bool); ok {
		return strconv.FormatBool(b) == def
	}
	s := scalarText(v)
	if _, isString := v.(string); isString || s == "" {
		return false
	}
	a, err1 := strconv.ParseFloat(s, 64)
	b, err2 := strconv.ParseFloat(def, 64)
	return err1 == nil && err2 == nil && a == b
}

// unescapePointer is a JSON pointer token as the member's name (RFC 6901:
// ~1 is /, ~0 is ~).
func unescapePointer(tok string) string {
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
}
