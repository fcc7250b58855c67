package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
)

// realGrader is a grader on loopback speaking OpenAI Chat Completions, as
// a real one would: every grading request gets score with a reason. It
// keeps the structured-output names it was asked for.
func realGrader(score float64) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ResponseFormat struct {
				JSONSchema struct {
					Name string `json:"name"`
				} `json:"json_schema"`
			} `json:"response_format"`
		}
		Expect(json.Unmarshal(body, &req)).To(Succeed())
		mu.Lock()
		asked = append(asked, req.ResponseFormat.JSONSchema.Name)
		mu.Unlock()
		content, _ := json.Marshal(map[string]any{"score": score, "reason": "a real grader's reason"})
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4.1-mini",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": string(content)}}},
			"usage":   map[string]any{"prompt_tokens": 300, "completion_tokens": 20, "total_tokens": 320}})
	}))
	DeferCleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), asked...)
	}
}

var _ = Describe("record --judge-provider", func() {
	It("keeps the agent's previous cassette when the grading of its new recording fails, and says the run wrote none", func() {
		root := projectOf("climate-findings", "climate")
		dir := filepath.Join(root, "cassettes", "climate-findings", "trimmed")
		graded, err := filepath.Glob(filepath.Join(dir, "*.judge.yaml"))
		Expect(err).NotTo(HaveOccurred())
		id := strings.TrimSuffix(filepath.Base(graded[0]), ".judge.yaml")
		agent := filepath.Join(dir, id+".yaml")
		marked := mustRead(agent) + "# the cassette before\n"
		Expect(os.WriteFile(agent, []byte(marked), 0o644)).To(Succeed())
		refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error": {"message": "the grader refuses", "type": "invalid_request_error"}}`)
		}))
		DeferCleanup(refusing.Close)
		GinkgoT().Setenv("OPENAI_API_KEY", "sk-grader-test-0123456789abcdefghijkl")

		r := testbed("record", "--root", root, "--suite", "climate-findings", "--scenario", id, "--quiet",
			"--judge-provider", "openai", "--judge-model", "gpt-4.1-mini", "--judge-base-url", refusing.URL+"/v1")

		Expect(r.stderr).To(ContainSubstring("recorded 0 cassettes"), r.String())
		Expect(r.stderr).To(ContainSubstring("not recorded, 1 scenario runs that ended in an error (climate-findings/trimmed/" + id + ")"))
		Expect(mustRead(agent)).To(Equal(marked), "the agent's cassette is the one it had")
	})

	It("grades a suite recorded against the stand-in judge again with a real grader, leaving the agent's cassettes as they were, and the grades replay offline", func() {
		root := projectOf("climate-findings", "climate")
		dir := filepath.Join(root, "cassettes", "climate-findings", "trimmed")
		graded, err := filepath.Glob(filepath.Join(dir, "*.judge.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(graded).To(HaveLen(5))
		for _, f := range graded {
			Expect(os.Remove(f)).To(Succeed()) // a grader cassette keeps one source
		}
		agents := yamlFiles(dir)
		srv, asked := realGrader(0.9)
		// A replay grades with the suite's judge: the block names the grader
		// the flags record with (here one on loopback).
		suite := filepath.Join(root, "scenarios", "climate-findings.yaml")
		yaml := strings.Replace(mustRead(suite), "judge: {provider: openai, model: gpt-4.1-mini}",
			"judge: {provider: openai, model: gpt-4.1-mini, base_url: \""+srv.URL+"/v1\"}", 1)
		Expect(yaml).To(ContainSubstring(srv.URL))
		Expect(os.WriteFile(suite, []byte(yaml), 0o644)).To(Succeed())
		const key = "sk-grader-test-0123456789abcdefghijkl"
		GinkgoT().Setenv("OPENAI_API_KEY", key)

		r := testbed("record", "--root", root, "--suite", "climate-findings", "--record-missing", "--quiet",
			"--judge-provider", "openai", "--judge-model", "gpt-4.1-mini", "--judge-base-url", srv.URL+"/v1")

		Expect(r.code).To(Equal(exitOK), r.String())
		// Six rubrics over five scenarios, and upstream-500's two labelled examples.
		Expect(asked()).To(HaveLen(8))
		Expect(asked()).To(HaveEach(Equal("testbed_grade")))
		after := yamlFiles(dir)
		for name, data := range agents {
			Expect(after[name]).To(Equal(data), "%s: re-grading leaves the agent's cassette as it was", name)
		}
		for _, f := range graded {
			name := filepath.Base(f)
			Expect(after).To(HaveKey(name))
			Expect(string(after[name])).NotTo(ContainSubstring(key), name)
			p := parseCassette(name, after[name]).Provenance
			Expect(p.Role).To(Equal(cassette.RoleJudge), name)
			Expect(p.StandIn).To(BeFalse(), name)
			Expect(p.Provider).To(Equal("openai"), name)
			Expect(p.Model).To(Equal("gpt-4.1-mini"), name)
		}

		srv.Close() // offline: the grades replay from the cassettes
		again := testbed("run", "--root", root, "--suite", "climate-findings", "--no-baseline", "--out", "")
		Expect(again.code).To(Equal(exitOK), again.String())
		Expect(again.stdout).To(MatchRegexp(`climate-findings/trimmed \(not gating\) +5/5 `), "the real grader passes what the stand-in judge failed")
		// The real grader passed both labelled examples: it agrees with one
		// of two labels, and a grader that passes everything is no better
		// than chance.
		Expect(again.stdout).To(ContainSubstring("climate-findings: 8 grader calls over 1 variant, 2,400 input and 160 output tokens, $0.00122, by openai gpt-4.1-mini; it judged 1 of 2 labelled examples as labelled (Cohen's kappa 0.00)"))
		Expect(strings.Count(again.stdout, "rule-based stand-in judge")).To(BeZero())
	})
})

