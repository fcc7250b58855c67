package cassette

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// parseFast reads a cassette in the layout yaml.v3 writes it (testbed's, and
// go-vcr v4's, whose extra keys it skips as yaml.Unmarshal does): block mappings
// and sequences, scalars plain, single-quoted on one line, double-quoted
// without escapes or literal blocks (|, |- and |+, the last for a body that
// ends with empty lines, as an event stream does), and {} for empty maps, in a
// file that ends with a line break. Anything else, however valid as YAML,
// makes it return false, and the caller falls back to yaml.Unmarshal, so
// hand-edited cassettes still load. It must never accept what yaml.v3
// rejects nor read anything differently: FuzzFastReader checks that against
// yaml.v3 (make test runs it for a minute), and a spec checks every
// committed cassette. It is kept because it reads the committed cassettes
// 4.5× faster than yaml.v3 and 17× faster than goccy/go-yaml
// (BenchmarkReaders), which is most of the full replay's second.
func parseFast(text string) (*file, bool) {
	if !plainText(text) || !strings.HasSuffix(text, "\n") {
		return nil, false // yaml.v3 reads, or refuses, what is not in testbed's layout
	}
	p := &parser{lines: strings.Split(text, "\n")}
	if len(p.lines) > 0 && p.lines[0] == "---" {
		p.at++
	}
	root, ok := p.node(0)
	if !ok || p.skipEmpty() < len(p.lines) {
		return nil, false
	}
	return decodeFile(root)
}

// yamlNode is a parsed node: a mapping (keys and vals), a sequence (items),
// or a scalar (val).
type yamlNode struct {
	kind  byte // 'm', 's' or 'v'
	keys  []string
	vals  []*yamlNode
	items []*yamlNode
	val   string
	plain bool
}

