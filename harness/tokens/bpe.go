package tokens

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
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
