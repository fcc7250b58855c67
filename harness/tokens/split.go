package tokens

import (
	"unicode"
	"unicode/utf8"
)

// The hand-written matchers of the encodings' split patterns (splitO200K,
// splitCL100K), which cut a text into the pieces bpe merges, and the
// characters and classes they read (runes).

// Character classes of the split patterns, as dlclark/regexp2 (the engine
// tiktoken-go uses) defines them: \s is unicode.IsSpace, \p{X} is Go's
// unicode table X.
const (
	clsL     = 1 << iota // \p{L}
	clsN                 // \p{N}
	clsSpace             // \s
	clsUpper             // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	clsLower             // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
)

// asciiClass caches class for the first 128 code points.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		t[c] = classOf(rune(c))
	}
	return t
}()

// classOf finds c's general category, most frequent first; categories are
// disjoint, so the first table that has c decides (\s is separate: white
// space is in no letter, mark or number category).
func classOf(c rune) uint8 {
	switch {
	case unicode.Is(unicode.Lo, c), unicode.Is(unicode.Lm, c):
		return clsL | clsUpper | clsLower
	case unicode.Is(unicode.Ll, c):
		return clsL | clsLower
	case unicode.Is(unicode.Lu, c), unicode.Is(unicode.Lt, c):
		return clsL | clsUpper
	case unicode.Is(unicode.M, c):
		return clsUpper | clsLower
	case unicode.Is(unicode.N, c):
		return clsN
	case unicode.IsSpace(c):
		return clsSpace
	}
	return 0
}

// runes is a text being split: its characters and their classes.
type runes struct {
	r    []rune
	k    []uint8 // the class bits, and the UTF-8 length less one from bit extraShift
	wide []int32 // the indexes of the characters of more than one byte

	short shortCache // kept with the buffers, which one goroutine uses at a time
}

// extraShift is where a class byte keeps its character's UTF-8 length less
// one (0 to 3); count adds those of the wide characters before a piece's
// end to find its bytes. The class bits are below it.
const extraShift = 5

// newRunes fills buf with the characters of text, which is valid UTF-8, and
// their classes and lengths.
func newRunes(text string, buf *runes) {
	if cap(buf.r) < len(text) { // a text has at most as many characters as bytes
		buf.r, buf.k = make([]rune, len(text)), make([]uint8, len(text))
	}
	r, k, wide := buf.r[:len(text)], buf.k[:len(text)], buf.wide[:0]
	n := 0
	for i := 0; i < len(text); n++ {
		if c := text[i]; c < utf8.RuneSelf {
			r[n], k[n] = rune(c), asciiClass[c]
			i++
			continue
		}
		c, size := utf8.DecodeRuneInString(text[i:])
		r[n], k[n] = c, classOf(c)|uint8(size-1)<<extraShift
		wide = append(wide, int32(n))
		i += size
	}
	buf.r, buf.k, buf.wide = r[:n], k[:n], wide
}

func (t *runes) is(i int, cls uint8) bool { return t.k[i]&cls != 0 }

// prefix is [^\r\n\p{L}\p{N}], the optional character before a word.
func (t *runes) prefix(i int) bool {
	return t.r[i] != '\r' && t.r[i] != '\n' && t.k[i]&(clsL|clsN) == 0
}

// punct is [^\s\p{L}\p{N}].
func (t *runes) punct(i int) bool { return t.k[i]&(clsSpace|clsL|clsN) == 0 }

// run returns the end of the run of characters of class cls from i.
func (t *runes) run(i int, cls uint8) int {
	for i < len(t.r) && t.k[i]&cls != 0 {
		i++
	}
	return i
}

// splitO200K returns the end of the piece that starts at character i under
// o200k_base's pattern: the first of these alternatives that matches, as a
// backtracking engine takes them:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	\p{N}{1,3}
//	 ?[^\s\p{L}\p{N}]+[\r\n/]*
//	\s*[\r\n]+
//	\s+(?!\S)
//	\s+
func splitO200K(t *runes, i int) int {
	// Both word alternatives start with a letter or mark, at i or after the
	// optional prefix; most pieces of JSON and numbers start with neither,
	// and skip the four attempts.
	const letter = clsUpper | clsLower
	if t.k[i]&letter != 0 || (i+1 < len(t.r) && t.k[i+1]&letter != 0 && t.prefix(i)) {
		for _, word := range []func(*runes, int) int{upperLower, upperThenLower} {
			if t.prefix(i) {
				if e := word(t, i+1); e > 0 {
					return contraction(t, e)
				}
			}
			if e := word(t, i); e > 0 {
				return contraction(t, e)
			}
		}
	}
	if e := digits(t, i); e > 0 {
		return e
	}
	if e := punct(t, i, true); e > 0 {
		return e
	}
	return spaces(t, i)
}

