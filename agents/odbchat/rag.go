package odbchat

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"path"
	"sort"
	"strings"
	"unicode"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
)

// Citation names a knowledge-base passage an answer used.
type Citation struct {
	Title   string `json:"title"`
	Source  string `json:"source"`
	ChunkID string `json:"chunk_id"`
}

// passage is one chunk of a knowledge-base document.
type passage struct {
	id, title, source, text string
	doc                     int  // index into knowledgeBase.docs
	code                    bool // a fenced code block
	terms                   map[string]int
	length                  int
}

// knowledgeBase ranks passages with BM25 over words and, for Chinese, Han
// character bigrams. It is small enough to hold in memory; no embedding
// service is needed, so retrieval makes no HTTP call.
type knowledgeBase struct {
	docs     []string // whole documents, for the raw side of trimming
	passages []passage
	df       map[string]int
	avgLen   float64
}

// loadKnowledgeBase reads every .md file in dir: a front matter block with
// title and source, then paragraphs; each paragraph is a passage. The index is
// built once per run (agents.Cache) for each set of documents and never changed after.
func loadKnowledgeBase(cache *agents.Cache, fsys fs.FS, dir string) (*knowledgeBase, error) {
	files, err := fs.Glob(fsys, path.Join(dir, "*.md"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("odbchat: no knowledge-base documents in %s/", dir)
	}
	return agents.LoadOnce(cache, fsys, "odbchat kb", files, func(contents [][]byte) (*knowledgeBase, error) {
		return buildKnowledgeBase(files, contents)
	})
}

// buildKnowledgeBase indexes the documents files, whose contents are given.
func buildKnowledgeBase(files []string, contents [][]byte) (*knowledgeBase, error) {
	kb := &knowledgeBase{df: map[string]int{}}
	total := 0
	for fi, f := range files {
		b := contents[fi]
		title, source, body := frontMatter(string(b))
		if title == "" {
			return nil, fmt.Errorf("odbchat: %s: front matter has no title", f)
		}
		kb.docs = append(kb.docs, string(b))
		for i, para := range paragraphs(body) {
			// The title's words count in every passage of the document.
			terms := append(tokenize(title), tokenize(para)...)
			p := passage{id: fmt.Sprintf("%s#%d", strings.TrimSuffix(path.Base(f), ".md"), i), title: title, source: source,
				text: para, doc: len(kb.docs) - 1, code: strings.HasPrefix(para, "```"), terms: map[string]int{}}
			for _, t := range terms {
				p.terms[t]++
			}
			p.length = len(terms)
			total += p.length
			for t := range p.terms {
				kb.df[t]++
			}
			kb.passages = append(kb.passages, p)
		}
	}
	kb.avgLen = float64(total) / float64(len(kb.passages))
	return kb, nil
}

func frontMatter(doc string) (title, source, body string) {
	if !strings.HasPrefix(doc, "---\n") {
		return "", "", doc
	}
	end := strings.Index(doc[4:], "\n---")
	if end < 0 {
		return "", "", doc
	}
	for _, line := range strings.Split(doc[4:4+end], "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		switch strings.TrimSpace(k) {
		case "title":
			title = v
		case "source":
			source = v
		}
	}
	return title, source, strings.TrimPrefix(doc[4+end+4:], "\n")
}

// tokenize lowercases words of letters and digits, and splits runs of Han
// characters into overlapping bigrams.
func tokenize(s string) []string {
	var out []string
	var word []rune
	var han []rune
	flushWord := func() {
		if len(word) > 1 {
			out = append(out, string(word))
		}
		word = word[:0]
	}
	flushHan := func() {
		if len(han) == 1 {
			out = append(out, string(han))
		}
		for i := 0; i+1 < len(han); i++ {
			out = append(out, string(han[i:i+2]))
		}
		han = han[:0]
	}
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Han, r):
			flushWord()
			han = append(han, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			flushHan()
			word = append(word, unicode.ToLower(r))
		default:
			flushWord()
			flushHan()
		}
	}
	flushWord()
	flushHan()
	return out
}

