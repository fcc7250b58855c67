package climate

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/philippgille/chromem-go"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/climate/trim"
)

// rawTopK is how many matches the untrimmed tool renders, as the service
// did before trimming.
const rawTopK = 5

// chunk is one passage of a knowledge-base document.
type chunk struct {
	id, filename, content string
	index                 int
}

// knowledgeBase is the climate knowledge base in an embedded chromem-go
// collection. Its passages are embedded on first use, in one batched call
// to the embeddings endpoint, as a cold service would; each question is
// embedded with one more call.
type knowledgeBase struct {
	chunks []chunk
	mu     sync.Mutex
	col    *chromem.Collection // nil until indexed; a failed attempt is retried next time
}

// loadKnowledgeBase reads dir/*.md (front matter, then paragraphs). The
// passages are cut once per run (agents.Cache) for each set of documents and shared,
// never changed; each agent embeds them into its own collection.
func loadKnowledgeBase(cache *agents.Cache, fsys fs.FS, dir string) (*knowledgeBase, error) {
	files, err := fs.Glob(fsys, path.Join(dir, "*.md"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("climate: no knowledge-base documents in %s/", dir)
	}
	chunks, err := agents.LoadOnce(cache, fsys, "climate kb", files, func(contents [][]byte) ([]chunk, error) {
		return chunksOf(files, contents), nil
	})
	if err != nil {
		return nil, err
	}
	return &knowledgeBase{chunks: chunks}, nil
}

// chunksOf cuts the documents files, whose contents are given, into
// passages: the paragraphs of 80 bytes or more after the front matter that
// are not headings.
func chunksOf(files []string, contents [][]byte) []chunk {
	var chunks []chunk
	for i, f := range files {
		body := string(contents[i])
		if strings.HasPrefix(body, "---\n") {
			if end := strings.Index(body[4:], "\n---"); end >= 0 {
				body = body[4+end+4:]
			}
		}
		n := 0
		for _, para := range strings.Split(body, "\n\n") {
			para = strings.TrimSpace(para)
			if len(para) < 80 || strings.HasPrefix(para, "#") {
				continue
			}
			name := path.Base(f)
			chunks = append(chunks, chunk{id: name + "#" + strconv.Itoa(n), filename: name, content: para, index: n})
			n++
		}
	}
	return chunks
}

// index embeds every passage once. A failure is returned and not kept, so
// the next search tries again.
func (a *Agent) index(ctx context.Context) (*chromem.Collection, error) {
	kb := a.kb
	kb.mu.Lock()
	defer kb.mu.Unlock()
	if kb.col != nil {
		return kb.col, nil
	}
	if a.cfg.Embedder == nil {
		return nil, fmt.Errorf("no embeddings endpoint configured")
	}
	texts := make([]string, len(kb.chunks))
	for i, c := range kb.chunks {
		texts[i] = c.content
	}
	vecs, _, err := a.cfg.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embedding the knowledge base: %w", err)
	}
	col, err := chromem.NewDB().CreateCollection("climate-kb", nil, nil)
	if err != nil {
		return nil, err
	}
	docs := make([]chromem.Document, len(kb.chunks))
	for i, c := range kb.chunks {
		docs[i] = chromem.Document{ID: c.id, Content: c.content, Embedding: vecs[i],
			Metadata: map[string]string{"filename": c.filename, "chunk": strconv.Itoa(c.index)}}
	}
	if err := col.AddDocuments(ctx, docs, 1); err != nil {
		return nil, err
	}
	kb.col = col
	return col, nil
}

// vectorSearch answers climate_vector_search: raw is the untrimmed
// rendering (top 5 with paths and distances); the returned text is what the
// variant puts into context.
func (a *Agent) vectorSearch(ctx context.Context, argJSON json.RawMessage) ([]byte, string, error) {
	var args struct {
		Question string `json:"question"`
	}
	if err := json.Unmarshal(argJSON, &args); err != nil || strings.TrimSpace(args.Question) == "" {
		return nil, "Climate search was not used. Reason: empty_question", nil
	}
	col, err := a.index(ctx)
	if err != nil {
		return nil, "", &toolError{code: codeCC, msg: "climate knowledge base unavailable: " + err.Error()}
	}
	qv, _, err := a.cfg.Embedder.Embed(ctx, []string{args.Question})
	if err != nil {
		return nil, "", &toolError{code: codeCC, msg: "embedding the question failed: " + err.Error()}
	}
	res, err := col.QueryEmbedding(ctx, qv[0], min(rawTopK, col.Count()), nil, nil)
	if err != nil {
		return nil, "", &toolError{code: codeCC, msg: err.Error()}
	}
	var ms []trim.Match
	for _, r := range res {
		if float64(r.Similarity) < a.opts.MinScore {
			continue
		}
		idx, _ := strconv.Atoi(r.Metadata["chunk"])
		ms = append(ms, trim.Match{Filename: r.Metadata["filename"], FilePath: "kb/" + r.Metadata["filename"],
			ChunkIndex: idx, Score: float64(r.Similarity), Distance: 1 - float64(r.Similarity), Content: r.Content})
	}
	if len(ms) == 0 {
		return nil, "Climate search was not used. Reason: no_relevant_matches", nil
	}
	raw := renderMatches(ms)
	if a.opts.Trim == TrimNone {
		return []byte(raw), raw, nil
	}
	return []byte(raw), renderMatches(trim.Vector(ms, a.opts.TopK)), nil
}

// renderMatches writes matches as the service does; paths and distances
// only when present.
func renderMatches(ms []trim.Match) string {
	var b strings.Builder
	b.WriteString("Relevant climate knowledge base excerpts were retrieved. Use them to ground your response when helpful.\n")
	for i, m := range ms {
		fmt.Fprintf(&b, "%d. Source: %s (chunk %d, score %.2f)\n", i+1, m.Filename, m.ChunkIndex, m.Score)
		if m.FilePath != "" {
			fmt.Fprintf(&b, "   Path: %s, distance %.4f\n", m.FilePath, m.Distance)
		}
		fmt.Fprintf(&b, "   Full Content: %s\n", m.Content)
	}
	b.WriteString("Always cite insights as coming from the internal climate knowledge base, not from personal memory.")
	return b.String()
}
