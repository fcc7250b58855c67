package scenario

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

var (
	yamlLine      = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
	unknownAnchor = regexp.MustCompile(`^yaml: unknown anchor '(.*)' referenced$`)
)

// parserProblems are the problems that yaml.v3 reports from its parser
// rather than its scanner; for those it gives a 0-based line.
var parserProblems = []string{
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"did not find expected '-' indicator",
	"did not find expected <document start>",
	"did not find expected <stream-start>",
	"did not find expected key",
	"did not find expected node content",
	"found duplicate %TAG directive",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found undefined tag handle",
}

// document parses data as a single YAML document and returns its top node,
// or nil after recording a syntax error.
func (d *decoder) document(data []byte) (root *yaml.Node) {
	defer func() {
		// yaml.v3 has panicked on some malformed input; report it as such.
		if r := recover(); r != nil {
			d.errs = nil
			d.errorf(1, "", "invalid YAML: %v", r)
			root = nil
		}
	}()
	if !utf8.Valid(data) && !bytes.HasPrefix(data, []byte{0xff, 0xfe}) && !bytes.HasPrefix(data, []byte{0xfe, 0xff}) {
		// yaml.v3 says "invalid trailing UTF-8 octet" at line 1 wherever the
		// byte is; point at it instead.
		i := firstInvalidUTF8(data)
		line := 1 + bytes.Count(data[:i], []byte("\n"))
		col := 1 + utf8.RuneCount(data[bytes.LastIndexByte(data[:i], '\n')+1:i])
		d.errorf(line, "", "not UTF-8 text: byte 0x%02x at column %d; save the file as UTF-8", data[i], col)
		return nil
	}
	// yaml.v3 says "control characters are not allowed" at line 1 wherever
	// they are; point at each instead.
	utf16 := bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff})
	if found := controlChars(data); len(found) > 0 && !utf16 {
		for _, c := range found {
			d.errorf(c.line, "", "control character U+%04X at column %d; remove it (YAML text allows tab, newline and carriage return only)", c.r, c.col)
		}
		return nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			d.errorf(1, "", "empty file; a suite starts with suite: <name>")
			return nil
		}
		d.syntax(data, err)
		return nil
	}
	var more yaml.Node
	switch err := dec.Decode(&more); {
	case err == io.EOF:
	case err != nil:
		d.syntax(data, err)
		return nil
	default:
		line := more.Line
		if len(more.Content) > 0 {
			line = more.Content[0].Line
		}
		d.errorf(line, "", "a second YAML document; keep one suite per file")
	}
	if len(doc.Content) == 0 {
		d.errorf(1, "", "empty file; a suite starts with suite: <name>")
		return nil
	}
	return doc.Content[0]
}

// control is a character YAML does not allow, where it is.
type control struct {
	r         rune
	line, col int
}

// controlChars returns every character of data that YAML does not allow in a
// document: C0 controls but tab, newline and carriage return, DEL, and C1
// controls.
func controlChars(data []byte) []control {
	var out []control
	line, col := 1, 0
	for _, r := range string(data) {
		col++
		switch {
		case r == '\n':
			line, col = line+1, 0
		case r == '\t' || r == '\r':
		case r < 0x20 || r == 0x7f || 0x80 <= r && r <= 0x9f:
			out = append(out, control{r, line, col})
		}
	}
	return out
}

// firstInvalidUTF8 returns the offset of the first byte of data that is not
// part of valid UTF-8, or len(data).
func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// syntax records a YAML syntax error at its 1-based line, or line 1 when it
// cannot be told.
func (d *decoder) syntax(data []byte, err error) {
	msg, line := strings.TrimPrefix(err.Error(), "yaml: "), 1
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
		if slices.Contains(parserProblems, msg) {
			line++
		}
	} else if m := unknownAnchor.FindStringSubmatch(err.Error()); m != nil {
		if i := bytes.Index(data, []byte("*"+m[1])); i >= 0 {
			line = 1 + bytes.Count(data[:i], []byte("\n"))
		}
		msg = fmt.Sprintf("unknown anchor %q; define it with &%s before using *%s", m[1], m[1], m[1])
	}
	// At the end of the file yaml may point past its last line.
	line = min(line, max(1, bytes.Count(bytes.TrimRight(data, "\n"), []byte("\n"))+1))
	d.errorf(line, "", "invalid YAML: %s", msg)
}
