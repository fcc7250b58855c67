package runner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/check"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
)

// quoterKey is the quote service's key, which the quoter agent holds in
// its own configuration: no rule knows its shape and no variable names it,
// so only where it is sent (a credential header) says it is a secret.
const quoterKey = "qk-7f3a9c2e1b5d8a64"

// quoter fetches the day's quote with its key in a credential header and
// answers with the quote and, carelessly, the key.
type quoter struct{ hc *http.Client }

func (q quoter) Run(ctx context.Context, in agents.Input) (agents.Answer, error) {
	var ans agents.Answer
	for range in.Turns {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://quotes.example/today", nil)
		if err != nil {
			return ans, err
		}
		req.Header.Set("X-Api-Key", quoterKey)
		resp, err := q.hc.Do(req)
		if err != nil {
			return ans, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return ans, err
		}
		ans.Replies = append(ans.Replies, agents.Reply{Text: fmt.Sprintf("Today's quote: %s (fetched with key %s)", body, quoterKey)})
	}
	return ans, nil
}

var _ = Describe("a rubric graded over an answer that quotes a secret found by where it was sent", func() {
	It("keeps the secret out of the grader's cassette, as out of the agent's and the report", func() {
		quotes := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "Slow is smooth and smooth is fast.")
		}))
		DeferCleanup(quotes.Close)
		reg := map[string]agents.Entry{"quoter": {
			Info: agents.Info{Name: "quoter", Model: llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "gpt-4.1-mini"},
				Upstreams: map[string]string{"quotes": "https://quotes.example"}},
			New: func(c agents.Config) (agents.Agent, error) { return quoter{hc: c.HTTP}, nil },
		}}
		root := GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(root, "scenarios"), 0o755)).To(Succeed())
		path := filepath.Join(root, "scenarios", "quotes.yaml")
		Expect(os.WriteFile(path, []byte(`suite: quotes
agent: quoter
clock: 2025-11-06T10:00:00Z
baseline: plain
judge: {provider: openai, model: gpt-4.1-mini}
variants:
  plain: {description: the quoter as it is}
scenarios:
  - id: todays-quote
    input: "What is today's quote?"
    expect:
      rubric: 'The answer gives a quote'
`), 0o644)).To(Succeed())
		suite, err := scenario.Load(path, scenario.LoadOptions{Agents: []string{"quoter"}, Metrics: check.MetricNames()})
		Expect(err).NotTo(HaveOccurred())
		sis, err := runner.StartStandIns(root, reg, true, false)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(sis.Close)
		Expect(sis.RouteJudges([]*scenario.Suite{suite})).To(Succeed())
		routes := map[string]string{"quotes.example": quotes.URL}
		for h, u := range sis.Routes {
			routes[h] = u
		}

		rep, err := runner.Run(context.Background(), []*scenario.Suite{suite}, runner.Options{
			Mode: cassette.ModeRecord, Root: root, Agents: reg, Routes: routes, JudgeRoutes: sis.Judges, Parallel: 1})
		Expect(err).NotTo(HaveOccurred())
		sc := rep.Suites[0].Variants[0].Scenarios[0]
		Expect(sc.Verdict).To(Equal(report.VerdictPass), sc.Error)
		Expect(sc.Grading).NotTo(BeNil())
		Expect(sc.Grading.Calls).To(Equal(1))

		for _, p := range []string{cassette.Path(root, "quotes", "plain", "todays-quote"), cassette.JudgePath(root, "quotes", "plain", "todays-quote", 1)} {
			data, err := os.ReadFile(p)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(data)).NotTo(ContainSubstring(quoterKey), p)
		}
		judged, err := os.ReadFile(cassette.JudgePath(root, "quotes", "plain", "todays-quote", 1))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(judged)).To(ContainSubstring("fetched with key " + cassette.Redacted))
		written, err := json.Marshal(rep)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(written)).NotTo(ContainSubstring(quoterKey))

		// Replayed, the live grader call (which holds the key again) matches
		// the recorded one, redacted the same way.
		again, err := runner.Run(context.Background(), []*scenario.Suite{suite}, runner.Options{
			Mode: cassette.ModeReplay, Root: root, Agents: reg, Parallel: 1})
		Expect(err).NotTo(HaveOccurred())
		sc = again.Suites[0].Variants[0].Scenarios[0]
		Expect(sc.Verdict).To(Equal(report.VerdictPass), sc.Error)
		Expect(sc.Grading.Calls).To(Equal(1))
	})
})