var _ = Describe("a corrupt grader cassette", func() {
	It("is stale (exit 3) as an agent's corrupt cassette is, naming the file and the commands that grade it again, which work", func() {
		root := projectOf("kura", "kura")
		path := filepath.Join(root, "cassettes/kura/full-state/address-not-found.judge.yaml")
		Expect(os.WriteFile(path, []byte(mustRead(path)+"garbage: [\n"), 0o644)).To(Succeed())
		args := []string{"--root", root, "--suite", "kura", "--variant", "full-state", "--scenario", "address-not-found", "--quiet"}

		r := testbed(append([]string{"run", "--no-baseline", "--out", ""}, args...)...)

		Expect(r.code).To(Equal(exitStale), r.String())
		Expect(r.stdout).To(ContainSubstring("address-not-found stale: corrupt cassette: " + path))
		Expect(r.stdout).To(ContainSubstring("delete it, then grade again: rm " + path + " && testbed record --suite kura --variant full-state --scenario address-not-found --root " + root + " --record-missing"))

		Expect(os.Remove(path)).To(Succeed())
		graded := testbed(append([]string{"record", "--record-missing"}, args...)...)
		Expect(graded.code).To(Equal(exitOK), graded.String())
		again := testbed(append([]string{"run", "--no-baseline", "--out", ""}, args...)...)
		Expect(again.code).To(Equal(exitOK), again.String())
	})
})

var _ = Describe("a grader cassette with grades no rubric asks for any more", func() {
	It("fails the run naming a command that grades it again whole, which works", func() {
		root := projectOf("climate-findings", "climate")
		suite := filepath.Join(root, "scenarios", "climate-findings.yaml")
		dropped := strings.Replace(mustRead(suite), `        pass: ["CityCatalyst answered with an error, so I could not fetch the Lima inventory; I won't guess its emissions."]
        fail: ["The Lima 2022 inventory totals 14.2 million tCO2e."]
`, "", 1)
		Expect(dropped).NotTo(Equal(mustRead(suite)))
		Expect(os.WriteFile(suite, []byte(dropped), 0o644)).To(Succeed())
		path := filepath.Join(root, "cassettes/climate-findings/trimmed/upstream-500.judge.yaml")

		show := []string{"show", "climate-findings/trimmed/upstream-500", "--root", root, "--all"}

		r := testbed(show...)

		Expect(r.stdout).To(ContainSubstring("judge.unplayed: 2 recorded grader calls were not replayed"), r.String())
		fix := "rm " + path + " && testbed record --suite climate-findings --variant trimmed --scenario upstream-500 --root " + root + " --record-missing"
		Expect(r.stdout).To(ContainSubstring("grade it again whole with: " + fix))

		Expect(os.Remove(path)).To(Succeed())
		testbed("record", "--record-missing", "--root", root, "--suite", "climate-findings", "--variant", "trimmed", "--scenario", "upstream-500", "--quiet")
		again := testbed(show...)
		Expect(again.stdout).To(ContainSubstring("rubric[0]"), again.String())
		Expect(again.stdout).NotTo(ContainSubstring("judge.unplayed"))
	})
})
