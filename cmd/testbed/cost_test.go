package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/standin"
)

var _ = Describe("testbed record --max-cost", func() {
	It("stops before a call would take the spend over the cap, and loses nothing written", func() {
		root := projectOf("climate", "climate")
		dir := filepath.Join(root, "cassettes", "climate", "trimmed")
		before := yamlFiles(dir)
		Expect(before).To(HaveLen(27))

		r := testbed("record", "--root", root, "--suite", "climate", "--variant", "trimmed", "--max-cost", "0.1")

		Expect(r.code).To(Equal(exitFailed), r.String())
		m := regexp.MustCompile(`stopped at --max-cost \$0\.1: \$[0-9.]+ spent; every cassette written before is kept; (\d+) scenario runs left unrecorded \(their cassettes as they were\): (.+)`).
			FindStringSubmatch(r.stderr)
		Expect(m).NotTo(BeNil(), r.String())
		left, _ := strconv.Atoi(m[1])
		Expect(left).To(BeNumerically(">", 0))
		Expect(left).To(BeNumerically("<", 27), "some were recorded before the cap")
		Expect(strings.Split(m[2], ", ")).To(HaveLen(left))
		Expect(r.stdout).To(ContainSubstring("over the recording's --max-cost"))

		after := yamlFiles(dir)
		Expect(after).To(HaveLen(27), "no cassette removed")
		for name, data := range before {
			// the stand-in answers the same: a recorded cassette is the
			// committed one again, and one left unrecorded is untouched
			Expect(string(after[name])).To(Equal(string(data)), name)
		}
		leftovers, err := filepath.Glob(filepath.Join(dir, ".*"))
		Expect(err).NotTo(HaveOccurred())
		Expect(leftovers).To(BeEmpty(), "no temporary file left behind")

		By("replaying what is there")
		again := testbed("run", "--root", root, "--suite", "climate", "--no-baseline")
		Expect(again.code).To(Equal(exitOK), again.String())
	})

	It("estimates with --dry-run and calls nothing", func() {
		root := projectOf("climate", "climate")
		dir := filepath.Join(root, "cassettes", "climate", "trimmed")
		before := yamlFiles(dir)
		r := testbed("record", "--root", root, "--suite", "climate", "--variant", "trimmed", "--dry-run", "--max-cost", "0.1")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(MatchRegexp(`climate/trimmed\s+openai/gpt-4\.1\s+27\s+71\s+\$[0-9.]+`))
		Expect(r.stdout).To(ContainSubstring("--max-cost $0.1 would stop the recording before its end"))
		Expect(yamlFiles(dir)).To(Equal(before))
	})
})

var _ = Describe("testbed record --provider against a loaded provider", func() {
	It("waits out its 429 and 529 with Retry-After, retries, and records what an unloaded provider answers", func() {
		root := project()
		srv, err := standin.New(standin.Options{Policies: standin.Policies()})
		Expect(err).NotTo(HaveOccurred())
		Expect(srv.Start()).To(Succeed())
		DeferCleanup(srv.Close)
		target, err := url.Parse(srv.URL())
		Expect(err).NotTo(HaveOccurred())
		forward := httputil.NewSingleHostReverseProxy(target)
		var limited atomic.Int32
		loaded := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch n := limited.Add(1); {
			case n == 1:
				w.Header().Set("retry-after-ms", "5") // OpenAI's finer header
				w.Header().Set("Retry-After", "1")
				http.Error(w, `{"error": {"message": "Rate limit reached", "type": "requests"}}`, http.StatusTooManyRequests)
			case n == 2:
				w.Header().Set("Retry-After", "0")
				http.Error(w, `{"error": {"message": "Overloaded"}}`, 529)
			default:
				forward.ServeHTTP(w, r)
			}
		}))
		DeferCleanup(loaded.Close)
		GinkgoT().Setenv("OPENAI_API_KEY", "sk-test-loaded-provider")
		Expect(os.RemoveAll(filepath.Join(root, "cassettes"))).To(Succeed())

		r := testbed("record", "--root", root, "--variant", "single-pass", "--scenario", "ac1-taiwan-sst",
			"--provider", "openai", "--model", "gemma3:4b", "--base-url", loaded.URL+"/v1", "--concurrency", "2", "--rpm", "600")

		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stderr).To(ContainSubstring("waited out 2 rate-limit or overload responses (429, 503, 529 with Retry-After) in 1 scenario runs"))
		files := yamlFiles(filepath.Join(root, "cassettes"))
		Expect(files).To(HaveLen(1))
		for name, data := range files {
			Expect(string(data)).NotTo(ContainSubstring("Rate limit reached"), name)
			Expect(string(data)).NotTo(ContainSubstring("Overloaded"), name)
			Expect(string(data)).NotTo(MatchRegexp(`code: (429|529)\b`), "the cassette holds no rate limiter's noise")
		}
		Expect(limited.Load()).To(BeNumerically(">", 2), "the calls after the waits went through")
	})
})

var _ = Describe("pricing with --prices", func() {
	It("prices a replay and a report file with the table given, and refuses a report that keeps no calls", func() {
		root := projectOf("climate", "climate")
		table := filepath.Join(root, "half.json")
		// gpt-4.1 at half its input price
		Expect(os.WriteFile(table, []byte(`{"gpt-4.1": {"litellm_provider": "openai", "mode": "chat", "input_cost_per_token": 1e-06, "output_cost_per_token": 8e-06}}`), 0o644)).To(Succeed())

		full := testbed("run", "--root", root, "--suite", "climate", "--variant", "trimmed", "--no-baseline", "--json", "--out", "")
		half := testbed("run", "--root", root, "--suite", "climate", "--variant", "trimmed", "--no-baseline", "--json", "--out", "", "--prices", table)
		Expect(full.code).To(Equal(exitOK), full.String())
		Expect(half.code).To(Equal(exitOK), half.String())
		spend := func(out string) (mean float64, priced int) {
			GinkgoHelper()
			var rep report.Report
			Expect(json.Unmarshal([]byte(out), &rep)).To(Succeed())
			v := rep.Suites[0].Variants[1]
			Expect(v.Name).To(Equal("trimmed"))
			return v.Summary.Cost.Mean, v.Summary.Cost.Priced
		}
		fullMean, n := spend(full.stdout)
		halfMean, m := spend(half.stdout)
		Expect(n).To(Equal(m))
		Expect(n).To(BeNumerically(">", 0))
		Expect(halfMean).To(BeNumerically("<", fullMean))
		Expect(halfMean).To(BeNumerically(">", fullMean/2), "output tokens kept their price")

		latest := filepath.Join(root, "latest.json")
		Expect(os.WriteFile(latest, []byte(full.stdout), 0o644)).To(Succeed())
		page := filepath.Join(root, "page.html")
		r := testbed("report", "--html", page, "--prices", table, "--root", root, latest)
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(mustRead(page)).To(ContainSubstring("priced with " + table))

		bad := testbed("run", "--root", root, "--suite", "climate", "--prices", filepath.Join(root, "scenarios", "climate.yaml"))
		Expect(bad.code).To(Equal(exitUsage), bad.String())
	})
})
