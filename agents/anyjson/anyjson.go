// Package anyjson decodes JSON into, and encodes JSON from, the generic
// values encoding/json uses for an any: map[string]any, []any, string,
// float64, bool and nil.
//
// Its results are those of encoding/json, byte for byte and value for value,
// including its errors; it is only faster, because it reads in one pass
// without reflection and writes map keys without reflect.Value sorting. The
// agents use it for the large upstream payloads they pass through (Home
// Assistant histories, CityCatalyst inventories) and for jq results.
//
// Anything off the fast path, such as a syntax error, a number out of
// range, or a value of another type (a struct, json.Number, *big.Int), is
// handed to encoding/json, so its answer is the answer. anyjson does not
// decode into structs; use encoding/json for those.
package anyjson

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Decode returns what json.Unmarshal(data, &v) leaves in a v of type any,
// and the error it returns.
func Decode(data []byte) (any, error) {
	d := decoder{data: data}
	d.space()
	if v, ok := d.value(0); ok {
		if d.space(); d.pos == len(data) {
			return v, nil
		}
	}
	var v any
	err := json.Unmarshal(data, &v)
	return v, err
}

// DecodeUnique is Decode for JSON none of whose objects repeats a key,
// read without encoding/json; it returns false for anything else (a
// repeated key, a syntax error, a number out of range). A caller that
// copies the value into its own types, as encoding/json would into a
// struct, can then be sure that each key it reads is the only one, where
// encoding/json reads every occurrence (and reports a bad one even when a
// later one is good).
func DecodeUnique(data []byte) (any, bool) {
	d := decoder{data: data, unique: true}
	d.space()
	v, ok := d.value(0)
	if d.space(); !ok || d.pos != len(data) {
		return nil, false
	}
	return v, true
}

// CaseExact reports whether every key of m that encoding/json would match
// to one of a struct's field names (it ignores case) is that name exactly,
// so that reading m by those names finds what encoding/json would.
func CaseExact(m map[string]any, names ...string) bool {
	for k := range m {
		for _, n := range names {
			if k != n && strings.EqualFold(k, n) {
				return false
			}
		}
	}
	return true
}

// List copies a decoded JSON list into a []T, converting element i with
// each. A null is a nil slice, as encoding/json leaves for null; anything
// but a list, or an element each refuses, is false.
func List[T any](v any, each func(i int, e any) (T, bool)) ([]T, bool) {
	if v == nil {
		return nil, true
	}
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]T, len(list))
	for i, e := range list {
		if out[i], ok = each(i, e); !ok {
			return nil, false
		}
	}
	return out, true
}

// DecodeObject is Decode into a map[string]any: what json.Unmarshal(data,
// &m) leaves in m, and its error (a JSON null gives a nil map).
func DecodeObject(data []byte) (map[string]any, error) {
	if v, err := Decode(data); err == nil {
		switch m := v.(type) {
		case map[string]any:
			return m, nil
		case nil:
			return nil, nil
		}
	}
	var m map[string]any
	err := json.Unmarshal(data, &m)
	return m, err
}

// maxDepth is the nesting at which the decoder and encoder leave the value
// to encoding/json, which refuses nesting over 10,000 when decoding.
const maxDepth = 10000

type decoder struct {
	data   []byte
	pos    int
	unique bool // fail on a repeated key
	// short holds the short strings read so far, each in an interface
	// value, so that a key or value met again (a payload's keys, units,
	// entity ids) is one string, and a value one interface, not a new
	// allocation each time.
	short map[string]any
	// stack holds the elements of the lists being read, innermost last.
	stack []any
}

// A string of up to maxShort bytes is kept in decoder.short, until it
// holds maxShortKept of them.
const (
	maxShort     = 32
	maxShortKept = 1024
)

func (d *decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// value reads one value at d.pos, inside depth containers; false means
// encoding/json must decide.
func (d *decoder) value(depth int) (any, bool) {
	if d.pos >= len(d.data) {
		return nil, false
	}
	switch c := d.data[d.pos]; {
	case (c == '{' || c == '[') && depth >= maxDepth:
		return nil, false
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		return d.string()
	case c == '-' || '0' <= c && c <= '9':
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, false
}

func (d *decoder) literal(word string) bool {
	end := d.pos + len(word)
	if end > len(d.data) || string(d.data[d.pos:end]) != word { // the comparison does not allocate
		return false
	}
	d.pos = end
	return true
}

// open reads the bracket at d.pos and reports whether close follows it:
// an empty container.
func (d *decoder) open(close byte) bool {
	d.pos++
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == close {
		d.pos++
		return true
	}
	return false
}

// next reads what follows a member or element: a comma (more, true), the
// closing bracket (no more, true) or anything else (false).
func (d *decoder) next(close byte) (more, ok bool) {
	d.space()
	if d.pos >= len(d.data) {
		return false, false
	}
	switch d.data[d.pos] {
	case ',':
		d.pos++
		d.space()
		return true, true
	case close:
		d.pos++
		return false, true
	}
	return false, false
}

func (d *decoder) object(depth int) (any, bool) {
	m := make(map[string]any)
	if d.open('}') {
		return m, true
	}
	for {
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, false
		}
		key, ok := d.string()
		if !ok {
			return nil, false
		}
		k := key.(string)
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, false
		}
		d.pos++
		d.space()
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		if _, seen := m[k]; seen && d.unique {
			return nil, false
		}
		m[k] = v
		if more, ok := d.next('}'); !more {
			return m, ok
		}
	}
}

