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
		Expect(r.stdout).To(MatchRegexp(`climate/trimmed\s+openai/gpt-4\.1\s+27\s+71\s+12\s+0\s+\$[0-9.]+`), "71 chat and 12 embeddings requests, no grader's")
		Expect(r.stdout).To(ContainSubstring("--max-cost $0.1 would stop the recording before its end"))
		Expect(yamlFiles(dir)).To(Equal(before))
	})

	It("estimates the rubric grader's calls too, at the judge's model, and says which it could not price", func() {
		root := projectOf("climate-findings", "climate")
		r := testbed("record", "--root", root, "--suite", "climate-findings", "--dry-run")
		Expect(r.code).To(Equal(exitOK), r.String())
		m := regexp.MustCompile(`climate-findings/trimmed\s+\S+\s+5\s+\d+\s+\d+\s+8\s+\$([0-9.]+)\s`).FindStringSubmatch(r.stdout)
		Expect(m).NotTo(BeNil(), "8 grader calls in the grader cassettes: %s", r.stdout)
		withGrades, err := strconv.ParseFloat(m[1], 64)
		Expect(err).NotTo(HaveOccurred())

		r = testbed("record", "--root", root, "--suite", "climate-findings", "--dry-run", "--judge-provider", "openai", "--judge-model", "mystery-grader")
		Expect(r.code).To(Equal(exitOK), r.String())
		m = regexp.MustCompile(`climate-findings/trimmed\s+\S+\s+5\s+\d+\s+\d+\s+8\s+\$([0-9.]+) \(\+8 grader calls unpriced\)`).FindStringSubmatch(r.stdout)
		Expect(m).NotTo(BeNil(), r.stdout)
		without, err := strconv.ParseFloat(m[1], 64)
		Expect(err).NotTo(HaveOccurred())
		Expect(without).To(BeNumerically("<", withGrades), "the grader's calls at gpt-4.1-mini are part of the first estimate")
	})

	It("fails a cost gate with nothing priced now, saying how to price it, not to bless it", func() {
		root := projectOf("climate", "climate")
		suite := filepath.Join(root, "scenarios", "climate.yaml")
		replace(suite, "prices:\n", "gate: {cost_mean: 2%}\nprices:\n", 1)
		// Its cost thresholds would fail first: the gate alone is judged.
		replace(suite, `    - "cost_mean < $0.01"            # dollars per scenario run at gpt-4.1's price (docs/cost.md)
    - "cost_total < baseline"
`, "", 1)
		bless := testbed("baseline", "bless", "--root", root, "--suite", "climate")
		Expect(bless.code).To(Equal(exitOK), bless.String())
		replace(suite, "models: {openai/gpt-4.1: gpt-4.1}", "models: {openai/gpt-4.1: no-such-row}", 1)
		r := testbed("run", "--root", root, "--suite", "climate", "--out", "")
		Expect(r.code).To(Equal(exitFailed), r.String())
		Expect(r.stderr).To(ContainSubstring("could not be evaluated"))
		Expect(r.stderr).To(ContainSubstring("pass --prices FILE, or map the model in the suite's prices: models"))
		Expect(r.stderr).NotTo(ContainSubstring("if they are intended, run: testbed baseline bless"), "blessing would not price anything")
	})

	It("says an estimate of nothing priced is unpriced, never $0", func() {
		root := projectOf("climate", "climate")
		replace(filepath.Join(root, "scenarios", "climate.yaml"), "models: {openai/gpt-4.1: gpt-4.1}", "models: {openai/gpt-4.1: no-such-row}", 1)
		r := testbed("record", "--root", root, "--suite", "climate", "--variant", "trimmed", "--dry-run")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(ContainSubstring("unpriced in all: no model of the 1 suite and variant pairs is in the price table"))
		Expect(r.stdout).NotTo(ContainSubstring("at most $0 in all"))
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
	It("prices a replay and a report file with the table given, and refuses a table that does not parse", func() {
		root := projectOf("climate", "climate")
		table := filepath.Join(root, "half.json")
		// gpt-4.1 at half its input price, the embeddings at theirs
		Expect(os.WriteFile(table, []byte(`{"gpt-4.1": {"litellm_provider": "openai", "mode": "chat", "input_cost_per_token": 1e-06, "output_cost_per_token": 8e-06},
			"text-embedding-3-small": {"litellm_provider": "openai", "mode": "embedding", "input_cost_per_token": 2e-08, "output_cost_per_token": 0}}`), 0o644)).To(Succeed())

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

var _ = Describe("pricing the rubric grader's calls with --prices", func() {
	It("prices them again in a report file, as the agent's, from the tokens the report keeps", func() {
		root := projectOf("climate-findings", "climate")
		run := testbed("run", "--root", root, "--suite", "climate-findings", "--no-baseline", "--json", "--out", "")
		Expect(run.code).To(Equal(exitOK), run.String())
		var rep report.Report
		Expect(json.Unmarshal([]byte(run.stdout), &rep)).To(Succeed())
		g := rep.Suites[0].Variants[0].Summary.Grading
		Expect(g).NotTo(BeNil())
		Expect(g.Calls).To(BeNumerically(">", 0))
		Expect(g.Unpriced).To(BeFalse(), "gpt-4.1-mini has a price")
		latest := filepath.Join(root, "latest.json")
		Expect(os.WriteFile(latest, []byte(run.stdout), 0o644)).To(Succeed())

		// the judge's gpt-4.1-mini at a cent an input token, no output
		table := filepath.Join(root, "dear-judge.json")
		Expect(os.WriteFile(table, []byte(`{"gpt-4.1": {"litellm_provider": "openai", "mode": "chat", "input_cost_per_token": 2e-06, "output_cost_per_token": 8e-06},
			"gpt-4.1-mini": {"litellm_provider": "openai", "mode": "chat", "input_cost_per_token": 0.01, "output_cost_per_token": 0},
			"text-embedding-3-small": {"litellm_provider": "openai", "mode": "embedding", "input_cost_per_token": 2e-08, "output_cost_per_token": 0}}`), 0o644)).To(Succeed())
		page := filepath.Join(root, "page.html")
		r := testbed("report", "--html", page, "--prices", table, "--root", root, latest)
		Expect(r.code).To(Equal(exitOK), r.String())
		dear := report.USD(float64(g.InputTokens) * 0.01)
		Expect(mustRead(page)).To(ContainSubstring(`<td class="num">`+dear+`</td>`), "the grading table at the table's price, not the run's %s", report.USD(g.CostUSD))
		Expect(mustRead(page)).NotTo(ContainSubstring(`<td class="num">` + report.USD(g.CostUSD) + `</td>`))
	})
})

var _ = Describe("embeddings calls in the cost", func() {
	// embedTokens sums the provider-reported tokens of the embeddings
	// responses in a variant's cassettes: the figures to price by hand.
	embedTokens := func(dir string) (tokens, calls int) {
		GinkgoHelper()
		usage := regexp.MustCompile(`"model":"text-embedding-3-small","object":"list","usage":\{"prompt_tokens":(\d+)`)
		for name, data := range yamlFiles(dir) {
			for _, m := range usage.FindAllStringSubmatch(string(data), -1) {
				n, err := strconv.Atoi(m[1])
				Expect(err).NotTo(HaveOccurred(), name)
				tokens, calls = tokens+n, calls+1
			}
		}
		return tokens, calls
	}

	It("prices the climate advisor's embeddings from their reported usage, beside its chat calls", func() {
		root := projectOf("climate", "climate")
		tokens, calls := embedTokens(filepath.Join(root, "cassettes", "climate", "trimmed"))
		Expect(calls).To(Equal(12))
		r := testbed("run", "--root", root, "--suite", "climate", "--variant", "trimmed", "--no-baseline", "--json", "--out", "")
		Expect(r.code).To(Equal(exitOK), r.String())
		var rep report.Report
		Expect(json.Unmarshal([]byte(r.stdout), &rep)).To(Succeed())
		v := rep.Suites[0].Variants[variantIndex(rep.Suites[0].Variants, "trimmed")]
		c := v.Summary.Cost
		Expect(c.EmbedCalls).To(Equal(12))
		// text-embedding-3-small at $0.02 per million tokens
		Expect(c.Embed).To(BeNumerically("~", float64(tokens)*0.02e-6, 1e-12))
		Expect(c.Counted).To(BeZero(), "every call priced from the provider's usage")
		embeds, embedUSD := 0, 0.0
		for _, sc := range v.Scenarios {
			embeds += sc.Metrics.EmbedCalls
			embedUSD += sc.Metrics.EmbedCostUSD
			for _, e := range sc.Events {
				if e.Embed != nil {
					Expect(e.Embed.Cost).NotTo(BeNil())
					Expect(e.Embed.Cost.From).To(Equal("reported"))
					Expect(e.Embed.Reported).NotTo(BeNil())
					Expect(e.Embed.Formats).To(Equal([]string{"base64"}), "the encoding the adapter asks for")
					Expect(e.Embed.Dimensions).To(Equal(64), "the dimensions the climate agent's embeddings endpoint asks for")
				}
			}
		}
		Expect(embeds).To(Equal(12))
		Expect(embedUSD).To(BeNumerically("~", c.Embed, 1e-12))

		text := testbed("run", "--root", root, "--suite", "climate", "--variant", "trimmed", "--no-baseline", "--tables", "--out", "")
		Expect(text.stdout).To(ContainSubstring("of the total, embeddings"))
		Expect(text.stdout).To(ContainSubstring(report.USD(c.Embed) + " in 12 calls"))
	})

	It("prices one scenario run with show --prices", func() {
		root := projectOf("climate", "climate")
		table := filepath.Join(root, "dear.json")
		Expect(os.WriteFile(table, []byte(`{"gpt-4.1": {"litellm_provider": "openai", "mode": "chat", "input_cost_per_token": 1, "output_cost_per_token": 0},
			"text-embedding-3-small": {"litellm_provider": "openai", "mode": "embedding", "input_cost_per_token": 0, "output_cost_per_token": 0}}`), 0o644)).To(Succeed())
		usd := func(args ...string) float64 {
			GinkgoHelper()
			r := testbed(append([]string{"show", "climate/trimmed/product-upload", "--root", root, "--json"}, args...)...)
			Expect(r.code).To(Equal(exitOK), r.String())
			var run struct {
				Events []struct {
					LLM *struct {
						Cost *struct{ USD float64 }
					}
				}
			}
			Expect(json.Unmarshal([]byte(r.stdout), &run)).To(Succeed())
			total := 0.0
			for _, e := range run.Events {
				if e.LLM != nil && e.LLM.Cost != nil {
					total += e.LLM.Cost.USD
				}
			}
			return total
		}
		// $1 an input token: the cost is the input tokens the provider
		// reported, a figure far above gpt-4.1's own.
		Expect(usd()).To(BeNumerically("<", 1))
		Expect(usd("--prices", table)).To(BeNumerically(">", 100))
	})

	It("re-prices two report files with compare --prices, a blessed baseline among them, and shows the deltas", func() {
		root := projectOf("climate", "climate")
		tokens, _ := embedTokens(filepath.Join(root, "cassettes", "climate", "trimmed"))
		head := filepath.Join(root, "head.json")
		base := filepath.Join(root, "base.json")
		r := testbed("run", "--root", root, "--suite", "climate", "--no-baseline", "--json", "--out", "")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(os.WriteFile(head, []byte(r.stdout), 0o644)).To(Succeed())
		bless := testbed("baseline", "bless", "--root", root, "--out", base)
		Expect(bless.code).To(Equal(exitOK), bless.String())
		table := filepath.Join(root, "dear.json")
		// embeddings at $1 per million tokens, fifty times their price
		Expect(os.WriteFile(table, []byte(`{"gpt-4.1": {"litellm_provider": "openai", "mode": "chat", "input_cost_per_token": 2e-06, "output_cost_per_token": 8e-06},
			"text-embedding-3-small": {"litellm_provider": "openai", "mode": "embedding", "input_cost_per_token": 1e-06, "output_cost_per_token": 0}}`), 0o644)).To(Succeed())

		spend := func(args ...string) map[string][2]report.Spend {
			GinkgoHelper()
			r := testbed(append([]string{"compare", "--root", root, "--json"}, args...)...)
			Expect(r.code).To(Equal(exitOK), r.String())
			var out struct{ Comparisons []report.Comparison }
			Expect(json.Unmarshal([]byte(r.stdout), &out)).To(Succeed())
			got := map[string][2]report.Spend{}
			for _, c := range out.Comparisons {
				got[strings.TrimPrefix(c.Head, head+":")] = [2]report.Spend{c.BaseSummary.Cost, c.HeadSummary.Cost}
			}
			return got
		}
		before := spend(base, head)
		after := spend(base, head, "--prices", table)
		for _, side := range after["trimmed"] {
			Expect(side.EmbedCalls).To(Equal(12))
			Expect(side.Embed).To(BeNumerically("~", float64(tokens)*1e-6, 1e-12))
			Expect(side.Priced).To(Equal(before["trimmed"][0].Priced))
		}
		Expect(before["trimmed"][0].Embed).To(BeNumerically("~", float64(tokens)*0.02e-6, 1e-12))
		Expect(after["trimmed"][1].Total-before["trimmed"][1].Total).To(BeNumerically("~", float64(tokens)*(1e-6-0.02e-6), 1e-9), "only the embeddings' price changed")

		text := testbed("compare", "--root", root, base, head, "--prices", table)
		Expect(text.code).To(Equal(exitOK), text.String())
		Expect(text.stdout).To(ContainSubstring("both priced with " + table))
		Expect(text.stdout).To(MatchRegexp(`of it, embeddings \(USD\)\s+\$[0-9.]+\s+\$[0-9.]+\s+=`))

		By("refusing a report that keeps neither its calls' usage nor its trace, as baselines blessed before did")
		var old map[string]any
		Expect(json.Unmarshal([]byte(mustRead(base)), &old)).To(Succeed())
		for _, s := range old["suites"].([]any) {
			for _, v := range s.(map[string]any)["variants"].([]any) {
				for _, sc := range v.(map[string]any)["scenarios"].([]any) {
					delete(sc.(map[string]any)["metrics"].(map[string]any), "calls")
				}
			}
		}
		data, err := json.Marshal(old)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(base, data, 0o644)).To(Succeed())
		refused := testbed("compare", "--root", root, base, head, "--prices", table)
		Expect(refused.code).To(Equal(exitUsage), refused.String())
		Expect(refused.stderr).To(ContainSubstring("replay with --prices instead: testbed run --prices FILE"))
	})
})
