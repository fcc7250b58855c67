package replaytest_test

import (
	"encoding/json"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/odbchat"
	"github.com/agentreplay/testbed/replaytest"
)

// blessed reads a baseline file as JSON.
func blessed(path string) map[string]any {
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	var out map[string]any
	Expect(json.Unmarshal(data, &out)).To(Succeed())
	return out
}

// suiteNames lists the suites of a baseline read by blessed.
func suiteNames(b map[string]any) []string {
	var names []string
	for _, s := range b["suites"].([]any) {
		names = append(names, s.(map[string]any)["name"].(string))
	}
	return names
}

// doctor makes the baseline's odbchat/single-pass mean LLM calls lower than
// any replay's, so that the gate finds a regression.
func doctor(path string) {
	b := blessed(path)
	found := false
	for _, s := range b["suites"].([]any) {
		if s := s.(map[string]any); s["name"] == "odbchat" {
			v := s["variants"].([]any)[1].(map[string]any)
			Expect(v["name"]).To(Equal("single-pass"))
			v["summary"].(map[string]any)["llm_calls_mean"] = 0.5
			found = true
		}
	}
	Expect(found).To(BeTrue())
	data, err := json.Marshal(b)
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(path, data, 0o644)).To(Succeed())
}

var _ = Describe("Run with Baseline", func() {
	var root, path, base string
	info := replaytest.Info(odbchat.Info())

	BeforeEach(func() {
		root = project("scenarios/odbchat.yaml", "fixtures/odbchat", "cassettes/odbchat", "reports/baseline.json")
		path = filepath.Join(root, "scenarios", "odbchat.yaml")
		base = filepath.Join(root, "reports", "baseline.json")
	})

	It("passes within the gate of the committed baseline", func() {
		t, _ := run(path, odbchat.New, info, replaytest.Baseline(base))
		Expect(t.failed()).To(BeEmpty())
	})

	It("fails on a figure worse than the baseline allows, with the table and the command that blesses it", func() {
		doctor(base)
		t, _ := run(path, odbchat.New, info, replaytest.Baseline(base))
		Expect(t.failed()).To(ContainSubstring("regressions against " + base))
		Expect(t.failed()).To(MatchRegexp(`odbchat\s+single-pass\s+\(summary\)\s+llm_calls_mean`))
		Expect(t.failed()).To(ContainSubstring("TESTBED_BLESS=1 go test ./replaytest -run '^TestWeather$'"))
	})

	It("fails when the baseline is missing", func() {
		t, _ := run(path, odbchat.New, info, replaytest.Baseline(filepath.Join(root, "none.json")))
		Expect(t.failed()).To(ContainSubstring("no blessed baseline at " + filepath.Join(root, "none.json")))
	})

	It("fails when the baseline holds no run of the suite: a gate that saw nothing passes nothing", func() {
		Expect(os.WriteFile(base, []byte(`{"schemaVersion": 1, "mode": "replay", "suites": [{"name": "other", "variants": []}]}`), 0o644)).To(Succeed())
		t, _ := run(path, odbchat.New, info, replaytest.Baseline(base))
		Expect(t.failed()).To(ContainSubstring("holds no run of suite odbchat"))
	})

	It("blesses a passing replay into the file with TESTBED_BLESS=1, keeping the other suites, and gates against it after", func() {
		doctor(base)
		others := suiteNames(blessed(base))
		GinkgoT().Setenv(replaytest.EnvBless, "1")
		t, _ := run(path, odbchat.New, info, replaytest.Baseline(base))
		Expect(t.failed()).To(BeEmpty())
		Expect(t.logs).To(ContainElement(ContainSubstring("blessed 60 scenario runs of suite odbchat into " + base)))
		Expect(suiteNames(blessed(base))).To(ConsistOf(others), "every other suite kept")

		GinkgoT().Setenv(replaytest.EnvBless, "")
		t, _ = run(path, odbchat.New, info, replaytest.Baseline(base))
		Expect(t.failed()).To(BeEmpty(), "the doctored figure was blessed over")
	})

	It("blesses into a new file", func() {
		fresh := filepath.Join(root, "testdata", "baseline.json")
		GinkgoT().Setenv(replaytest.EnvBless, "1")
		t, _ := run(path, odbchat.New, info, replaytest.Baseline(fresh))
		Expect(t.failed()).To(BeEmpty())
		Expect(suiteNames(blessed(fresh))).To(Equal([]string{"odbchat"}))
	})

	It("does not bless a replay that fails", func() {
		edit(path, `"routing_accuracy >= 0.95"`, `"input_tokens_mean <= 10"`)
		fresh := filepath.Join(root, "testdata", "baseline.json")
		GinkgoT().Setenv(replaytest.EnvBless, "1")
		t, _ := run(path, odbchat.New, info, replaytest.Baseline(fresh))
		Expect(t.failed()).To(ContainSubstring("threshold"))
		Expect(t.failed()).To(ContainSubstring("not blessed: the replay does not pass"))
		Expect(fresh).NotTo(BeAnExistingFile())
	})
})