// array reads a list's elements onto d.stack, above those of the lists it
// is inside, then copies them into a list of their number: one allocation
// per list rather than one for each time a growing list doubles.
func (d *decoder) array(depth int) (any, bool) {
	if d.open(']') {
		return make([]any, 0), true
	}
	base := len(d.stack)
	defer func() { d.stack = d.stack[:base] }()
	for {
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		d.stack = append(d.stack, v)
		if more, ok := d.next(']'); !more {
			if !ok {
				return nil, false
			}
			return append(make([]any, 0, len(d.stack)-base), d.stack[base:]...), true
		}
	}
}

// string reads a quoted string as encoding/json unquotes it: escapes
// resolved, and each byte of invalid UTF-8 and each unpaired surrogate
// replaced by U+FFFD. The string comes in an interface value, the same one
// for the same short string.
func (d *decoder) string() (any, bool) {
	start := d.pos + 1
	for i := start; i < len(d.data); {
		switch c := d.data[i]; {
		case c == '"':
			d.pos = i + 1
			return d.intern(d.data[start:i]), true
		case c == '\\':
			return d.escaped(start, i)
		case c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(d.data[i:])
			if r == utf8.RuneError && size == 1 {
				return d.escaped(start, i)
			}
			i += size
		}
	}
	return "", false
}

// intern returns b as a string in an interface value, the same one for
// the same short bytes.
func (d *decoder) intern(b []byte) any {
	if len(b) > maxShort {
		return string(b)
	}
	if v, ok := d.short[string(b)]; ok { // the conversion does not allocate
		return v
	}
	s := string(b)
	var v any = s
	switch {
	case d.short == nil:
		d.short = map[string]any{s: v}
	case len(d.short) < maxShortKept: // the first ones include the keys; later ones are mostly one-offs
		d.short[s] = v
	}
	return v
}

