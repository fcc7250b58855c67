package cassette

import (
	"encoding/base64"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentreplay/testbed/harness/codings"
)

// Decoded views of a line: secrets hidden by an encoding a body can carry.
// gitleaks' own decoder (detect/codec) finds the same segments but took
// 6.5 s over the committed cassettes, against well under a second here:
// only lines that hold an escape or a long base64 run are decoded.

// maxInflated bounds what one compressed body may inflate to.
const maxInflated = 16 << 20

// minBase64 is the shortest base64 run worth decoding (a 16-byte key).
const minBase64 = 24

// maxUnescapes bounds how many times a line's escapes are decoded: a JSON
// text held in a body's string (a tool's result sent back) has its quotes
// escaped once, a text quoted inside that one twice (\\\"), and so on.
const maxUnescapes = 4

// view is a line decoded, and how, for the finding.
type view struct {
	text, how string
}

// decodedViews returns line decoded in each way that changes it: its
// escapes (JSON and YAML ones: \uXXXX, \n, \", \\, …) decoded as many
// times as they nest, and each long base64 run that decodes to text (or to
// gzip of text).
func decodedViews(line string) []view {
	var out []view
	if v := unescapeAll(line); v != line {
		how := "escapes decoded"
		if strings.Contains(line, `\u`) || strings.Contains(line, `\x`) {
			how = "unicode-escaped"
		}
		out = append(out, view{text: v, how: how})
	}
	for _, run := range base64Runs(line) {
		if v, ok := decodeBase64(run, false); ok {
			out = append(out, view{text: v, how: "base64-encoded"})
		}
	}
	return out
}

// unescapeAll decodes s's escapes as many times as they nest, up to
// maxUnescapes.
func unescapeAll(s string) string {
	for range maxUnescapes {
		if strings.IndexByte(s, '\\') < 0 {
			break
		}
		u := unescape(s)
		if u == s {
			break
		}
		s = u
	}
	return s
}

// jsonEscapes are the characters a backslash escapes as themselves or as a
// control character, in JSON and in YAML's double-quoted scalars.
var jsonEscapes = map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'n': '\n', 't': '\t', 'r': '\r', 'b': '\b', 'f': '\f'}

// unescape replaces \uXXXX (with surrogate pairs), \xXX and JSON's
// one-character escapes, once.
func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case 'u':
				if r, n := hexRune(s[i+2:], 4); n > 0 {
					if 0xD800 <= r && r < 0xDC00 && strings.HasPrefix(s[i+6:], `\u`) {
						if lo, m := hexRune(s[i+8:], 4); m > 0 && 0xDC00 <= lo && lo < 0xE000 {
							b.WriteRune((r-0xD800)<<10 + (lo - 0xDC00) + 0x10000)
							i += 12
							continue
						}
					}
					b.WriteRune(r)
					i += 6
					continue
				}
			case 'x':
				if r, n := hexRune(s[i+2:], 2); n > 0 {
					b.WriteRune(r)
					i += 4
					continue
				}
			default:
				if c, ok := jsonEscapes[s[i+1]]; ok {
					b.WriteByte(c)
					i += 2
					continue
				}
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

func hexRune(s string, n int) (rune, int) {
	if len(s) < n {
		return 0, 0
	}
	v, err := strconv.ParseUint(s[:n], 16, 32)
	if err != nil {
		return 0, 0
	}
	return rune(v), n
}

// base64Runs returns the runs of base64 characters (standard or URL
// alphabet, with padding) at least minBase64 long.
func base64Runs(line string) []string {
	var out []string
	for _, sp := range base64Spans(line) {
		out = append(out, line[sp[0]:sp[1]])
	}
	return out
}

// base64Spans returns where each base64 run of base64Runs starts and ends.
func base64Spans(line string) [][2]int {
	var out [][2]int
	start := -1
	for i := 0; i <= len(line); i++ {
		if i < len(line) && isBase64(line[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start >= minBase64 {
			out = append(out, [2]int{start, i})
		}
		start = -1
	}
	return out
}

func isBase64(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_' || c == '='
}

// decodeBase64 decodes run and returns it as text when it is text, or
// gzip or zstd of text; when body (a cassette's binary body, which a
// server may have sent brotli-encoded) also brotli of text.
func decodeBase64(run string, body bool) (string, bool) {
	trimmed := strings.TrimRight(run, "=")
	var data []byte
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if d, err := enc.DecodeString(trimmed); err == nil {
			data = d
			break
		}
	}
	if data == nil {
		return "", false
	}
	if textual(data) {
		return string(data), true
	}
	data, _ = codings.Sniff(data, maxInflated, body)
	return string(data), textual(data)
}

// textual reports whether data is mostly printable UTF-8, as text is and
// random bytes (an embedding, an image) are not.
func textual(data []byte) bool {
	if len(data) == 0 || !utf8.Valid(data) {
		return false
	}
	printable := 0
	for _, c := range data {
		if c >= 0x20 || c == '\n' || c == '\t' || c == '\r' {
			printable++
		}
	}
	return printable*10 >= len(data)*9
}

// binaryBody is the decoded text of a YAML !!binary block (how yaml.v3
// writes a body that is not UTF-8, such as a gzip-encoded one) and its
// line.
type binaryBody struct {
	line int
	text string
}

// binaryBodies decodes every !!binary block scalar of text: its lines of
// base64 joined, inflated when gzip, kept when text.
func binaryBodies(text string, starts []int) []binaryBody {
	if !strings.Contains(text, "!!binary") {
		return nil
	}
	line := func(n int) string {
		end := len(text)
		if n+1 < len(starts) {
			end = starts[n+1]
		}
		return strings.TrimRight(text[starts[n]:end], "\r\n")
	}
	var out []binaryBody
	for n := range starts {
		l := line(n)
		if !strings.HasSuffix(strings.TrimSpace(l), "!!binary |") && !strings.HasSuffix(strings.TrimSpace(l), "!!binary") {
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, " "))
		var b strings.Builder
		for k := n + 1; k < len(starts); k++ {
			c := line(k)
			if len(c)-len(strings.TrimLeft(c, " ")) <= indent {
				break
			}
			b.WriteString(strings.TrimSpace(c))
		}
		if v, ok := decodeBase64(b.String(), true); ok {
			out = append(out, binaryBody{line: n + 1, text: v})
		}
	}
	return out
}