// splitCL100K is splitO200K for cl100k_base's pattern:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)
//	[^\r\n\p{L}\p{N}]?\p{L}+
//	\p{N}{1,3}
//	 ?[^\s\p{L}\p{N}]+[\r\n]*
//	\s*[\r\n]+
//	\s+(?!\S)
//	\s+
func splitCL100K(t *runes, i int) int {
	if e := contraction(t, i); e > i {
		return e
	}
	if t.prefix(i) && i+1 < len(t.r) && t.is(i+1, clsL) {
		return t.run(i+1, clsL)
	}
	if t.is(i, clsL) {
		return t.run(i, clsL)
	}
	if e := digits(t, i); e > 0 {
		return e
	}
	if e := punct(t, i, false); e > 0 {
		return e
	}
	return spaces(t, i)
}

// upperLower matches [upper]*[lower]+ at j, backtracking the greedy
// [upper]* one character at a time until [lower]+ matches; it returns the
// end, or -1.
func upperLower(t *runes, j int) int {
	for k := t.run(j, clsUpper); k >= j; k-- {
		if k < len(t.r) && t.is(k, clsLower) {
			return t.run(k, clsLower)
		}
	}
	return -1
}

// upperThenLower matches [upper]+[lower]* at j; it returns the end, or -1.
func upperThenLower(t *runes, j int) int {
	u := t.run(j, clsUpper)
	if u == j {
		return -1
	}
	return t.run(u, clsLower)
}

// contraction matches (?i:'s|'t|'re|'ve|'m|'ll|'d)? at e and returns its end
// (e when it does not match). Case folding is regexp2's: the input character
// lowered with unicode.ToLower.
func contraction(t *runes, e int) int {
	r := t.r
	if e+1 >= len(r) || r[e] != '\'' {
		return e
	}
	switch a := unicode.ToLower(r[e+1]); a {
	case 's', 't', 'm', 'd':
		return e + 2
	case 'r', 'v', 'l':
		if e+2 < len(r) {
			b := unicode.ToLower(r[e+2])
			if (a == 'l' && b == 'l') || (a != 'l' && b == 'e') {
				return e + 3
			}
		}
	}
	return e
}

// digits matches \p{N}{1,3}; it returns the end, or -1.
func digits(t *runes, i int) int {
	e := i
	for e < len(t.r) && e < i+3 && t.is(e, clsN) {
		e++
	}
	if e == i {
		return -1
	}
	return e
}

// punct matches " ?[^\s\p{L}\p{N}]+" then [\r\n/]* (o200k_base, slash set)
// or [\r\n]* (cl100k_base); it returns the end, or -1.
func punct(t *runes, i int, slash bool) int {
	j := i
	switch {
	case t.r[i] == ' ' && i+1 < len(t.r) && t.punct(i+1):
		j = i + 1
	case t.punct(i):
	default:
		return -1
	}
	e := j
	for e < len(t.r) && t.punct(e) {
		e++
	}
	for e < len(t.r) && (t.r[e] == '\r' || t.r[e] == '\n' || (slash && t.r[e] == '/')) {
		e++
	}
	return e
}

// spaces matches the three white-space alternatives at a white-space
// character i: \s*[\r\n]+ (up to and including the run's last line
// break), else \s+(?!\S) (the run, less its last character when a
// non-space follows), else \s+.
func spaces(t *runes, i int) int {
	e, nl := i, -1
	for e < len(t.r) && t.is(e, clsSpace) {
		if t.r[e] == '\r' || t.r[e] == '\n' {
			nl = e
		}
		e++
	}
	switch {
	case nl >= 0:
		return nl + 1
	case e == i:
		return i + 1 // not white space: unreachable, as every other character starts a piece above
	case e == len(t.r) || e-i < 2:
		return e
	}
	return e - 1
}
