// Package tokens counts the tokens of text and of chat requests and responses
// with OpenAI's BPE encodings (o200k_base, cl100k_base), giving exactly the
// counts of github.com/pkoukk/tiktoken-go's EncodeOrdinary, about ten times
// faster: it splits text with a hand-written matcher of each encoding's
// pattern instead of a backtracking regular expression, then merges pieces
// with the same ranks (see bpe). Specs compare the two on every committed
// cassette and fixture and on generated text.
//
// It never touches the network: the BPE tables are read from the files
// embedded in github.com/pkoukk/tiktoken-go-loader. Each encoding is built at
// most once per process and shared by every Counter, and each Counter caches
// the counts of the long texts it has seen, since system prompts and tool
// schemas repeat in every call.
//
// Counts follow OpenAI's published recipe for chat messages; they estimate
// what a provider bills and are not a substitute for the usage it reports.
package tokens

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/trace"
)

// Encodings a Counter may use.
const (
	EncodingO200K  = "o200k_base"  // GPT-4o and later; the default
	EncodingCL100K = "cl100k_base" // GPT-4, GPT-3.5
)

// Overheads of OpenAI's counting recipe for chat messages.
const (
	perMessage = 3 // tokens that frame every message
	perName    = 1 // extra for a message that has a name
	perReply   = 3 // tokens that prime the assistant's reply
)

// minCached is the length below which Count does not use its cache: counting
// a short string costs less than hashing and looking it up.
const minCached = 64

// minChunk is the length from which a line of a long text is cached on its
// own (see Counter.count).
const minChunk = 4096

// shared is one encoding, built at most once per process.
type shared struct {
	once sync.Once
	bpe  *bpe
	err  error
}

// encodings is the package's only state: the table of allowed encodings, each
// built on first use and shared by all Counters from then on, since reading
// the ranks of a BPE file costs tens of milliseconds; the table's keys never
// change and each entry is written only inside its sync.Once.
var encodings = map[string]*shared{
	EncodingO200K:  {},
	EncodingCL100K: {},
}

// Counter counts tokens in one encoding. It is safe for concurrent use.
// Make one with New; the zero value is not usable.
type Counter struct {
	name     string
	bpe      *bpe
	seed     maphash.Seed
	minChunk int

	mu    sync.RWMutex
	cache map[key]int
	tools map[key]int // tool's counts (see tool), apart from the texts'
}

// key identifies a text in the cache: a 64-bit hash and the length.
type key struct {
	sum uint64
	n   int
}

// New returns a Counter for the named encoding; "" means EncodingO200K. The
// first Counter of an encoding builds it from the embedded BPE file; later ones
// share it. An unknown name is an error that lists the allowed ones.
func New(encoding string) (*Counter, error) {
	if encoding == "" {
		encoding = EncodingO200K
	}
	if err := Check(encoding); err != nil {
		return nil, err
	}
	s := encodings[encoding]
	s.once.Do(func() {
		s.bpe, s.err = newBPE(encoding)
		if s.err != nil {
			s.err = fmt.Errorf("load token encoding %s: %w", encoding, s.err)
		}
	})
	if s.err != nil {
		return nil, s.err
	}
	return &Counter{name: encoding, bpe: s.bpe, seed: maphash.MakeSeed(), minChunk: minChunk, cache: map[key]int{}, tools: map[key]int{}}, nil
}

// Check returns New's error for an unknown encoding name, without building
// anything; "" is allowed.
func Check(encoding string) error {
	if _, ok := encodings[encoding]; !ok && encoding != "" {
		return fmt.Errorf("unknown token encoding %q: use %s or %s", encoding, EncodingO200K, EncodingCL100K)
	}
	return nil
}

// Encoding returns the name of c's encoding, for reports.
func (c *Counter) Encoding() string { return c.name }

// Count returns the number of tokens in text. Special tokens such as
// <|endoftext|> count as ordinary text. Texts of 64 bytes or more are counted
// once per Counter and then served from a cache keyed by a 64-bit hash of the
// text and its length; memory grows with the number of distinct such texts.
func (c *Counter) Count(text string) int {
	if len(text) < minCached {
		return c.count(text)
	}
	return c.cached(key{maphash.String(c.seed, text), len(text)}, func() string { return text }, c.count)
}

// Tokens returns text's tokens in order, as the encoding cuts it: joined,
// they are text, and there are Count(text) of them. Text that is not
// valid UTF-8 is read as Count reads it (each invalid byte becomes U+FFFD).
// A token may end inside a character that takes several tokens.
func (c *Counter) Tokens(text string) []string { return c.bpe.tokens(text) }

// ID returns token's id in the encoding (its rank), and whether it is one
// of the encoding's tokens; every token Tokens gives is.
func (c *Counter) ID(token string) (int, bool) {
	id, ok := c.bpe.ranks[token]
	return id, ok
}

// CountBytes is Count for text held in bytes, such as a raw upstream body:
// the bytes are copied into a string only when they are not in the cache.
func (c *Counter) CountBytes(text []byte) int {
	if len(text) < minCached {
		return c.count(string(text))
	}
	return c.cached(key{maphash.Bytes(c.seed, text), len(text)}, func() string { return string(text) }, c.count)
}

// cached returns the count under k, counting text() with count on a miss.
func (c *Counter) cached(k key, text func() string, count func(string) int) int {
	c.mu.RLock()
	n, ok := c.cache[k]
	c.mu.RUnlock()
	if ok {
		return n
	}
	n = count(text())
	c.mu.Lock()
	c.cache[k] = n
	c.mu.Unlock()
	return n
}