// escaped finishes a string whose plain prefix is data[start:i].
func (d *decoder) escaped(start, i int) (string, bool) {
	b := make([]byte, 0, i-start+32)
	b = append(b, d.data[start:i]...)
	for i < len(d.data) {
		switch c := d.data[i]; {
		case c == '"':
			d.pos = i + 1
			return string(b), true
		case c < ' ':
			return "", false
		case c == '\\':
			if i+1 >= len(d.data) {
				return "", false
			}
			i += 2
			switch e := d.data[i-1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := hex4(d.data[i:])
				if r < 0 {
					return "", false
				}
				i += 4
				if utf16.IsSurrogate(r) {
					// A valid pair is one rune; anything else is U+FFFD, and
					// what follows is read on its own.
					if i+1 < len(d.data) && d.data[i] == '\\' && d.data[i+1] == 'u' {
						if r1 := hex4(d.data[i+2:]); r1 >= 0 {
							if dec := utf16.DecodeRune(r, r1); dec != unicode.ReplacementChar {
								b = utf8.AppendRune(b, dec)
								i += 6
								continue
							}
						}
					}
					r = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, r)
			default:
				return "", false
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(d.data[i:])
			b = utf8.AppendRune(b, r) // invalid UTF-8 becomes U+FFFD
			i += size
		}
	}
	return "", false
}

// hex4 reads four hex digits, or returns -1.
func hex4(s []byte) rune {
	if len(s) < 4 {
		return -1
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// number reads a JSON number as a float64.
func (d *decoder) number() (any, bool) {
	start := d.pos
	i := start
	if d.data[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(d.data) && '0' <= d.data[i] && d.data[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch n := digits(); {
	case n == 0:
		return nil, false
	case n > 1 && d.data[i-n] == '0':
		return nil, false // a leading zero
	}
	if i < len(d.data) && d.data[i] == '.' {
		i++
		if digits() == 0 {
			return nil, false
		}
	}
	if i < len(d.data) && (d.data[i] == 'e' || d.data[i] == 'E') {
		i++
		if i < len(d.data) && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		if digits() == 0 {
			return nil, false
		}
	}
	d.pos = i
	text := d.data[start:i]
	if f, ok := exactFloat(text); ok {
		return f, true
	}
	// The string shares text's bytes, which stay as they are: ParseFloat
	// keeps it only in its error, which is dropped.
	f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(text), len(text)), 64)
	return f, err == nil
}

// pow10 are the powers of ten that a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// exactFloat reads a well-formed JSON number of at most 15 significant
// digits and a power of ten within ±22, most numbers of a payload. Its
// digits and the power are then float64s exactly, and one multiplication
// or division, which IEEE 754 rounds correctly, gives what
// strconv.ParseFloat gives (strconv's own exact path). False for any other
// number.
func exactFloat(text []byte) (float64, bool) {
	neg := text[0] == '-'
	if neg {
		text = text[1:]
	}
	var mant uint64
	sig, exp, i := 0, 0, 0
	digit := func() {
		if mant != 0 || text[i] != '0' { // leading zeros are not significant
			sig++
		}
		mant = mant*10 + uint64(text[i]-'0') // wraps only past 19 digits, when sig > 15 refuses it
	}
	for ; i < len(text) && text[i] != '.' && text[i] != 'e' && text[i] != 'E'; i++ {
		digit()
	}
	if i < len(text) && text[i] == '.' {
		for i++; i < len(text) && text[i] != 'e' && text[i] != 'E'; i++ {
			digit()
			exp--
		}
	}
	if i < len(text) { // e or E, an optional sign, digits
		i++
		eneg := text[i] == '-'
		if text[i] == '-' || text[i] == '+' {
			i++
		}
		e := 0
		for ; i < len(text); i++ {
			if e = e*10 + int(text[i]-'0'); e > 100 {
				return 0, false
			}
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if sig > 15 || exp < -22 || exp > 22 {
		return 0, false
	}
	f := float64(mant)
	if exp < 0 {
		f /= pow10[-exp]
	} else {
		f *= pow10[exp]
	}
	if neg {
		f = -f
	}
	return f, true
}

// Marshal returns what json.Marshal(v) returns. It encodes into a pooled
// buffer and returns a copy of the exact size, as encoding/json does, so a
// large value costs one allocation of its size rather than every step of
// a growing slice.
func Marshal(v any) ([]byte, error) {
	buf := buffers.Get().(*[]byte)
	defer buffers.Put(buf)
	b, err := Append((*buf)[:0], v)
	if err != nil {
		return nil, err
	}
	if cap(b) <= maxPooled {
		*buf = b
	}
	return bytes.Clone(b), nil
}

// buffers are Marshal's; one over maxPooled bytes is not kept.
var buffers = sync.Pool{New: func() any { return new([]byte) }}

const maxPooled = 4 << 20

// Append appends what json.Marshal(v) returns to dst; on an error it
// returns dst unchanged and encoding/json's error.
func Append(dst []byte, v any) ([]byte, error) {
	if b, ok := appendValue(dst, v, 0); ok {
		return b, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// appendValue encodes v; false means encoding/json must.
func appendValue(b []byte, v any, depth int) ([]byte, bool) {
	if depth > maxDepth {
		return b, false
	}
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return appendString(b, v), true
	case float64:
		return appendFloat(b, v)
	case bool:
		return strconv.AppendBool(b, v), true
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case []any:
		return appendList(b, v, depth)
	case []map[string]any:
		return appendList(b, v, depth)
	case map[string]any:
		if v == nil {
			return append(b, "null"...), true
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendString(b, k), ':')
			var ok bool
			if b, ok = appendValue(b, v[k], depth+1); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

// appendList encodes a list, null when nil.
func appendList[E any](b []byte, list []E, depth int) ([]byte, bool) {
	if list == nil {
		return append(b, "null"...), true
	}
	b = append(b, '[')
	for i, e := range list {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = appendValue(b, e, depth+1); !ok {
			return b, false
		}
	}
	return append(b, ']'), true
}

// appendFloat formats f as encoding/json does: like ES6, %f in the usual
// range and %e with an unpadded exponent outside it.
func appendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1] // e-09 is written e-9
			b = b[:n-1]
		}
	}
	return b, true
}

const hexDigits = "0123456789abcdef"

// appendString quotes s as encoding/json does with HTML escaping on:
// <, > and & as \u003c, \u003e and \u0026, U+2028 and U+2029 escaped, and
// each byte of invalid UTF-8 as \ufffd.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= ' ' && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
