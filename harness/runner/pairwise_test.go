package runner_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/judge"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
)

// positional is a grader on loopback that prefers the answer saying
// "good"; between two that both or neither say it, it ties, except that
// answers saying "biased" always get "A": the first position wins.
func positional() *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		Expect(json.Unmarshal(body, &req)).To(Succeed())
		secs := judge.Sections(req.Messages[len(req.Messages)-1].Content)
		a, b := strings.Contains(secs["Answer A"], "good"), strings.Contains(secs["Answer B"], "good")
		winner := "tie"
		switch {
		case strings.Contains(secs["Answer A"], "biased"):
			winner = "A"
		case a && !b:
			winner = "A"
		case b && !a:
			winner = "B"
		}
		content, _ := json.Marshal(judge.Preference{Winner: winner, Reason: "prefers " + winner})
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "c", "object": "chat.completion", "model": "fake",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": string(content)}}},
			"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}})
	}))
	DeferCleanup(srv.Close)
	return srv
}

var _ = Describe("pairwise judging of two variants", func() {
	It("asks in both orders, counts wins, losses, ties and inconsistent verdicts, and gives the Wilson interval; the grades replay", func() {
		root := project()
		s := loadSuite(root)
		s.Judge = &scenario.Judge{Endpoint: llm.Endpoint{Provider: llm.ProviderOpenAI, Model: "fake"}, Compare: "The better answer is the good one"}
		answers := map[string][2]string{ // base, head
			"ac1-taiwan-sst":     {"a bad answer", "a good answer"},     // head wins
			"ac2-hualien-point":  {"a good answer", "a bad answer"},     // head loses
			"ac3-what-is-ghrsst": {"a good answer", "a good answer"},    // tie
			"ac4-json-to-csv":    {"a biased answer", "another biased"}, // position bias: inconsistent
		}
		base, head := &report.Variant{Name: "legacy"}, &report.Variant{Name: "single-pass"}
		for id, a := range answers {
			base.Scenarios = append(base.Scenarios, report.Scenario{ID: id, Verdict: report.VerdictPass, Answer: []string{a[0]}})
			head.Scenarios = append(head.Scenarios, report.Scenario{ID: id, Verdict: report.VerdictPass, Answer: []string{a[1]}})
		}
		srv := positional()
		grader := llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: srv.URL + "/v1", Model: "gpt-4.1-mini", KeyEnv: "GRADER_KEY"}
		opts := runner.Options{Mode: cassette.ModeRecordMissing, Root: root, Judge: &grader, Secrets: map[string]string{"GRADER_KEY": "sk-grader-key-0123456789"}}
		pw, err := runner.Pairwise(context.Background(), s, base, head, opts)
		Expect(err).NotTo(HaveOccurred())

		Expect([]int{pw.Wins, pw.Losses, pw.Ties, pw.Inconsistent, pw.Calls}).To(Equal([]int{1, 1, 1, 1, 8}))
		Expect(pw.WinRate).To(HaveValue(Equal(0.5)))
		// 1 win of 2 decided, z = 1.959964: centre 0.5 + 3.841459/4 = 1.460365,
		// margin 1.959964·√(0.125 + 0.240091) = 1.184265, over 2.920729.
		Expect(pw.Low).To(HaveValue(BeNumerically("~", 0.094531, 5e-6)))
		Expect(pw.High).To(HaveValue(BeNumerically("~", 0.905469, 5e-6)))
		// Eight calls of 100 input and 20 output tokens, as the grader
		// reported them, at gpt-4.1-mini's $0.40 and $1.60 per million.
		Expect([]int{pw.InputTokens, pw.OutputTokens}).To(Equal([]int{800, 160}))
		Expect(pw.Unpriced).To(BeFalse())
		Expect(pw.CostUSD).To(BeNumerically("~", 800*0.4e-6+160*1.6e-6, 1e-12))
		outcome := map[string]string{}
		for _, r := range pw.Rows {
			outcome[r.ID] = r.Outcome
		}
		Expect(outcome).To(Equal(map[string]string{"ac1-taiwan-sst": "win", "ac2-hualien-point": "loss", "ac3-what-is-ghrsst": "tie", "ac4-json-to-csv": "inconsistent"}))

		// The second call swaps the answers' positions.
		bodies, err := cassette.RequestBodies(runner.PairwisePath(root, "odbchat", "legacy", "single-pass", "ac1-taiwan-sst"))
		Expect(err).NotTo(HaveOccurred())
		Expect(bodies).To(HaveLen(2))
		Expect(bodies[0]).To(ContainSubstring(`## Answer A\na bad answer\n\n## Answer B\na good answer`))
		Expect(bodies[1]).To(ContainSubstring(`## Answer A\na good answer\n\n## Answer B\na bad answer`))
		raw, err := os.ReadFile(runner.PairwisePath(root, "odbchat", "legacy", "single-pass", "ac1-taiwan-sst"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(raw)).NotTo(ContainSubstring("sk-grader-key-0123456789"))

		// Offline, the grades replay: the grader is gone.
		srv.Close()
		opts.Mode = cassette.ModeReplay
		again, err := runner.Pairwise(context.Background(), s, base, head, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(again.Rows).To(ConsistOf(pw.Rows))

		// A corrupt cassette is named, with how to grade it again.
		corrupt := runner.PairwisePath(root, "odbchat", "legacy", "single-pass", "ac2-hualien-point")
		good, err := os.ReadFile(corrupt)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(corrupt, []byte("interactions: [\n"), 0o644)).To(Succeed())
		_, err = runner.Pairwise(context.Background(), s, base, head, opts)
		Expect(err).To(MatchError(runner.ErrPairwiseMissing))
		Expect(err.Error()).To(ContainSubstring("ac2-hualien-point (corrupt cassette"))
		Expect(err.Error()).To(ContainSubstring("delete the corrupt cassettes, then grade them with: testbed compare --suite odbchat --base legacy --head single-pass --judge --record-missing --root " + root))
		Expect(os.WriteFile(corrupt, good, 0o644)).To(Succeed())

		// A changed answer has no recorded grade: re-grade it.
		head.Scenarios[0].Answer = []string{"a changed answer"}
		_, err = runner.Pairwise(context.Background(), s, base, head, opts)
		Expect(err).To(MatchError(runner.ErrPairwiseMissing))
		Expect(err.Error()).To(HaveSuffix("(its answers, rubric or judge changed); grade them with: testbed compare --suite odbchat --base legacy --head single-pass --judge --record-missing --root "+root), "the project is not the working folder: the command names it")
	})

	It("gives no win rate, not 0, when no pair was decided, and says a grader without a price is unpriced", func() {
		root := project()
		s := loadSuite(root)
		s.Judge = &scenario.Judge{Endpoint: llm.Endpoint{Provider: llm.ProviderOpenAI, Model: "fake"}, Compare: "The better answer is the good one"}
		base := &report.Variant{Name: "legacy", Scenarios: []report.Scenario{{ID: "ac1-taiwan-sst", Verdict: report.VerdictPass, Answer: []string{"a good answer"}}}}
		head := &report.Variant{Name: "single-pass", Scenarios: []report.Scenario{{ID: "ac1-taiwan-sst", Verdict: report.VerdictPass, Answer: []string{"another good answer"}}}}
		srv := positional()
		grader := llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: srv.URL + "/v1", Model: "fake"}
		pw, err := runner.Pairwise(context.Background(), s, base, head, runner.Options{Mode: cassette.ModeRecordMissing, Root: root, Judge: &grader})
		Expect(err).NotTo(HaveOccurred())
		Expect(pw.Ties).To(Equal(1))
		Expect(pw.WinRate).To(BeNil())
		Expect(pw.Low).To(BeNil())
		Expect(pw.High).To(BeNil())
		Expect(pw.Unpriced).To(BeTrue())
		js, err := json.Marshal(pw)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(js)).To(ContainSubstring(`"win_rate":null`))
		Expect(string(js)).To(ContainSubstring(`"unpriced":true`))
	})

	It("counts a grade that does not parse as inconsistent, saying why, and judges the other pairs", func() {
		root := project()
		s := loadSuite(root)
		s.Judge = &scenario.Judge{Endpoint: llm.Endpoint{Provider: llm.ProviderOpenAI, Model: "fake"}, Compare: "The better answer is the good one"}
		base := &report.Variant{Name: "legacy", Scenarios: []report.Scenario{
			{ID: "ac1-taiwan-sst", Verdict: report.VerdictPass, Answer: []string{"a bad answer"}},
			{ID: "ac2-hualien-point", Verdict: report.VerdictPass, Answer: []string{"a bad answer"}}}}
		head := &report.Variant{Name: "single-pass", Scenarios: []report.Scenario{
			{ID: "ac1-taiwan-sst", Verdict: report.VerdictPass, Answer: []string{"a good answer"}},
			{ID: "ac2-hualien-point", Verdict: report.VerdictPass, Answer: []string{"a good answer"}}}}
		srv := positional()
		grader := llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: srv.URL + "/v1", Model: "fake"}
		opts := runner.Options{Mode: cassette.ModeRecordMissing, Root: root, Judge: &grader}
		_, err := runner.Pairwise(context.Background(), s, base, head, opts)
		Expect(err).NotTo(HaveOccurred())
		// A real grader answering off its schema, as recorded.
		path := runner.PairwisePath(root, "odbchat", "legacy", "single-pass", "ac2-hualien-point")
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(ContainSubstring(`\"winner\":\"B\"`))
		Expect(os.WriteFile(path, []byte(strings.Replace(string(data), `\"winner\":\"B\"`, `\"winner\":\"X\"`, 1)), 0o644)).To(Succeed())
		opts.Mode = cassette.ModeReplay
		pw, err := runner.Pairwise(context.Background(), s, base, head, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect([]int{pw.Wins, pw.Losses, pw.Ties, pw.Inconsistent}).To(Equal([]int{1, 0, 0, 1}))
		for _, r := range pw.Rows {
			if r.ID == "ac2-hualien-point" {
				Expect(r.Outcome).To(Equal("inconsistent"))
				Expect(r.BaseFirst).To(HavePrefix("refused: the grader's answer does not parse"))
			}
		}
	})

	It("judges a pair again whole with --record-missing when the judge changed, where it was refused as mixing two sources", func() {
		root := project()
		s := loadSuite(root)
		s.Judge = &scenario.Judge{Endpoint: llm.Endpoint{Provider: llm.ProviderOpenAI, Model: "fake"}, Compare: "The better answer is the good one"}
		base := &report.Variant{Name: "legacy", Scenarios: []report.Scenario{{ID: "ac1-taiwan-sst", Verdict: report.VerdictPass, Answer: []string{"a bad answer"}}}}
		head := &report.Variant{Name: "single-pass", Scenarios: []report.Scenario{{ID: "ac1-taiwan-sst", Verdict: report.VerdictPass, Answer: []string{"a good answer"}}}}
		srv := positional()
		grader := llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: srv.URL + "/v1", Model: "fake"}
		_, err := runner.Pairwise(context.Background(), s, base, head, runner.Options{Mode: cassette.ModeRecordMissing, Root: root, Judge: &grader})
		Expect(err).NotTo(HaveOccurred())
		other := grader
		other.Model = "fake-2"
		pw, err := runner.Pairwise(context.Background(), s, base, head, runner.Options{Mode: cassette.ModeRecordMissing, Root: root, Judge: &other})
		Expect(err).NotTo(HaveOccurred(), "the command the stale pair names works")
		Expect(pw.Wins).To(Equal(1))
		prov, err := cassette.ReadProvenance(runner.PairwisePath(root, "odbchat", "legacy", "single-pass", "ac1-taiwan-sst"))
		Expect(err).NotTo(HaveOccurred())
		Expect(prov.Model).To(Equal("fake-2"))
	})

	It("redacts its cassettes with the suite's redact: rules, as the agent's", func() {
		root := project()
		s := loadSuite(root)
		s.Judge = &scenario.Judge{Endpoint: llm.Endpoint{Provider: llm.ProviderOpenAI, Model: "fake"}, Compare: "The better answer is the good one"}
		s.Redact = append(s.Redact, scenario.RedactRule{Regex: regexp.MustCompile(`acct-[0-9]{8}`)})
		base := &report.Variant{Name: "legacy", Scenarios: []report.Scenario{{ID: "ac1-taiwan-sst", Verdict: report.VerdictPass, Answer: []string{"a bad answer for acct-48151623"}}}}
		head := &report.Variant{Name: "single-pass", Scenarios: []report.Scenario{{ID: "ac1-taiwan-sst", Verdict: report.VerdictPass, Answer: []string{"a good answer for acct-48151623"}}}}
		srv := positional()
		grader := llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: srv.URL + "/v1", Model: "fake"}
		_, err := runner.Pairwise(context.Background(), s, base, head, runner.Options{Mode: cassette.ModeRecordMissing, Root: root, Judge: &grader})
		Expect(err).NotTo(HaveOccurred())
		raw, err := os.ReadFile(runner.PairwisePath(root, "odbchat", "legacy", "single-pass", "ac1-taiwan-sst"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(raw)).NotTo(ContainSubstring("acct-48151623"))
		Expect(string(raw)).To(ContainSubstring("a good answer for "))
	})
})
