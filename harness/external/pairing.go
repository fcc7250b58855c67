package external

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentreplay/testbed/agents/llm"
)

// fetch is one upstream exchange made between a model response and the
// next model request: what the program asked (the URL and body it sent)
// and the body the upstream answered.
type fetch struct {
	url  *url.URL
	sent []byte
	body []byte
}

// asked is what f's request carries, for reading arguments in: its host and
// path, its query unescaped, and its body, lowercased.
func (f fetch) asked() string {
	q, err := url.QueryUnescape(f.url.RawQuery)
	if err != nil {
		q = f.url.RawQuery
	}
	return strings.ToLower(f.url.Host + f.url.Path + "?" + q + "\n" + string(f.sent))
}

// maxPermuted is the most calls whose pairing with as many fetches is
// searched whole; more are paired greedily.
const maxPermuted = 7

// pairFetches says which of calls each fetch answered, by what the
// exchanges show rather than by when they came: a program running its
// tools at once sends their requests in any order. A fetch is paired with
// the call whose arguments its request carries (a city in the query, an id
// in the path), and then with the call whose result (results, by call id)
// shares the most words with its body; only where neither tells two
// pairings apart does the order of arrival decide, which is the truth for a
// program running its tools one after the other. With as many fetches as
// calls each call gets one (pairs[i] is fetch i's call); otherwise
// each fetch goes to the call its evidence names, or -1 when none does.
func pairFetches(calls []*askedCall, results map[string]string, fetched []fetch) []int {
	score := make([][]evidence, len(fetched))
	for i, f := range fetched {
		score[i] = make([]evidence, len(calls))
		asked := f.asked()
		for j, a := range calls {
			score[i][j].args = argsIn(a.call.Arguments, asked)
		}
	}
	if !decided(score) {
		words := resultWords(calls, results)
		for i, f := range fetched {
			words.count(f.body, score[i])
		}
	}
	if len(fetched) != len(calls) {
		pairs := make([]int, len(fetched))
		for i := range fetched {
			pairs[i] = -1
			best := evidence{}
			for j := range calls {
				if best.less(score[i][j]) {
					pairs[i], best = j, score[i][j]
				} else if !score[i][j].less(best) {
					pairs[i] = -1 // a tie names no call
				}
			}
		}
		return pairs
	}
	if len(calls) > maxPermuted {
		return greedy(score)
	}
	return permuted(score)
}

// decided reports whether the arguments alone name a different call for
// each fetch, so that the results' words could change nothing.
func decided(score [][]evidence) bool {
	named := map[int]bool{}
	for _, row := range score {
		best, top, tie := -1, 0, false
		for j, e := range row {
			switch {
			case e.args > top:
				best, top, tie = j, e.args, false
			case e.args == top:
				tie = true
			}
		}
		if best < 0 || tie || named[best] {
			return false
		}
		named[best] = true
	}
	return true
}

// evidence is what one exchange shows of one call: the length of the
// call's argument values its request carries, then the number of its
// result's words its body holds.
type evidence struct{ args, words int }

func (e evidence) less(o evidence) bool {
	return e.args < o.args || e.args == o.args && e.words < o.words
}

func (e evidence) plus(o evidence) evidence { return evidence{e.args + o.args, e.words + o.words} }

// permuted is the one-to-one pairing of fetches with calls with the most
// evidence in all, the first in order of arrival among equals.
func permuted(score [][]evidence) []int {
	n := len(score)
	cur, best := make([]int, n), make([]int, n)
	for i := range best {
		best[i] = i
	}
	var top evidence
	for i := range n {
		top = top.plus(score[i][i])
	}
	used := make([]bool, n)
	var walk func(i int, sum evidence)
	walk = func(i int, sum evidence) {
		if i == n {
			if top.less(sum) {
				top = sum
				copy(best, cur)
			}
			return
		}
		for j := range n {
			if !used[j] {
				used[j], cur[i] = true, j
				walk(i+1, sum.plus(score[i][j]))
				used[j] = false
			}
		}
	}
	walk(0, evidence{})
	return best
}

