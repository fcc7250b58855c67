package tokens

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// bpe counts the tokens of text in one encoding without building the token
// ids. It gives exactly tiktoken-go's EncodeOrdinary length (a spec checks it
// on the committed corpus and on generated text), about ten times faster:
// tiktoken-go splits text into pieces with a backtracking regular expression
// (github.com/dlclark/regexp2), which costs about 90% of its time; bpe splits
// with a hand-written matcher of the same pattern (splitO200K, splitCL100K),
// then merges each piece with the same byte-pair algorithm and ranks, read
// from the same embedded BPE file.
type bpe struct {
	ranks map[string]int
	split func(t *runes, i int) int
	// pairs has bit a<<8|b set when the two bytes ab are one token. Every
	// byte is a token, so a piece of two bytes is 1 token or 2; looking
	// that up here is much faster than in ranks.
	pairs [1 << 16 / 64]uint64

	mu     sync.RWMutex
	merged map[string]int // token counts of pieces that are not one token
}

// bpeFiles are the embedded BPE files of tiktoken-go-loader, by encoding.
var bpeFiles = map[string]string{
	EncodingO200K:  "o200k_base.tiktoken",
	EncodingCL100K: "cl100k_base.tiktoken",
}

// newBPE reads an encoding's ranks from its embedded BPE file: one token per
// line, base64 then the rank. The file is read in parts, and the ranks of one
// part go into the map while the next part is decoded, on another core: the
// two halves of the work take about as long, so the encoding is ready in
// little more than half the time. The tokens of a part are decoded into one
// buffer and the map's keys are slices of one string made from it: building
// the 200,000 ranks of o200k_base costs a few allocations, not one per token.
func newBPE(encoding string) (*bpe, error) {
	data, err := assets.Assets.ReadFile(bpeFiles[encoding])
	if err != nil {
		return nil, err
	}
	n := bytes.Count(data, []byte("\n")) + 1
	parts := splitLines(data, bpeParts)
	decoded := make(chan bpePart, len(parts))
	go func() {
		for _, p := range parts {
			d := decodePart(p)
			decoded <- d
			if d.err != nil {
				return
			}
		}
	}()
	b := &bpe{ranks: make(map[string]int, n), split: splitO200K, merged: map[string]int{}}
	if encoding == EncodingCL100K {
		b.split = splitCL100K
	}
	for range parts {
		d := <-decoded
		if d.err != nil {
			return nil, fmt.Errorf("%s: %w", bpeFiles[encoding], d.err)
		}
		start := 0
		for i, end := range d.ends {
			tok := d.keys[start:end]
			b.ranks[tok] = d.ranks[i]
			if len(tok) == 2 {
				i := int(tok[0])<<8 | int(tok[1])
				b.pairs[i/64] |= 1 << (i % 64)
			}
			start = end
		}
	}
	return b, nil
}

// bpeParts is how many parts newBPE reads a BPE file in.
const bpeParts = 8

// bpePart is one part of a BPE file, decoded: its tokens one after another
// in keys, where each ends, and their ranks.
type bpePart struct {
	keys  string
	ends  []int
	ranks []int
	err   error
}

// decodePart decodes the lines of one part of a BPE file.
func decodePart(data []byte) bpePart {
	n := bytes.Count(data, []byte("\n")) + 1
	buf := make([]byte, 0, len(data)*3/4)
	d := bpePart{ends: make([]int, 0, n), ranks: make([]int, 0, n)}
	for line := range bytes.Lines(data) {
		line = bytes.TrimRight(line, "\n")
		if len(line) == 0 {
			continue
		}
		tok, rank, ok := bytes.Cut(line, []byte(" "))
		if !ok {
			d.err = fmt.Errorf("bad line %q", line)
			return d
		}
		var err error
		if buf, err = base64.StdEncoding.AppendDecode(buf, tok); err != nil {
			d.err = err
			return d
		}
		r, err := strconv.Atoi(string(rank))
		if err != nil {
			d.err = err
			return d
		}
		d.ends, d.ranks = append(d.ends, len(buf)), append(d.ranks, r)
	}
	d.keys = string(buf)
	return d
}

