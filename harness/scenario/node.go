package scenario

import (
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// decoder walks a suite file's YAML nodes and collects every problem it finds.
type decoder struct {
	path string
	opts LoadOptions
	errs Errors

	// variants are the suite's variant names in file order; known is false
	// when the variants key is missing or broken, so that names are not
	// checked against it.
	variants []string
	known    bool

	// headRead is true when the agent and the variants were read without
	// problems, so that LoadOptions.Check can build the agent under each.
	headRead bool

	// dirLine is the line of agent.dir, for paths.
	dirLine int

	// typos are the keys that unknown keys were taken for, so that they are
	// not also reported as missing.
	typos map[typo]bool

	// cells are the nodes a data file's row put in a scenario, by the
	// column they came from, for messages about their values.
	cells map[*yaml.Node]string

	// merged memoises fields per mapping: a mapping merged many times
	// (anchors merging anchors, nine times per level) is expanded once, and
	// its problems are reported once, so the work stays linear in the file.
	merged map[*yaml.Node]mergedFields
}

// typo is a key that an unknown key in a mapping was taken for.
type typo struct {
	mapping *yaml.Node
	key     string
}

// field is one key and its value in a mapping.
type field struct {
	key, val *yaml.Node
}

// fields is a mapping's fields by key.
type fields map[string]field

// errorf records a problem at line; at is the dotted path of the node, such
// as "scenarios[3].expect", and prefixes the message unless empty.
func (d *decoder) errorf(line int, at, format string, args ...any) {
	// One problem per line, whatever the message quotes.
	msg := strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " ")
	if at != "" {
		msg = at + ": " + msg
	}
	d.errs = append(d.errs, &Error{Path: d.path, Line: max(line, 1), Msg: msg})
}

var plainKey = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9_.-]*$`)

// join returns the path of key under at: at.key, or at["key"] when key has
// other characters.
func join(at, key string) string {
	switch {
	case !plainKey.MatchString(key):
		return fmt.Sprintf("%s[%q]", at, key)
	case at == "":
		return key
	}
	return at + "." + key
}

// index returns the path of the i-th item under at.
func index(at string, i int) string { return fmt.Sprintf("%s[%d]", at, i) }

// resolve follows aliases to the node they name.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == 0 || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe names the kind of a node for "want X, got Y" messages.
func describe(n *yaml.Node) string {
	switch {
	case isNull(n):
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str":
			return "a string"
		case "!!int":
			return "an integer"
		case "!!float":
			return "a number"
		case "!!bool":
			return "a boolean"
		case "!!timestamp":
			return "a timestamp"
		}
		return "a scalar"
	}
	return "an alias"
}

func lineOf(n *yaml.Node) int {
	if n == nil {
		return 1
	}
	return n.Line
}

// present reports whether v has a value, and records a problem if not.
func (d *decoder) present(v *yaml.Node, at string) bool {
	if isNull(v) || v.Kind == yaml.ScalarNode && v.Value == "" {
		d.errorf(lineOf(v), at, "empty value; fill it in or remove it")
		return false
	}
	return true
}

// want records that v is not the kind of value expected at at.
func (d *decoder) want(v *yaml.Node, at, want string) {
	d.errorf(lineOf(v), at, "want %s, got %s%s", want, describe(v), d.ofColumn(v))
}
