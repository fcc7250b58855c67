package runner_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/standin"
)

var _ = Describe("recording when the stand-in has no policy for a prompt", func() {
	It("writes nothing for the scenarios it could not answer, names the cause, and records the others", func() {
		// The stand-in without ODBchat's answer policy (nor the generic
		// one): as after an edit of the answer prompt that its policy no
		// longer recognizes.
		var policies []standin.Policy
		for _, p := range standin.Policies() {
			if p.Name() != "odbchat/onepass" && p.Name() != standin.GenericName {
				policies = append(policies, p)
			}
		}
		r := &recording{root: project()}
		r.suite = loadSuite(r.root)
		var err error
		r.sis, err = runner.StartStandIns(r.root, all.Registry(), true, true, runner.ModelOptions(standin.Options{Policies: policies}))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(r.sis.Close)
		// Every cassette as it was before: single-pass's removed, so that
		// what the recording writes shows.
		Expect(os.RemoveAll(filepath.Join(r.root, "cassettes", "odbchat", "single-pass"))).To(Succeed())
		before := map[string][]byte{}
		for _, v := range r.suite.Variants {
			for _, sc := range r.suite.Scenarios {
				path := cassette.Path(r.root, "odbchat", v.Name, sc.ID)
				if data, err := os.ReadFile(path); err == nil {
					before[path] = data
				}
			}
		}

		rep := r.record(nil, runner.Options{Variant: "single-pass"})

		unanswered, recorded := 0, 0
		for _, v := range rep.Suites[0].Variants {
			for _, sc := range v.Scenarios {
				path := cassette.Path(r.root, "odbchat", v.Name, sc.ID)
				if sc.Verdict != report.VerdictError {
					recorded++
					Expect(path).To(BeARegularFile())
					continue
				}
				unanswered++
				Expect(sc.Error).To(HavePrefix(cassette.NoPolicyCause+" this prompt (system prompt \"You are ODBchat, the assistant"), sc.ID)
				Expect(sc.Error).To(ContainSubstring("nothing was written for this scenario"))
				Expect(sc.Error).NotTo(ContainSubstring("could not reach"))
				if data, ok := before[path]; ok {
					Expect(os.ReadFile(path)).To(Equal(data), "kept as it was")
				} else {
					Expect(path).NotTo(BeAnExistingFile())
				}
			}
		}
		Expect(unanswered).To(BeNumerically(">", 0))
		Expect(recorded).To(BeNumerically(">", 0))
	})
})