// count counts text without looking it up. A long text is counted line by
// line, and each line of minChunk bytes or more through the cache, so that
// a long payload met again inside another text (a file injected into
// several messages) is counted once.
//
// A text is cut only after a line break followed by a character that is
// neither white space nor '/': no piece of either pattern runs across such
// a point (a word never starts with a line break, a run of punctuation
// takes the line breaks and slashes after it and stops, a run of white space
// ends at its last line break), and the split reads forwards only, so the
// count of a text is the sum of the counts of its parts.
func (c *Counter) count(text string) int {
	if len(text) < 2*c.minChunk {
		if text == "" {
			return 0
		}
		return c.bpe.count(text)
	}
	n, uncounted := 0, 0 // text[uncounted:at] is short lines not counted yet
	for at := 0; at < len(text); {
		end := lineEnd(text, at)
		if end-at >= c.minChunk {
			if uncounted < at {
				n += c.bpe.count(text[uncounted:at])
			}
			line := text[at:end]
			n += c.cached(key{maphash.String(c.seed, line), len(line)}, func() string { return line }, c.bpe.count)
			uncounted = end
		}
		at = end
	}
	if uncounted < len(text) {
		n += c.bpe.count(text[uncounted:])
	}
	return n
}

// lineEnd returns the end of the line that starts at at: the first point
// after a line break where count may cut, or the end of text.
func lineEnd(text string, at int) int {
	for {
		i := strings.IndexByte(text[at:], '\n')
		if i < 0 {
			return len(text)
		}
		at += i + 1
		if at == len(text) {
			return at
		}
		if b := text[at]; b < utf8.RuneSelf && b != '/' && asciiClass[b]&clsSpace == 0 {
			return at
		}
	}
}

// Request counts the input tokens of one chat request by part, following
// OpenAI's published recipe: each message costs 3 tokens of framing, plus 1 if
// it has a Name, and 3 more tokens prime the reply; all of those go to
// Overhead. A message's role, content and name go to its part:
//
//   - system messages to System;
//   - tool messages (tool results) to ToolResults;
//   - user messages after the last assistant message to User;
//   - everything else, such as earlier user messages, few-shot examples and
//     assistant messages with the name and arguments of their tool calls, to
//     History.
//
// Tools counts each tool as the compact JSON sent to OpenAI:
// {"type":"function","function":{"name":…,"description":…,"parameters":…}}.
func (c *Counter) Request(req llm.Request) trace.Parts {
	var p trace.Parts
	for _, t := range req.Tools {
		p.Tools += c.tool(t)
	}
	lastAssistant := -1
	for i, m := range req.Messages {
		if m.Role == llm.RoleAssistant {
			lastAssistant = i
		}
	}
	p.Overhead = perReply
	for i, m := range req.Messages {
		p.Overhead += perMessage
		n := c.Count(m.Role) + c.Count(m.Content)
		switch {
		case m.Role == llm.RoleTool:
			// A tool result goes on the wire with its call id; its Name is
			// ours, not sent.
			n += c.Count(m.ToolCallID)
		case m.Name != "":
			p.Overhead += perName
			n += c.Count(m.Name)
		}
		n += c.calls(m.ToolCalls)
		switch {
		case m.Role == llm.RoleSystem:
			p.System += n
		case m.Role == llm.RoleTool:
			p.ToolResults += n
		case m.Role == llm.RoleUser && i > lastAssistant:
			p.User += n
		default:
			p.History += n
		}
	}
	return p
}

// Output counts the tokens of a model response: its content plus, for each
// tool call, its name and arguments.
func (c *Counter) Output(m llm.Message) int {
	return c.Count(m.Content) + c.calls(m.ToolCalls)
}

func (c *Counter) calls(calls []llm.ToolCall) int {
	n := 0
	for _, tc := range calls {
		n += c.Count(tc.Name) + c.CountBytes(tc.Arguments)
	}
	return n
}

// wireTool is a tool as the Chat Completions API receives it.
type wireTool struct {
	Type     string   `json:"type"`
	Function llm.Tool `json:"function"`
}

// tool counts t as compact JSON in the wire format (see countTool), once
// per Counter for each name, description and parameters: an agent sends
// the same tools with every call.
func (c *Counter) tool(t llm.Tool) int {
	var h maphash.Hash
	h.SetSeed(c.seed)
	var n [8]byte
	for _, part := range []string{t.Name, t.Description} {
		binary.LittleEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.WriteString(part)
	}
	h.Write(t.Parameters)
	k := key{h.Sum64(), len(t.Name) + len(t.Description) + len(t.Parameters)}
	c.mu.RLock()
	count, ok := c.tools[k]
	c.mu.RUnlock()
	if ok {
		return count
	}
	count = c.countTool(t)
	c.mu.Lock()
	c.tools[k] = count
	c.mu.Unlock()
	return count
}

// countTool counts t as compact JSON in the wire format, its parameters'
// keys in the sorted order the OpenAI SDK sends them in (it sends a decoded
// map), so that a tool counts the same read from the agent or from the wire.
// Parameters that are not valid JSON cannot be marshalled; they are counted
// as they are, beside the name and description.
func (c *Counter) countTool(t llm.Tool) int {
	dec := json.NewDecoder(bytes.NewReader(t.Parameters))
	dec.UseNumber()
	var schema any
	if dec.Decode(&schema) == nil {
		if sorted, err := marshalPlain(schema); err == nil {
			t.Parameters = sorted
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(wireTool{Type: "function", Function: t}); err != nil {
		return c.Count(t.Name) + c.Count(t.Description) + c.CountBytes(t.Parameters)
	}
	return c.CountBytes(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// marshalPlain is json.Marshal without HTML escaping (maps with sorted keys).
func marshalPlain(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