func (n *yamlNode) get(key string) *yamlNode {
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

type parser struct {
	lines []string
	at    int
}

// skipEmpty skips empty lines and returns the current line number.
func (p *parser) skipEmpty() int {
	for p.at < len(p.lines) && p.lines[p.at] == "" {
		p.at++
	}
	return p.at
}

func indentOf(line string) int {
	return len(line) - len(strings.TrimLeft(line, " "))
}

// node parses the block node whose lines start at indent.
func (p *parser) node(indent int) (*yamlNode, bool) {
	if p.skipEmpty() >= len(p.lines) {
		return nil, false
	}
	line := p.lines[p.at]
	if indentOf(line) != indent {
		return nil, false
	}
	if rest := line[indent:]; rest == "-" || strings.HasPrefix(rest, "- ") {
		return p.sequence(indent)
	}
	return p.mapping(indent)
}

func (p *parser) sequence(indent int) (*yamlNode, bool) {
	n := &yamlNode{kind: 's'}
	for p.skipEmpty() < len(p.lines) {
		line := p.lines[p.at]
		if indentOf(line) != indent || !strings.HasPrefix(line[indent:], "- ") {
			break
		}
		rest := line[indent+2:]
		if isKeyLine(rest) {
			// A mapping starts on the dash's line: read it as if the dash
			// were a space.
			p.lines[p.at] = strings.Repeat(" ", indent+2) + rest
			item, ok := p.mapping(indent + 2)
			if !ok {
				return nil, false
			}
			n.items = append(n.items, item)
			continue
		}
		p.at++
		item, ok := p.scalar(rest, indent)
		if !ok {
			return nil, false
		}
		n.items = append(n.items, item)
	}
	return n, true
}

// isKeyLine reports whether s starts a mapping entry with a plain key: one
// that starts with no indicator character (flow ones included: yaml.v3
// refuses a key starting with a comma).
func isKeyLine(s string) bool {
	if s == "" || strings.ContainsRune("'\"|>{[]},-?:#&*!%@`", rune(s[0])) {
		return false
	}
	return strings.Contains(s, ": ") || strings.HasSuffix(s, ":")
}

func (p *parser) mapping(indent int) (*yamlNode, bool) {
	n := &yamlNode{kind: 'm'}
	for p.skipEmpty() < len(p.lines) {
		line := p.lines[p.at]
		ind := indentOf(line)
		if ind < indent {
			break
		}
		if ind > indent || !isKeyLine(line[indent:]) {
			return nil, false
		}
		key, rest, _ := strings.Cut(line[indent:], ":")
		if rest != "" && rest[0] != ' ' {
			// A colon not followed by a space is part of a plain key
			// ("body:\"…\": x" is the key `body:"…"`): left to yaml.v3.
			return nil, false
		}
		rest = strings.TrimPrefix(rest, " ")
		if len(key) > 1000 {
			// YAML caps an implicit key at 1024 characters, which yaml.v3
			// enforces ("could not find expected ':'"): left to it.
			return nil, false
		}
		if strings.ContainsAny(key, " #") || n.get(key) != nil {
			return nil, false // yaml.Unmarshal reports a key given twice
		}
		p.at++
		var val *yamlNode
		var ok bool
		if rest == "" {
			if p.skipEmpty() >= len(p.lines) {
				return nil, false // a null value
			}
			next := p.lines[p.at]
			switch ind := indentOf(next); {
			case ind == indent && strings.HasPrefix(next[ind:], "- "):
				// A sequence may sit at its key's own indent (yaml.v3
				// writes it so with an indent of 2, as go-vcr v4 does).
				val, ok = p.sequence(indent)
			case ind <= indent:
				return nil, false // a null value
			default:
				val, ok = p.node(ind)
			}
		} else {
			val, ok = p.scalar(rest, indent)
		}
		if !ok {
			return nil, false
		}
		n.keys = append(n.keys, key)
		n.vals = append(n.vals, val)
	}
	return n, true
}

// scalar reads a value that starts on a line after a key or dash at indent:
// an empty flow mapping, a quoted or plain scalar, or a literal block.
func (p *parser) scalar(s string, indent int) (*yamlNode, bool) {
	switch {
	case s == "":
		return nil, false // "- " with nothing after it: a null
	case s == "{}":
		return &yamlNode{kind: 'm'}, true
	case s[0] == '"':
		v, ok := doubleQuoted(s)
		return &yamlNode{kind: 'v', val: v}, ok
	case s == "|" || s == "|-" || s == "|+":
		return p.literal(indent, s[1:])
	case s[0] == '\'':
		v, ok := singleQuoted(s)
		return &yamlNode{kind: 'v', val: v}, ok
	case strings.ContainsRune(" \"|>{[-?:#&*!%@`,]}", rune(s[0])) || strings.Contains(s, " #") ||
		strings.Contains(s, ": ") || strings.HasSuffix(s, " ") || strings.HasSuffix(s, ":"):
		return nil, false
	}
	switch s {
	case "~", "null", "Null", "NULL":
		return nil, false
	}
	return &yamlNode{kind: 'v', val: s, plain: true}, true
}

// plainText reports whether text is UTF-8 with no character yaml.v3 refuses
// in a file (controls, DEL, C1 controls, U+FFFE, U+FFFF) and none it treats
// specially (tab, carriage return, byte-order mark, and NEL, LS and PS, which
// YAML 1.1 reads as line breaks); only such text is in the layout testbed
// writes.
func plainText(text string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for i := 0; i < len(text); {
		// Eight bytes at a time while none is below ' ' or above '~'.
		if i+8 <= len(text) {
			x := uint64(text[i]) | uint64(text[i+1])<<8 | uint64(text[i+2])<<16 | uint64(text[i+3])<<24 |
				uint64(text[i+4])<<32 | uint64(text[i+5])<<40 | uint64(text[i+6])<<48 | uint64(text[i+7])<<56
			if (x-0x20*ones)&^x&highs == 0 && (x+ones|x)&highs == 0 {
				i += 8
				continue
			}
		}
		switch c := text[i]; {
		case c >= 0x20 && c < 0x7f || c == '\n':
		case c < utf8.RuneSelf:
			return false
		default: // a character of several bytes, which must be valid UTF-8
			r, size := utf8.DecodeRuneInString(text[i:])
			if size == 1 || r <= 0x9f || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == 0xfffe || r == 0xffff {
				return false
			}
			i += size
			continue
		}
		i++
	}
	return true
}

// doubleQuoted reads a double-quoted scalar that ends on its line, with
// YAML's escapes (yaml.v3 writes one for a body holding characters it will
// not print, such as control characters or an emoji). A scalar that goes on
// to the next line, or an escape YAML does not have, is declined.
func doubleQuoted(s string) (string, bool) {
	var b strings.Builder
	b.Grow(len(s))
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), i == len(s)-1
		case c != '\\':
			b.WriteByte(c)
			continue
		case i+1 == len(s):
			return "", false // a line continuation
		}
		i++
		if r, ok := yamlEscapes[s[i]]; ok {
			b.WriteRune(r)
			continue
		}
		digits := 0
		switch s[i] {
		case 'x':
			digits = 2
		case 'u':
			digits = 4
		case 'U':
			digits = 8
		}
		if digits == 0 || i+digits >= len(s) {
			return "", false
		}
		r, err := strconv.ParseUint(s[i+1:i+1+digits], 16, 32)
		if err != nil || !utf8.ValidRune(rune(r)) {
			return "", false
		}
		b.WriteRune(rune(r))
		i += digits
	}
	return "", false
}

