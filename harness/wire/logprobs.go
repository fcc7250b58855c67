package wire

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agentreplay/testbed/harness/tokens"
)

// The token log probabilities an answer carries when the request asks for
// them (Chat Completions' logprobs, the Responses API's include of
// message.output_text.logprobs, Gemini's responseLogprobs). The stand-in
// decides with certainty: each token of its text has log probability 0
// (probability 1), and when alternatives are asked (top_logprobs) it is
// the only one it names, which OpenAI's reference allows ("there may be
// fewer than the number of requested top_logprobs returned"). The text is
// cut into tokens with o200k_base, the encoding the stand-in counts its
// output tokens with.

// maxTopLogprobs is the most alternatives a request may ask for a token.
const maxTopLogprobs = 20

// o200k cuts answers into tokens; the encoding is built once per process
// and shared with every other Counter.
var o200k = sync.OnceValues(func() (*tokens.Counter, error) { return tokens.New(tokens.EncodingO200K) })

// answerTokens cuts text into its tokens.
func answerTokens(text string) ([]string, error) {
	c, err := o200k()
	if err != nil {
		return nil, fmt.Errorf("cut the answer into tokens: %w", err)
	}
	return c.Tokens(text), nil
}

// streamText cuts text as a stream sends it: in pieces of about
// PieceBytes, or with log probabilities asked (top >= 0) a token a delta,
// with each delta's tokens (tokenDeltas).
func streamText(text string, top int) (texts []string, groups [][]string, err error) {
	if top < 0 {
		return cut(text, true), nil, nil
	}
	toks, err := answerTokens(text)
	if err != nil {
		return nil, nil, err
	}
	texts, groups = tokenDeltas(toks)
	return texts, groups, nil
}

// tokenDeltas groups toks as a stream sends them: a token a delta, but a
// token that ends inside a character waits for the tokens that end it, so
// that every delta is whole text. It returns each delta's text and tokens.
func tokenDeltas(toks []string) (texts []string, groups [][]string) {
	var text strings.Builder
	var group []string
	for _, t := range toks {
		text.WriteString(t)
		group = append(group, t)
		if utf8.ValidString(text.String()) {
			texts, groups = append(texts, text.String()), append(groups, group)
			text.Reset()
			group = nil
		}
	}
	if len(group) > 0 { // text that was not valid UTF-8 to begin with
		texts, groups = append(texts, text.String()), append(groups, group)
	}
	return texts, groups
}

// tokenLogprobs are toks as OpenAI lists them, each with top alternatives
// asked (0 for none).
func tokenLogprobs(toks []string, top int) []any {
	out := make([]any, len(toks))
	for i, t := range toks {
		entry := tokenEntry(t)
		alts := []any{}
		if top > 0 {
			alts = append(alts, tokenEntry(t))
		}
		entry["top_logprobs"] = alts
		out[i] = entry
	}
	return out
}

// tokenEntry is token t with log probability 0 and its bytes. A token that
// ends inside a character is named as OpenAI names it, "bytes:" and its
// bytes escaped.
func tokenEntry(t string) map[string]any {
	bs := make([]int, len(t))
	for i := range len(t) {
		bs[i] = int(t[i])
	}
	name := t
	if !utf8.ValidString(t) {
		name = "bytes:" + byteNames(t, `\x%02x`)
	}
	return map[string]any{"token": name, "logprob": 0.0, "bytes": bs}
}

// byteNames names each byte of t with format.
func byteNames(t, format string) string {
	var b strings.Builder
	for i := range len(t) {
		fmt.Fprintf(&b, format, t[i])
	}
	return b.String()
}

// geminiLogprobs gives cand, a Gemini candidate, the log probabilities of
// toks as Gemini does: avgLogprobs, and logprobsResult with each chosen
// token (its text, or for a token that ends inside a character its bytes
// as SentencePiece names its byte tokens, <0xF0>; its id in the stand-in's
// encoding; its log probability) and, when alternatives are asked (top >
// 0), the top candidates of each step, the chosen token the only one.
func geminiLogprobs(cand map[string]any, toks []string, top int) {
	c, _ := o200k()
	chosen := make([]any, len(toks))
	steps := make([]any, len(toks))
	for i, t := range toks {
		id, _ := c.ID(t)
		name := t
		if !utf8.ValidString(t) {
			name = byteNames(t, "<0x%02X>")
		}
		entry := map[string]any{"token": name, "tokenId": id, "logProbability": 0.0}
		chosen[i] = entry
		steps[i] = map[string]any{"candidates": []any{entry}}
	}
	result := map[string]any{"chosenCandidates": chosen}
	if top > 0 {
		result["topCandidates"] = steps
	}
	cand["avgLogprobs"], cand["logprobsResult"] = 0.0, result
}
