package external

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"unicode"

	"github.com/agentreplay/testbed/agents/llm"
)

// fetch is one upstream exchange made between a model response and the
// next model request: what the program asked (its URL, unescaped, and its
// body, lowercased) and the body the upstream answered.
type fetch struct {
	asked string
	body  []byte
}

// newFetch is the fetch of a request to u with body, answered with got.
func newFetch(u *url.URL, body, got []byte) fetch {
	q, err := url.QueryUnescape(u.RawQuery)
	if err != nil {
		q = u.RawQuery
	}
	return fetch{asked: strings.ToLower(u.Host + u.Path + "?" + q + "\n" + string(body)), body: got}
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
		for j, a := range calls {
			score[i][j] = evidence{args: argsIn(a.call.Arguments, f.asked), words: sharedWords(results[a.call.ID], f.body)}
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

// sharedWords is the number of distinct words of result (letters and
// digits, three or more, lowercased) that body holds.
func sharedWords(result string, body []byte) int {
	want := map[string]bool{}
	for w := range strings.FieldsFuncSeq(strings.ToLower(result), notWord) {
		if len(w) >= 3 {
			want[w] = false
		}
	}
	if len(want) == 0 {
		return 0
	}
	n := 0
	for w := range strings.FieldsFuncSeq(strings.ToLower(string(body)), notWord) {
		if seen, ok := want[w]; ok && !seen {
			want[w] = true
			n++
		}
	}
	return n
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