// splitLines cuts data into about n parts of whole lines.
func splitLines(data []byte, n int) [][]byte {
	var parts [][]byte
	for len(data) > 0 {
		cut := len(data) // the last part takes the rest
		if left := n - len(parts); left > 1 {
			// An even share of what is left, to the end of its line.
			share := len(data) / left
			if i := bytes.IndexByte(data[share:], '\n'); i >= 0 {
				cut = share + i + 1
			}
		}
		parts, data = append(parts, data[:cut]), data[cut:]
	}
	return parts
}

// count returns the number of tokens of text. Text that is not valid UTF-8
// is read as tiktoken-go reads it: each invalid byte becomes U+FFFD.
func (b *bpe) count(text string) int {
	w := b.walk(text)
	defer w.done()
	// In a long text the same pieces come back (JSON keys, common words):
	// a map of this text's pieces stays in the processor's cache where the
	// encoding's ranks do not, and looking a piece up there is faster.
	var seen map[string]int
	if len(w.text) >= seenMin {
		seen = make(map[string]int, 256)
	}
	n := 0
	for p := w.next(); p != ""; p = w.next() {
		switch pair := int(p[0])<<8 | int(p[len(p)-1]); {
		case len(p) == 1:
			n++
		case len(p) == 2:
			n += 2 - int(b.pairs[pair/64]>>(pair%64)&1)
		case len(p) <= shortMax:
			n += w.t.short.count(b, p)
		case seen == nil:
			n += b.piece(p)
		default:
			k, ok := seen[p]
			if !ok {
				k = b.piece(p)
				seen[p] = k
			}
			n += k
		}
	}
	return n
}

// tokens returns text's tokens in order, read as count reads it: joined,
// they are text (with U+FFFD for each byte that is not valid UTF-8).
func (b *bpe) tokens(text string) []string {
	w := b.walk(text)
	defer w.done()
	var out []string
	for p := w.next(); p != ""; p = w.next() {
		for p != "" {
			cut := min(len(p), maxPiece)
			for cut < len(p) && !utf8.RuneStart(p[cut]) {
				cut--
			}
			if _, ok := b.ranks[p[:cut]]; ok || cut <= 1 {
				out = append(out, p[:cut])
			} else {
				parts := b.merge(p[:cut])
				for i := range len(parts) - 1 {
					out = append(out, p[parts[i].start:parts[i+1].start])
				}
			}
			p = p[cut:]
		}
	}
	return out
}

// walker hands out the pieces of a text as the encoding's pattern splits
// it, one at a time.
type walker struct {
	b    *bpe
	t    *runes
	text string
	// t.r[i:] are the characters not handed out, text[at:] their bytes;
	// t.wide[:w] are the wide characters before i, extra their bytes
	// beyond one each.
	i, at, w, extra int
}

// walk starts walking text's pieces, with buffers from runesPool; done
// gives them back.
func (b *bpe) walk(text string) walker {
	if !utf8.ValidString(text) {
		text = string([]rune(text))
	}
	t := runesPool.Get().(*runes)
	newRunes(text, t)
	if t.short.owner != b {
		t.short = shortCache{owner: b}
	}
	return walker{b: b, t: t, text: text}
}

// next is the next piece, "" after the last (split never makes an empty
// piece).
func (w *walker) next() string {
	if w.i >= len(w.t.r) {
		return ""
	}
	j := w.b.split(w.t, w.i)
	for ; w.w < len(w.t.wide) && int(w.t.wide[w.w]) < j; w.w++ {
		w.extra += int(w.t.k[w.t.wide[w.w]] >> extraShift)
	}
	p := w.text[w.at : j+w.extra]
	w.at, w.i = j+w.extra, j
	return p
}

// done gives the walker's buffers back to runesPool.
func (w *walker) done() {
	if cap(w.t.r) <= maxPooled {
		runesPool.Put(w.t)
	}
}

// shortMax is the length up to which a piece's count is kept in a
// shortCache.
const shortMax = 7