// yamlEscapes are the one-character escapes yaml.v3 reads in double-quoted
// scalars (YAML 1.1's: no \/).
var yamlEscapes = map[byte]rune{
	'0': 0, 'a': '\a', 'b': '\b', 't': '\t', '\t': '\t', 'n': '\n', 'v': '\v', 'f': '\f', 'r': '\r',
	'e': 0x1b, ' ': ' ', '"': '"', '\'': '\'', '\\': '\\', 'N': 0x85, '_': 0xa0, 'L': 0x2028, 'P': 0x2029,
}

// singleQuoted reads a single-quoted scalar that ends on its line.
func singleQuoted(s string) (string, bool) {
	var b strings.Builder
	for rest := s[1:]; ; {
		q := strings.IndexByte(rest, '\'')
		if q < 0 {
			return "", false
		}
		if q+1 < len(rest) && rest[q+1] == '\'' { // '' is one quote
			if b.Len() == 0 {
				b.Grow(len(rest)) // at most the rest of the line
			}
			b.WriteString(rest[:q+1])
			rest = rest[q+2:]
			continue
		}
		if b.Len() == 0 { // no quote inside: a slice of the text, as a plain scalar is
			return rest[:q], q == len(rest)-1
		}
		b.WriteString(rest[:q])
		return b.String(), q == len(rest)-1
	}
}

// literal reads the lines of a literal block scalar below a key at indent,
// keeping one final line break (chomp "", for |), none ("-") or every one,
// the empty lines after the block included ("+"). Under "+", trailing lines
// that hold spaces, and a block that runs to the end of the text, are left
// to yaml.Unmarshal.
func (p *parser) literal(indent int, chomp string) (*yamlNode, bool) {
	start := p.at
	blockIndent := -1
	end := p.at // lines [start, end) belong to the block
	for i := p.at; i < len(p.lines); i++ {
		line := p.lines[i]
		if strings.TrimLeft(line, " ") == "" {
			continue
		}
		ind := indentOf(line)
		if blockIndent < 0 {
			if ind <= indent {
				return nil, false // an empty block
			}
			blockIndent = ind
		}
		if ind < blockIndent {
			break
		}
		end = i + 1
	}
	if blockIndent < 0 {
		return nil, false
	}
	size := 0
	for _, line := range p.lines[start:end] {
		size += max(len(line)-blockIndent, 0) + 1
	}
	var b strings.Builder
	b.Grow(size)
	for _, line := range p.lines[start:end] {
		if len(line) > blockIndent {
			b.WriteString(line[blockIndent:])
		} else if strings.TrimLeft(line, " ") != "" {
			return nil, false
		}
		b.WriteByte('\n')
	}
	switch chomp {
	case "-":
		p.at = end
		return &yamlNode{kind: 'v', val: strings.TrimSuffix(b.String(), "\n")}, true
	case "+":
		for end < len(p.lines) && p.lines[end] == "" {
			b.WriteByte('\n')
			end++
		}
		if end >= len(p.lines)-1 || strings.TrimLeft(p.lines[end], " ") == "" {
			return nil, false
		}
	}
	p.at = end
	return &yamlNode{kind: 'v', val: b.String()}, true
}
