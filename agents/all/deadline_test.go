package all_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/agents/llm"
)

// waiting is a model and an embedder that answer only when the context
// ends, with its error, counting the calls.
type waiting struct{ calls atomic.Int32 }

func (w *waiting) Chat(ctx context.Context, _ llm.Request) (llm.Response, error) {
	w.calls.Add(1)
	<-ctx.Done()
	return llm.Response{}, ctx.Err()
}

func (w *waiting) Embed(ctx context.Context, _ []string) ([][]float32, llm.Usage, error) {
	w.calls.Add(1)
	<-ctx.Done()
	return nil, llm.Usage{}, ctx.Err()
}

// waitingTransport answers upstream calls only when the request's context
// ends.
type waitingTransport struct{}

func (waitingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	<-req.Context().Done()
	return nil, req.Context().Err()
}

var _ = Describe("every agent, when its context's deadline has passed", func() {
	questions := map[string]string{
		"cba":     "What's the weather in Nairobi right now?",
		"climate": "What were New York's emissions in 2022?",
		"family":  "Make me a chart of the pool temperature over the last 5 days",
		"kura":    "What's the weather in Paris?",
		"odbchat": "現在台灣周遭海溫多少？",
	}
	for _, name := range all.Names() {
		It(name+" stops at the first call that waits, and says so or answers that it could not finish", func() {
			entry := all.Registry()[name]
			model := &waiting{}
			secrets := map[string]string{}
			for _, k := range entry.Info.Keys {
				secrets[k] = "placeholder"
			}
			cfg := agents.Config{
				Model: model, HTTP: &http.Client{Transport: waitingTransport{}},
				Clock:  func() time.Time { return time.Date(2025, 11, 6, 2, 0, 0, 0, time.UTC) },
				Tracer: agents.NopTracer{}, Upstreams: entry.Info.Upstreams, Secrets: secrets,
				Data: os.DirFS(filepath.Join("..", "..", "fixtures", name)), Prompts: os.DirFS(filepath.Join("..", "..", "scenarios")),
			}
			if entry.Info.Embeddings != nil {
				cfg.Embedder = model
			}
			agent, err := entry.New(cfg)
			Expect(err).NotTo(HaveOccurred())
			ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
			defer cancel()
			ans, err := agent.Run(ctx, agents.Input{Turns: []string{questions[name]}})
			if err != nil {
				Expect(errors.Is(err, context.DeadlineExceeded)).To(BeTrue(), "a Go error is the deadline's: %v", err)
			} else {
				Expect(ans.Replies).To(HaveLen(1))
				Expect(ans.Replies[0].Text).NotTo(BeEmpty())
			}
			Expect(model.calls.Load()).To(BeNumerically("<=", 2), "no call after the deadline is retried in a loop")
		})
	}
})
