package replaytest_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/climate"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/odbchat"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/standin"
	"github.com/agentreplay/testbed/replaytest"
)

// suite is a committed suite of a built-in agent, which names its agent
// plainly: replaytest.Info describes it.
var suite = filepath.Join(repo, "scenarios", "odbchat.yaml")

// runs counts rep's scenario runs and those that passed.
func runs(rep *report.Report) (n, passed int) {
	for _, s := range rep.Suites {
		for _, v := range s.Variants {
			for _, sc := range v.Scenarios {
				n++
				if sc.Verdict == report.VerdictPass {
					passed++
				}
			}
		}
	}
	return n, passed
}

var _ = Describe("Run, replaying", func() {
	It("replays a committed suite under GinkgoT() as testbed run does, and returns the report", func() {
		rep := replaytest.Run(GinkgoT(), suite, odbchat.New, replaytest.Info(odbchat.Info()))
		Expect(rep).NotTo(BeNil())
		Expect(rep.Mode).To(Equal("replay"))
		n, passed := runs(rep)
		Expect(n).To(Equal(60))
		Expect(passed).To(Equal(60))
		Expect(rep.Replay.Replayed).To(Equal(rep.Replay.Recorded))
	})

	It("fails the test with what was expected, what happened and the command that records the scenario again", func() {
		root := project("scenarios/odbchat.yaml", "fixtures/odbchat", "cassettes/odbchat")
		edit(filepath.Join(root, "scenarios", "odbchat.yaml"), `input: "現在台灣周遭海溫多少？"`, `input: "現在台灣周遭的海溫是多少？"`)
		t, rep := run(filepath.Join(root, "scenarios", "odbchat.yaml"), odbchat.New, replaytest.Info(odbchat.Info()))
		Expect(t.fatal).To(BeEmpty())
		Expect(t.errors).To(HaveLen(1))
		Expect(t.errors[0]).To(ContainSubstring("legacy/ac1-taiwan-sst: stale: "))
		Expect(t.errors[0]).To(ContainSubstring("single-pass/ac1-taiwan-sst: stale: "))
		Expect(t.errors[0]).To(ContainSubstring("has no match for POST"))
		Expect(t.errors[0]).To(ContainSubstring("re-record with: TESTBED_RECORD=1 go test ./replaytest -run '^TestWeather$'"))
		Expect(t.errors[0]).NotTo(ContainSubstring("testbed record"))
		Expect(t.logs).To(ContainElement(ContainSubstring("FAIL")), "the text report is logged")
		n, passed := runs(rep)
		Expect(n - passed).To(Equal(2))
	})

	It("names a Ginkgo spec by its text, or the command Rerecord gives", func() {
		root := project("scenarios/odbchat.yaml", "fixtures/odbchat", "cassettes/odbchat")
		path := filepath.Join(root, "scenarios", "odbchat.yaml")
		edit(path, `input: "現在台灣周遭海溫多少？"`, `input: "現在台灣周遭的海溫是多少？"`)
		t := &fakeT{name: "weather agent [replay] it's fine"}
		replaytest.Run(t, path, odbchat.New, replaytest.Info(odbchat.Info()))
		Expect(t.failed()).To(ContainSubstring(`re-record with: TESTBED_RECORD=1 go test ./replaytest -ginkgo.focus 'weather agent \[replay\] it'\''s fine'`))

		t, _ = run(path, odbchat.New, replaytest.Info(odbchat.Info()), replaytest.Rerecord("make record-weather"))
		Expect(t.failed()).To(ContainSubstring("re-record with: make record-weather"))
	})

	It("lists each failed check and threshold", func() {
		root := project("scenarios/odbchat.yaml", "fixtures/odbchat", "cassettes/odbchat")
		edit(filepath.Join(root, "scenarios", "odbchat.yaml"), `"routing_accuracy >= 0.95"`, `"input_tokens_mean <= 10"`)
		t, _ := run(filepath.Join(root, "scenarios", "odbchat.yaml"), odbchat.New, replaytest.Info(odbchat.Info()))
		Expect(t.failed()).To(ContainSubstring(`single-pass: threshold "input_tokens_mean <= 10" failed`))
	})

	It("writes latest.md and latest.json only when asked", func() {
		root := project("scenarios/odbchat.yaml", "fixtures/odbchat", "cassettes/odbchat")
		t, _ := run(filepath.Join(root, "scenarios", "odbchat.yaml"), odbchat.New, replaytest.Info(odbchat.Info()))
		Expect(t.failed()).To(BeEmpty())
		Expect(filepath.Join(root, "reports")).NotTo(BeADirectory())

		out := filepath.Join(root, "out")
		t, _ = run(filepath.Join(root, "scenarios", "odbchat.yaml"), odbchat.New, replaytest.Info(odbchat.Info()), replaytest.Reports(out))
		Expect(t.failed()).To(BeEmpty())
		Expect(filepath.Join(out, "latest.md")).To(BeARegularFile())
		data, err := os.ReadFile(filepath.Join(out, "latest.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(json.Valid(data)).To(BeTrue())
	})

	It("stops the test when the suite does not describe its agent and no Info is given", func() {
		t, rep := run(suite, odbchat.New)
		Expect(rep).To(BeNil())
		Expect(t.fatal).To(ContainSubstring(`agent "odbchat" is not described`))
		Expect(t.fatal).To(ContainSubstring("replaytest.Info"))
	})

	It("gives the agent the embeddings client its Info names, replayed from its cassettes", func() {
		t, rep := run(filepath.Join(repo, "scenarios", "climate.yaml"), climate.New, replaytest.Info(climate.Info()))
		Expect(t.failed()).To(BeEmpty())
		embedded := 0
		for _, v := range rep.Suites[0].Variants {
			embedded += v.Summary.Cost.EmbedCalls
		}
		Expect(embedded).To(BeNumerically(">", 0))
	})

	It("stops the test with every problem of a suite that does not load, as path:line", func() {
		root := project("scenarios/odbchat.yaml")
		edit(filepath.Join(root, "scenarios", "odbchat.yaml"), "baseline: legacy", "baseline: nowhere")
		t, rep := run(filepath.Join(root, "scenarios", "odbchat.yaml"), odbchat.New, replaytest.Info(odbchat.Info()))
		Expect(rep).To(BeNil())
		Expect(t.fatal).To(MatchRegexp(`odbchat\.yaml:\d+: baseline`))
	})
})

var _ = Describe("Run, recording", func() {
	It("records against the stand-ins the same bytes as testbed record, then replays them", func() {
		root := project("scenarios/odbchat.yaml", "fixtures/odbchat")
		path := filepath.Join(root, "scenarios", "odbchat.yaml")
		t, rep := run(path, odbchat.New, replaytest.Info(odbchat.Info()), replaytest.Record(true))
		Expect(t.failed()).To(BeEmpty())
		Expect(rep.Mode).To(Equal("record"))
		Expect(t.logs).To(ContainElement(ContainSubstring("recorded 60 scenario runs of suite odbchat")))

		recorded := 0
		Expect(fs.WalkDir(os.DirFS(filepath.Join(repo, "cassettes", "odbchat")), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			recorded++
			want, err := os.ReadFile(filepath.Join(repo, "cassettes", "odbchat", p))
			Expect(err).NotTo(HaveOccurred())
			got, err := os.ReadFile(filepath.Join(root, "cassettes", "odbchat", p))
			Expect(err).NotTo(HaveOccurred(), p)
			Expect(string(got)).To(Equal(string(want)), p)
			return nil
		})).To(Succeed())
		Expect(recorded).To(Equal(62), "60 scenario runs and the two variants' grader cassettes")

		t, rep = run(path, odbchat.New, replaytest.Info(odbchat.Info()), replaytest.Record(false))
		Expect(t.failed()).To(BeEmpty())
		_, passed := runs(rep)
		Expect(passed).To(Equal(60))
	})

	It("applies the suite's redact: rules to what it records and to the live requests it replays", func() {
		root := project("scenarios/odbchat.yaml", "fixtures/odbchat")
		path := filepath.Join(root, "scenarios", "odbchat.yaml")
		edit(path, "baseline: legacy", "baseline: legacy\nredact:\n  - regex: 'question (classifier)'")
		t, _ := run(path, odbchat.New, replaytest.Info(odbchat.Info()), replaytest.Record(true))
		Expect(t.failed()).To(BeEmpty())
		data, err := os.ReadFile(filepath.Join(root, "cassettes", "odbchat", "legacy", "ac1-taiwan-sst.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).NotTo(ContainSubstring("question classifier"))
		Expect(string(data)).To(ContainSubstring("question REDACTED-"))

		t, rep := run(path, odbchat.New, replaytest.Info(odbchat.Info()), replaytest.Record(false))
		Expect(t.failed()).To(BeEmpty())
		_, passed := runs(rep)
		Expect(passed).To(Equal(60))
	})

	It("stops the test on a redact: rule that cannot work, as path:line", func() {
		root := project("scenarios/odbchat.yaml")
		path := filepath.Join(root, "scenarios", "odbchat.yaml")
		edit(path, "baseline: legacy", "baseline: legacy\nredact:\n  - regex: 'tenant-('")
		t, rep := run(path, odbchat.New, replaytest.Info(odbchat.Info()))
		Expect(rep).To(BeNil())
		Expect(t.fatal).To(MatchRegexp(`odbchat\.yaml:\d+: redact\[0\]\.regex: "tenant-\(" is not a regular expression`))
	})

	It("records a real model when TESTBED_RECORD_PROVIDER and TESTBED_RECORD_MODEL say so, its key in no cassette; then replays it", func() {
		srv, err := standin.New(standin.Options{Policies: standin.Policies()}) // the "real" provider, on loopback
		Expect(err).NotTo(HaveOccurred())
		Expect(srv.Start()).To(Succeed())
		DeferCleanup(srv.Close)
		root := project("scenarios/odbchat.yaml", "fixtures/odbchat")
		path := filepath.Join(root, "scenarios", "odbchat.yaml")
		const key = "sk-proj-Zq8vN3xR7tL2mK9pW4sY6bH1cF5dJ0gA"
		GinkgoT().Setenv("OPENAI_API_KEY", key)
		GinkgoT().Setenv(replaytest.EnvRecordProvider, "openai")
		GinkgoT().Setenv(replaytest.EnvRecordModel, "gpt-4.1-mini")
		GinkgoT().Setenv(replaytest.EnvRecordBaseURL, srv.URL()+"/v1")
		// The agent as described names the model recorded, so that its
		// replay matches it.
		info := odbchat.Info()
		info.Model = llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: srv.URL() + "/v1", Model: "gpt-4.1-mini", KeyEnv: "OPENAI_API_KEY"}
		t, rep := run(path, odbchat.New, replaytest.Info(info), replaytest.Record(true))
		Expect(t.failed()).To(BeEmpty())
		Expect(rep.Mode).To(Equal("record"))
		data, err := os.ReadFile(filepath.Join(root, "cassettes", "odbchat", "legacy", "ac1-taiwan-sst.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(ContainSubstring(srv.URL()+"/v1/chat/completions"), "the real model's calls")
		Expect(string(data)).To(ContainSubstring("gpt-4.1-mini"))
		Expect(string(data)).NotTo(ContainSubstring(key))

		t, rep = run(path, odbchat.New, replaytest.Info(info), replaytest.Record(false))
		Expect(t.failed()).To(BeEmpty())
		Expect(rep.Mode).To(Equal("replay"))
	})

	It("stops the test when the real provider cannot be used, saying why", func() {
		root := project("scenarios/odbchat.yaml", "fixtures/odbchat")
		GinkgoT().Setenv("ANTHROPIC_API_KEY", "")
		t, rep := run(filepath.Join(root, "scenarios", "odbchat.yaml"), odbchat.New, replaytest.Info(odbchat.Info()),
			replaytest.Record(true), replaytest.RecordWith("anthropic", "claude-haiku-4-5", "", false))
		Expect(rep).To(BeNil())
		Expect(t.fatal).To(ContainSubstring("TESTBED_RECORD_PROVIDER=anthropic: provider anthropic needs a key in ANTHROPIC_API_KEY"))
	})

	It("follows TESTBED_RECORD when Record is not given", func() {
		root := project("scenarios/odbchat.yaml", "fixtures/odbchat")
		GinkgoT().Setenv(replaytest.EnvRecord, "1")
		t, rep := run(filepath.Join(root, "scenarios", "odbchat.yaml"), odbchat.New, replaytest.Info(odbchat.Info()))
		Expect(t.failed()).To(BeEmpty())
		Expect(rep.Mode).To(Equal("record"))
		Expect(filepath.Join(root, "cassettes", "odbchat", "legacy", "ac1-taiwan-sst.yaml")).To(BeARegularFile())
	})
})