// search returns the k best passages for query (BM25, k1=1.2, b=0.75).
// Code passages are candidates only when withCode is set: explanations are
// written from prose.
func (kb *knowledgeBase) search(query string, k int, withCode bool) []passage {
	q := tokenize(query)
	type scored struct {
		i     int
		score float64
	}
	var hits []scored
	n := float64(len(kb.passages))
	for i, p := range kb.passages {
		if p.code && !withCode {
			continue
		}
		var s float64
		for _, t := range q {
			tf := float64(p.terms[t])
			if tf == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(kb.df[t])+0.5)/(float64(kb.df[t])+0.5))
			s += idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*float64(p.length)/kb.avgLen))
		}
		if s > 0 {
			hits = append(hits, scored{i, s})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].score > hits[b].score })
	var out []passage
	for _, h := range hits[:min(k, len(hits))] {
		out = append(out, kb.passages[h.i])
	}
	return out
}

// onepassAnswer is rag.onepass_answer: retrieve, then one LLM call that
// answers with citations (explain) or code (code).
func (a *Agent) onepassAnswer(ctx context.Context, query, mode, lang string) (Envelope, error) {
	hits := a.kb.search(query, a.opts.TopK, mode == DecisionCode)
	var ctxText strings.Builder
	var raw strings.Builder
	var cites []Citation
	seen := map[int]bool{}
	for i, p := range hits {
		fmt.Fprintf(&ctxText, "[%d] %s (%s)\n%s\n\n", i+1, p.title, p.source, p.text)
		if !seen[p.doc] {
			seen[p.doc] = true
			raw.WriteString(a.kb.docs[p.doc])
		}
		cites = append(cites, Citation{Title: p.title, Source: p.source, ChunkID: p.id})
	}
	args, _ := json.Marshal(map[string]any{"query": query, "top_k": a.opts.TopK})
	// Raw: the documents the passages come from; context: the passages.
	a.cfg.Tracer.Tool("rag.search", args, []byte(raw.String()), ctxText.String(), nil)
	user := fmt.Sprintf("Mode: %s\nLanguage: %s\nQuestion: %s\n\nContext:\n%s", mode, lang, query, ctxText.String())
	resp, err := a.cfg.Model.Chat(ctx, llm.Request{
		Role: "onepass",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: a.onepass},
			{Role: llm.RoleUser, Content: user},
		},
		Temperature: llm.Float(0.2), MaxTokens: 768,
	})
	if err != nil {
		env := a.failure(lang, CodeUnavailable, "the language model is not answering", nil)
		env.Raw.Citations = cites
		return env, nil
	}
	blocks := tagged(resp.Message.Content)
	text := blocks["ANSWER"]
	if mode == DecisionCode && blocks["CODE"] != "" {
		text = strings.TrimSpace(blocks["CODE"] + "\n\n" + text)
	}
	if text == "" {
		text = strings.TrimSpace(resp.Message.Content)
	}
	return Envelope{Mode: mode, Text: text, Source: "rag." + mode, Raw: Raw{Citations: cites}}, nil
}

// tagged splits "<<<TAG>>>" blocks into a map by tag.
func tagged(s string) map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split(s, "<<<")[1:] {
		tag, body, ok := strings.Cut(part, ">>>")
		if ok {
			out[strings.TrimSpace(tag)] = strings.TrimSpace(body)
		}
	}
	return out
}

// paragraphs splits a markdown body into passages: headings are dropped,
// a fenced code block stays whole, and short fragments are skipped.
func paragraphs(body string) []string {
	var out []string
	var cur []string
	inFence := false
	flush := func() {
		p := strings.TrimSpace(strings.Join(cur, "\n"))
		if len(p) >= 40 {
			out = append(out, p)
		}
		cur = cur[:0]
	}
	for _, line := range strings.Split(body, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			inFence = !inFence
			cur = append(cur, line)
		case inFence:
			cur = append(cur, line)
		case strings.HasPrefix(trimmed, "#"):
			flush()
		case trimmed == "":
			flush()
		default:
			cur = append(cur, line)
		}
	}
	flush()
	return out
}