// shortCache remembers the token counts of pieces of 3 to shortMax bytes,
// most of the pieces of JSON and prose, in a table indexed by a hash of
// their bytes, where a later piece may take a slot over: looking one up is
// a multiplication and a comparison, much faster than a map. The counts are
// owner's, and stay valid from one text to the next.
type shortCache struct {
	owner  *bpe
	keys   [1 << shortBits]uint64 // the piece's bytes, and its length in the top byte; 0 is empty
	counts [1 << shortBits]uint8
}

const shortBits = 12

func (c *shortCache) count(b *bpe, p string) int {
	k := uint64(len(p)) << 56
	for i := 0; i < len(p); i++ {
		k |= uint64(p[i]) << (8 * i)
	}
	slot := (k * 0x9E3779B97F4A7C15) >> (64 - shortBits)
	if c.keys[slot] == k {
		return int(c.counts[slot])
	}
	n := b.piece(p) // at most len(p), so it fits a byte
	c.keys[slot], c.counts[slot] = k, uint8(n)
	return n
}

// seenMin is the length from which count remembers the pieces of a text.
const seenMin = 4096

// runesPool keeps the buffers of count, which grow to the longest text
// up to maxPooled characters; a longer text's buffers are left to the
// collector rather than kept, at five bytes a character, for the rest of
// the run.
var runesPool = sync.Pool{New: func() any { return new(runes) }}

// maxPooled is the most characters of the buffers runesPool keeps.
const maxPooled = 1 << 20

// maxPiece bounds the pieces merged whole. The byte-pair merge is
// quadratic in a piece's length, and a run of one character class is one
// piece: 100 KB of "x" took 20 s to count. Longer pieces, which words, code
// and JSON never have, are merged maxPiece bytes at a time (cut at rune
// boundaries), which may count a token more or less at each cut; everything
// else is counted exactly.
const maxPiece = 4096

// piece counts the tokens of one piece of the pattern's split.
func (b *bpe) piece(p string) int {
	if len(p) > maxPiece {
		n := 0
		for len(p) > maxPiece {
			cut := maxPiece
			for !utf8.RuneStart(p[cut]) {
				cut--
			}
			n += b.piece(p[:cut])
			p = p[cut:]
		}
		return n + b.piece(p)
	}
	if _, ok := b.ranks[p]; ok || len(p) <= 1 {
		return 1
	}
	b.mu.RLock()
	n, ok := b.merged[p]
	b.mu.RUnlock()
	if ok {
		return n
	}
	n = len(b.merge(p)) - 1
	b.mu.Lock()
	b.merged[strings.Clone(p)] = n // not a slice of the text, which it would keep alive
	b.mu.Unlock()
	return n
}

// merge is tiktoken's byte-pair merge: repeatedly join the adjacent pair
// with the lowest rank (the leftmost on ties) until no pair has a rank. It
// returns where each token of p starts, and a last part at len(p).
func (b *bpe) merge(p string) []bpeMerge {
	parts := make([]bpeMerge, len(p)+1)
	for i := range parts {
		parts[i] = bpeMerge{i, math.MaxInt}
	}
	rank := func(i, skip int) int {
		if i+skip+2 < len(parts) {
			if r, ok := b.ranks[p[parts[i].start:parts[i+skip+2].start]]; ok {
				return r
			}
		}
		return math.MaxInt
	}
	for i := 0; i < len(parts)-2; i++ {
		parts[i].rank = rank(i, 0)
	}
	for len(parts) > 1 {
		minRank, at := math.MaxInt, -1
		for i := 0; i < len(parts)-1; i++ {
			if parts[i].rank < minRank {
				minRank, at = parts[i].rank, i
			}
		}
		if at < 0 {
			break
		}
		parts[at].rank = rank(at, 1)
		if at > 0 {
			parts[at-1].rank = rank(at-1, 1)
		}
		parts = append(parts[:at+1], parts[at+2:]...)
	}
	return parts
}

// bpeMerge is one part of a piece being merged: where it starts, and the
// rank of it joined with the next.
type bpeMerge struct{ start, rank int }

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