// greedy pairs the fetches and calls with the most evidence first, the
// earlier fetch and call among equals.
func greedy(score [][]evidence) []int {
	type cell struct{ i, j int }
	cells := make([]cell, 0, len(score)*len(score))
	for i := range score {
		for j := range score[i] {
			cells = append(cells, cell{i, j})
		}
	}
	slices.SortStableFunc(cells, func(a, b cell) int {
		switch {
		case score[b.i][b.j].less(score[a.i][a.j]):
			return -1
		case score[a.i][a.j].less(score[b.i][b.j]):
			return 1
		}
		return 0
	})
	pairs := make([]int, len(score))
	for i := range pairs {
		pairs[i] = -1
	}
	taken := make([]bool, len(score))
	for _, c := range cells {
		if pairs[c.i] < 0 && !taken[c.j] {
			pairs[c.i], taken[c.j] = c.j, true
		}
	}
	return pairs
}

// argsIn is the length of the values of a call's arguments (strings and
// numbers of two characters or more, lowercased) that asked holds.
func argsIn(args json.RawMessage, asked string) int {
	var v any
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return 0
	}
	n := 0
	var walk func(v any)
	walk = func(v any) {
		var s string
		switch v := v.(type) {
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
			return
		case []any:
			for _, x := range v {
				walk(x)
			}
			return
		case string:
			s = strings.ToLower(strings.TrimSpace(v))
		case json.Number:
			s = v.String()
		}
		if len(s) >= 2 && strings.Contains(asked, s) {
			n += len(s)
		}
	}
	walk(v)
	return n
}

// words maps each word of the calls' results (letters and digits, three
// or more, lowercased) to the calls whose result has it.
type words map[string][]int

func resultWords(calls []*askedCall, results map[string]string) words {
	w := words{}
	for j, a := range calls {
		for word := range strings.FieldsFuncSeq(strings.ToLower(results[a.call.ID]), notWord) {
			if len(word) >= 3 && !slices.Contains(w[word], j) {
				w[word] = append(w[word], j)
			}
		}
	}
	return w
}

// count adds to each call's evidence the number of distinct words of its
// result that body holds, reading body once.
func (w words) count(body []byte, score []evidence) {
	if len(w) == 0 {
		return
	}
	seen := map[string]bool{}
	var buf []byte
	start := -1 // where the word being read began
	for i := 0; i <= len(body); {
		size, word := 1, false
		if i < len(body) {
			if c := body[i]; c < utf8.RuneSelf {
				word = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
			} else {
				var r rune
				r, size = utf8.DecodeRune(body[i:])
				word = !notWord(r)
			}
		}
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			if i-start >= 3 {
				buf = lower(buf[:0], body[start:i])
				if calls, ok := w[string(buf)]; ok && !seen[string(buf)] {
					seen[string(buf)] = true
					for _, j := range calls {
						score[j].words++
					}
				}
			}
			start = -1
		}
		i += size
	}
}

// lower appends word, lowercased, to buf.
func lower(buf, word []byte) []byte {
	for _, c := range word {
		if c >= utf8.RuneSelf {
			return append(buf[:0], bytes.ToLower(word)...)
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf
}

func notWord(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// hand gives the calls of the last model response the upstream bodies
// fetched since (o.mu held), as pairFetches pairs them, the results being
// those msgs carry; with one call or one fetch, order alone decides.
func (o *observer) hand(msgs []llm.Message) {
	last, fetched := o.last, o.fetched
	o.last, o.fetched = nil, nil
	for _, a := range last {
		a.fetched = len(fetched) > 0
	}
	if len(last) == 0 || len(fetched) == 0 {
		return
	}
	var pairs []int
	if len(last) > 1 && len(fetched) > 1 {
		results := map[string]string{}
		for _, m := range msgs {
			if m.Role == llm.RoleTool {
				results[m.ToolCallID] = m.Content
			}
		}
		pairs = pairFetches(last, results, fetched)
	}
	if len(fetched) == len(last) {
		for i, f := range fetched {
			j := i
			if pairs != nil {
				j = pairs[i]
			}
			last[j].raw = f.body
		}
		return
	}
	// The group's payload, each call's bodies in the calls' order, those
	// no call's evidence names last, each in order of arrival.
	order := make([]int, len(fetched))
	for i := range order {
		order[i] = i
	}
	call := func(i int) int {
		if pairs == nil || pairs[i] < 0 {
			return len(last)
		}
		return pairs[i]
	}
	slices.SortStableFunc(order, func(a, b int) int { return call(a) - call(b) })
	var raw []byte
	for _, i := range order {
		raw = append(raw, fetched[i].body...)
	}
	last[0].raw = raw
}
