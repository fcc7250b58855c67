package main

import (
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"gopkg.in/yaml.v3"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/standin"
)

// recordedFile is the part of a cassette these specs read, parsed
// independently of package cassette.
type recordedFile struct {
	Interactions []struct {
		Request struct {
			URL     string              `yaml:"url"`
			Headers map[string][]string `yaml:"headers"`
		} `yaml:"request"`
	} `yaml:"interactions"`
	Provenance cassette.Provenance `yaml:"provenance"`
}

func parseCassette(name string, data []byte) recordedFile {
	GinkgoHelper()
	var f recordedFile
	Expect(yaml.Unmarshal(data, &f)).To(Succeed(), name)
	return f
}

// authorizations returns every value of every Authorization header in files.
func authorizations(files map[string][]byte) []string {
	GinkgoHelper()
	return headerValues(files, "Authorization")
}

// headerValues lists the values of the request header name in files'
// interactions.
func headerValues(files map[string][]byte, name string) []string {
	GinkgoHelper()
	var out []string
	for file, data := range files {
		for _, in := range parseCassette(file, data).Interactions {
			for k, vs := range in.Request.Headers {
				if strings.EqualFold(k, name) {
					out = append(out, vs...)
				}
			}
		}
	}
	return out
}

var _ = Describe("testbed record", func() {
	var root string

	BeforeEach(func() {
		root = project()
	})

	It("exits 4, the I/O error's code, naming the cassette, when it cannot write one, and keeps the others", func() {
		blocked := cassettePath(root, "single-pass", "ac1-taiwan-sst")
		Expect(os.Remove(blocked)).To(Succeed())
		Expect(os.Mkdir(blocked, 0o755)).To(Succeed()) // nothing can be renamed onto it, root or not
		r := testbed("record", "--root", root, "--suite", "odbchat", "--variant", "single-pass", "--scenario", "ac1-taiwan-sst")
		Expect(r.code).To(Equal(exitInternal), r.String())
		Expect(r.stderr).To(ContainSubstring("1 scenario runs were recorded but not written (odbchat/single-pass/ac1-taiwan-sst): could not write the cassette " + blocked))
		Expect(r.stderr).To(ContainSubstring("its previous cassette is kept"))
	})

	It("re-records against the stand-ins, byte for byte, what replays", func() {
		committed := yamlFiles(filepath.Join(root, "cassettes", "odbchat", "single-pass"))
		Expect(committed).To(HaveLen(31), "30 scenarios and one grader cassette (docs/judges.md)")
		baseline := yamlFiles(filepath.Join(root, "cassettes", "odbchat", "legacy"))
		Expect(os.RemoveAll(filepath.Join(root, "cassettes", "odbchat", "single-pass"))).To(Succeed())

		r := testbed("record", "--tables", "--root", root, "--suite", "odbchat", "--variant", "single-pass")

		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(ContainSubstring("(rule-based stand-in shaped like gemma3:4b's API)"))
		Expect(r.stderr).To(ContainSubstring("recorded 30 cassettes under " + root + "/cassettes"))
		Expect(yamlFiles(filepath.Join(root, "cassettes", "odbchat", "legacy"))).To(Equal(baseline), "a filtered recording leaves other variants alone")
		rerecorded := yamlFiles(filepath.Join(root, "cassettes", "odbchat", "single-pass"))
		Expect(rerecorded).To(HaveLen(31))
		for name, data := range committed {
			Expect(rerecorded).To(HaveKey(name))
			Expect(string(rerecorded[name])).To(Equal(string(data)), name)
		}

		By("replaying what it recorded, beside the baseline it is compared to")
		again := testbed("run", "--root", root, "--suite", "odbchat", "--variant", "single-pass")
		Expect(again.code).To(Equal(exitOK), again.String())
		Expect(again.stdout).To(ContainSubstring("PASS: all 60 scenarios"))
	})

	It("records one scenario and leaves the others alone", func() {
		other := mustRead(cassettePath(root, "legacy", "ac2-hualien-point"))
		target := cassettePath(root, "legacy", "ac1-taiwan-sst")
		before := mustRead(target)
		Expect(os.WriteFile(target, []byte("not a cassette"), 0o644)).To(Succeed())

		r := testbed("record", "--root", root, "--variant", "legacy", "--scenario", "ac1-taiwan-sst")

		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stderr).To(ContainSubstring("recorded 1 cassette "))
		Expect(r.stdout).To(HaveSuffix("\nPASS: all 1 scenario and 1 threshold passed, judging 1 suite, 1 variant, 1 run and 2 model calls (3 of 7 checks judged model behaviour against a stand-in)\n"), "the verdict of what was recorded, last, as a run states it")
		Expect(mustRead(target)).To(Equal(before))
		Expect(mustRead(cassettePath(root, "legacy", "ac2-hualien-point"))).To(Equal(other))
		st, err := os.Stat(target)
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Mode().Perm()).To(Equal(os.FileMode(0o644)), "readable by the team, as git checks it out")
	})

	It("exits 6, not 1, when it recorded every cassette but expectations fail", func() {
		replace(filepath.Join(root, "scenarios", "odbchat.yaml"), `contains: ["2025-11-06", "26.4 °C", "+0.21 °C"]`, `contains: ["no such answer"]`, 1)

		r := testbed("record", "--root", root, "--variant", "single-pass", "--scenario", "ac1-taiwan-sst")

		Expect(r.code).To(Equal(exitRecordedFailing), r.String())
		Expect(exitRecordedFailing).To(Equal(6), "the documented code")
		Expect(r.stderr).To(ContainSubstring("recorded 1 cassette; 1 scenario fails the expectations"))
		Expect(r.stdout).To(ContainSubstring("\nFAIL: 1 of 1 scenario, 1 of 3 thresholds failed, judging 1 suite"))
		Expect(cassettePath(root, "single-pass", "ac1-taiwan-sst")).To(BeAnExistingFile())

		By("with --record-missing, which wrote what the cassettes lacked")
		r = testbed("record", "--root", root, "--variant", "single-pass", "--scenario", "ac1-taiwan-sst", "--record-missing")
		Expect(r.code).To(Equal(exitRecordedFailing), r.String())
		Expect(r.stderr).To(ContainSubstring("recorded what the cassettes lacked; 1 scenario fails the expectations"))
	})

	It("says which runs it did not record, since they ended in an error, and that recording again writes nothing until the error is gone", func() {
		odbchatAs(root, "broken", "  command: [sh, -c, 'read l; echo \"config missing\" >&2; exit 3']\n")
		before := mustRead(cassettePath(root, "legacy", "ac1-taiwan-sst"))

		r := testbed("record", "--root", root, "--suite", "broken", "--variant", "legacy", "--scenario", "ac1-taiwan-sst")

		Expect(r.code).To(Equal(exitFailed), r.String())
		Expect(r.stderr).To(ContainSubstring("recorded 0 cassettes under " + root + "/cassettes\n" +
			"not recorded, 1 scenario runs that ended in an error (broken/legacy/ac1-taiwan-sst): a run that fails writes no cassette and keeps the one it had; fix what its error says (above), then record it again\n"))
		Expect(r.stdout).To(ContainSubstring("config missing"))
		Expect(mustRead(filepath.Join(root, "cassettes", "broken", "legacy", "ac1-taiwan-sst.yaml"))).To(Equal(before), "the cassette it had is kept")
	})

	It("writes nothing with --live", func() {
		Expect(os.RemoveAll(filepath.Join(root, "cassettes"))).To(Succeed())

		r := testbed("record", "--tables", "--root", root, "--live", "--variant", "single-pass", "--scenario", "ac1-taiwan-sst")

		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(ContainSubstring("mode live"))
		Expect(r.stderr).NotTo(ContainSubstring("recorded"))
		Expect(filepath.Join(root, "cassettes")).NotTo(BeAnExistingFile())
	})

	Describe("secrets", func() {
		const key = "sk-testsecret0123456789abcd"

		BeforeEach(func() {
			for _, v := range cassette.KeyVariables() {
				GinkgoT().Setenv(v, "")
			}
			GinkgoT().Setenv("OPENAI_API_KEY", key)
		})

		It("records against the stand-ins with a key in the environment and writes it nowhere", func() {
			Expect(os.RemoveAll(filepath.Join(root, "cassettes"))).To(Succeed())

			r := testbed("record", "--root", root, "--suite", "odbchat")

			Expect(r.code).To(Equal(exitOK), r.String())
			files := yamlFiles(filepath.Join(root, "cassettes"))
			Expect(files).To(HaveLen(62), "60 scenario runs and the two variants' grader cassettes")
			for name, data := range files {
				Expect(string(data)).NotTo(ContainSubstring(key), name)
			}
			auth := authorizations(files)
			Expect(auth).NotTo(BeEmpty(), "every model call carries an Authorization header")
			Expect(auth).To(HaveEach(Equal(cassette.Redacted)))

			check := testbed("cassettes", "check", "--dir", filepath.Join(root, "cassettes"))
			Expect(check.code).To(Equal(exitOK), check.String())
		})

		It("keeps out the headers the OpenAI SDK adds from the environment by itself", func() {
			custom := map[string]string{"X-Portkey-Api-Key": "pk-live-Zq8tR2mVx7LpK4nW", "Cf-Access-Client-Secret": "cf-Tq4Vn8Rz2Lx6Wp0Ys3Kd",
				"X-Api-Token": "tok-Hf1Jb5Mc9Ga2Lm9Np4", "X-Team": "routing-blue-7Rs8Tv1Wx"}
			var lines []string
			for k, v := range custom {
				lines = append(lines, k+": "+v)
			}
			GinkgoT().Setenv("OPENAI_CUSTOM_HEADERS", strings.Join(lines, "\n"))
			GinkgoT().Setenv("OPENAI_ORG_ID", "org-Xy7Qp2Lm9Nv4Rs8T")
			GinkgoT().Setenv("OPENAI_PROJECT_ID", "proj_Bc7De9Fg3Hj5Kl")
			Expect(os.RemoveAll(filepath.Join(root, "cassettes"))).To(Succeed())

			r := testbed("record", "--root", root, "--suite", "odbchat", "--variant", "single-pass", "--scenario", "ac1-taiwan-sst")

			Expect(r.code).To(Equal(exitOK), r.String())
			files := yamlFiles(filepath.Join(root, "cassettes"))
			Expect(files).To(HaveLen(1))
			for name, data := range files {
				for _, v := range append(slices.Collect(maps.Values(custom)), "org-Xy7Qp2Lm9Nv4Rs8T", "proj_Bc7De9Fg3Hj5Kl") {
					Expect(string(data)).NotTo(ContainSubstring(v), name)
				}
				for _, in := range parseCassette(name, data).Interactions {
					if !strings.Contains(in.Request.URL, "/chat/completions") {
						continue
					}
					Expect(in.Request.Headers).To(HaveKeyWithValue("X-Portkey-Api-Key", []string{cassette.Redacted}))
					Expect(in.Request.Headers).To(HaveKeyWithValue("Cf-Access-Client-Secret", []string{cassette.Redacted}))
					Expect(in.Request.Headers).To(HaveKeyWithValue("X-Api-Token", []string{cassette.Redacted}))
					Expect(in.Request.Headers).NotTo(HaveKey("X-Team"))
					Expect(in.Request.Headers).NotTo(HaveKey("Openai-Organization"))
					Expect(in.Request.Headers).NotTo(HaveKey("Openai-Project"))
				}
			}
			check := testbed("cassettes", "check", "--dir", filepath.Join(root, "cassettes"))
			Expect(check.code).To(Equal(exitOK), check.String())
		})

		// The README's "OPENAI_API_KEY=… testbed record --provider openai
		// --model …" records a real model against the fixture upstreams. The
		// "real" provider here is a stand-in on a loopback base URL, so the
		// spec stays offline while the key is really sent.
		DescribeTable("records a real provider against the fixture upstreams, with its key redacted",
			func(provider, keyEnv, model, basePath, keyHeader string) {
				GinkgoT().Setenv(keyEnv, key)
				srv, err := standin.New(standin.Options{Policies: standin.Policies()})
				Expect(err).NotTo(HaveOccurred())
				Expect(srv.Start()).To(Succeed())
				DeferCleanup(srv.Close)
				Expect(os.RemoveAll(filepath.Join(root, "cassettes"))).To(Succeed())

				r := testbed("record", "--root", root, "--variant", "single-pass", "--scenario", "ac1-taiwan-sst",
					"--provider", provider, "--model", model, "--base-url", srv.URL()+basePath)

				Expect(r.code).To(Equal(exitOK), r.String())
				files := yamlFiles(filepath.Join(root, "cassettes"))
				Expect(files).To(HaveLen(1))
				for name, data := range files {
					Expect(string(data)).NotTo(ContainSubstring(key), name)
					f := parseCassette(name, data)
					Expect(f.Provenance.StandIn).To(BeFalse())
					Expect(f.Provenance.Provider).To(Equal(provider))
					Expect(f.Provenance.Model).To(Equal(model))
					Expect(f.Provenance.Upstream).To(Equal("fixtures"))
					hosts := map[string]bool{}
					for _, in := range f.Interactions {
						u, err := url.Parse(in.Request.URL)
						Expect(err).NotTo(HaveOccurred())
						hosts[u.Host] = true
					}
					Expect(hosts).To(HaveKey("eco.odb.ntu.edu.tw"))
				}
				Expect(headerValues(files, keyHeader)).To(ConsistOf(cassette.Redacted))
			},
			Entry("OpenAI", "openai", "OPENAI_API_KEY", "gemma3:4b", "/v1", "Authorization"),
			Entry("Anthropic", "anthropic", "ANTHROPIC_API_KEY", "claude-haiku-4-5", "", "X-Api-Key"),
		)

		// recordReal records single-pass/ac1-taiwan-sst as a real OpenAI model
		// (gpt-4.1-mini, a stand-in on loopback), the variant's endpoint
		// given the extra keys (api: responses), and says what record did.
		recordReal := func(extra string) (*standin.Server, result) {
			srv, err := standin.New(standin.Options{Policies: standin.Policies()})
			Expect(err).NotTo(HaveOccurred())
			Expect(srv.Start()).To(Succeed())
			DeferCleanup(srv.Close)
			suite := filepath.Join(root, "scenarios", "odbchat.yaml")
			yaml := strings.Replace(mustRead(suite), "    config: {router: single-pass}\n",
				"    config: {router: single-pass}\n    endpoint: {provider: openai, base_url: \"http://localhost:11434/v1\", model: gemma3:4b, "+extra+"}\n", 1)
			Expect(os.WriteFile(suite, []byte(yaml), 0o644)).To(Succeed())
			Expect(os.RemoveAll(filepath.Join(root, "cassettes"))).To(Succeed())
			return srv, testbed("record", "--root", root, "--variant", "single-pass", "--scenario", "ac1-taiwan-sst",
				"--provider", "openai", "--model", "gpt-4.1-mini", "--base-url", srv.URL()+"/v1")
		}

		It("records a real OpenAI model over the Responses API when the variant speaks it", func() {
			srv, r := recordReal("api: responses")
			Expect(r.code).To(Equal(exitOK), r.String())
			files := yamlFiles(filepath.Join(root, "cassettes"))
			Expect(files).To(HaveLen(1))
			var models []string
			for name, data := range files {
				for _, in := range parseCassette(name, data).Interactions {
					if strings.HasPrefix(in.Request.URL, srv.URL()) {
						models = append(models, in.Request.URL)
					}
				}
			}
			Expect(models).NotTo(BeEmpty())
			Expect(models).To(HaveEach(Equal(srv.URL() + "/v1/responses")))
		})

		It("records a streaming variant streamed with a real model, and replays the cassette offline as that model", func() {
			GinkgoT().Setenv("OPENAI_API_KEY", key)
			srv, r := recordReal("stream: true")
			Expect(r.code).To(Equal(exitOK), r.String())
			path := filepath.Join(root, "cassettes", "odbchat", "single-pass", "ac1-taiwan-sst.yaml")
			Expect(mustRead(path)).To(ContainSubstring(`"stream":true`), "the variant streams")
			srv.Close() // the replay calls nothing

			GinkgoT().Setenv("OPENAI_API_KEY", "")
			out := filepath.Join(root, "run.json")
			r = testbed("run", "--root", root, "--suite", "odbchat", "--variant", "single-pass", "--scenario", "ac1-taiwan-sst", "--no-baseline", "--out", "", "--json")
			Expect(os.WriteFile(out, []byte(r.stdout), 0o644)).To(Succeed())
			rep := mustReport(out)
			var sc *report.Scenario
			for _, v := range rep.Suites[0].Variants {
				if v.Name == "single-pass" {
					sc = &v.Scenarios[0]
				}
			}
			Expect(sc).NotTo(BeNil(), r.String())
			Expect(sc.Verdict).To(Equal(report.VerdictPass), "%s\n%s", sc.Error, r.stderr)
			Expect(sc.Metrics.Streams).NotTo(BeEmpty(), "replayed as streams")
			Expect(rep.Suites[0].Variants[slices.IndexFunc(rep.Suites[0].Variants, func(v report.Variant) bool { return v.Name == "single-pass" })].Provenance).To(Equal("replayed from openai gpt-4.1-mini"))
		})

		DescribeTable("refuses a real provider it cannot use",
			func(env string, args []string, want string) {
				GinkgoT().Setenv("OPENAI_API_KEY", env)
				GinkgoT().Setenv("ANTHROPIC_API_KEY", "")
				r := testbed(append([]string{"record", "--root", root}, args...)...)
				Expect(r.code).To(Equal(exitUsage), r.String())
				Expect(r.stderr).To(ContainSubstring(want))
				Expect(filepath.Join(root, "cassettes", "odbchat", "single-pass", "ac1-taiwan-sst.yaml")).To(BeAnExistingFile())
			},
			Entry("without a key", "", []string{"--provider", "openai", "--model", "gpt-4.1-mini"}, "--provider openai needs a key in OPENAI_API_KEY"),
			Entry("without a model", key, []string{"--provider", "openai"}, "--provider openai needs --model"),
			Entry("an unknown provider", key, []string{"--provider", "mistral", "--model", "m"}, `--provider "mistral": want openai, gemini, anthropic`),
			Entry("anthropic without its key", key, []string{"--provider", "anthropic", "--model", "claude-haiku-4-5"}, "--provider anthropic needs a key in ANTHROPIC_API_KEY"),
			Entry("ollama without a model (it needs no key)", "", []string{"--provider", "ollama"}, "--provider ollama needs --model"),
			Entry("ollama for a built-in agent (it has no client for Ollama's native API)", "", []string{"--provider", "ollama", "--model", "qwen3:14b"},
				"--provider ollama: only an agent outside testbed speaks Ollama's native API, and suite odbchat's agent odbchat is built in"),
			Entry("ollama as the judge", key, []string{"--judge-provider", "ollama", "--judge-model", "qwen3:14b"}, "--judge-provider ollama: a judge is called through testbed's own clients"),
		)
	})
})

var _ = Describe("a recording killed mid-write", func() {
	It("leaves temporaries that neither a run nor the next recording trips on, and git ignores", func() {
		root := project()
		dir := filepath.Join(root, "cassettes", "odbchat", "single-pass")
		// What go-vcr's working file and an atomic write's temporary look like
		// when their process is killed.
		left := []string{filepath.Join(dir, ".ac1-taiwan-sst.yaml.123456.recording.yaml"), filepath.Join(dir, ".ac2-hualien-point.yaml.987654.tmp")}
		for _, p := range left {
			Expect(os.WriteFile(p, []byte(mustRead(cassettePath(root, "single-pass", "ac1-taiwan-sst"))), 0o644)).To(Succeed())
		}

		r := testbed("run", "--root", root, "--out", "", "--baseline", "", "--quiet")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).NotTo(ContainSubstring("belong to no scenario"))

		rec := testbed("record", "--root", root, "--variant", "single-pass", "--scenario", "ac1-taiwan-sst")
		Expect(rec.code).To(Equal(exitOK), rec.String())
		for _, p := range left {
			Expect(p).NotTo(BeAnExistingFile(), "the next recording of the suite cleans them up")
		}

		for _, p := range []string{"cassettes/odbchat/single-pass/.ac1-taiwan-sst.yaml.123456.recording.yaml",
			"cassettes/odbchat/single-pass/.ac2-hualien-point.yaml.987654.tmp", "cassettes/odbchat/.record.lock",
			"reports/.latest.lock", "reports/.latest.json.42.tmp"} {
			out, err := exec.Command("git", "-C", repoRoot, "check-ignore", "--no-index", "-q", p).CombinedOutput()
			Expect(err).NotTo(HaveOccurred(), "git does not ignore %s: %s", p, out)
		}
	})
})

var _ = Describe("testbed record --record-missing", func() {
	It("re-records the call a changed input changes, replays the rest, and the suite replays clean", func() {
		root := project()
		path := cassettePath(root, "single-pass", "ac1-taiwan-sst")
		before := parseCassette(path, must(os.ReadFile(path)))
		// The router's call, then the GHRSST MCP session: initialize,
		// notifications/initialized, tools/call, DELETE.
		Expect(before.Interactions).To(HaveLen(5))
		replace(filepath.Join(root, "scenarios", "odbchat.yaml"), `input: "現在台灣周遭海溫多少？"`, `input: "請問現在台灣周遭海溫多少？"`, 1)

		stale := testbed("run", "--root", root, "--suite", "odbchat", "--variant", "single-pass", "--scenario", "ac1-taiwan-sst", "--out", "")
		Expect(stale.code).To(Equal(exitStale), stale.String())

		// Both variants: the baseline's cassette missed too.
		r := testbed("record", "--root", root, "--suite", "odbchat", "--scenario", "ac1-taiwan-sst", "--record-missing")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stderr).To(MatchRegexp(`record-missing: recorded \d+ calls into 2 cassettes; 0 replayed whole`))
		Expect(r.stderr).To(ContainSubstring("odbchat/single-pass/ac1-taiwan-sst: recorded 1, dropped 1 unused (interaction 0: POST http://localhost:11434/v1/chat/completions)"))

		after := parseCassette(path, must(os.ReadFile(path)))
		Expect(after.Interactions).To(HaveLen(5))
		Expect(after.Interactions[1:]).To(Equal(before.Interactions[1:]), "the upstream calls were replayed, not recorded again")

		again := testbed("run", "--root", root, "--suite", "odbchat", "--scenario", "ac1-taiwan-sst", "--out", "")
		Expect(again.code).To(Equal(exitOK), again.String())
	})

	It("leaves a cassette that misses nothing byte for byte as it was", func() {
		root := project()
		committed := yamlFiles(filepath.Join(root, "cassettes", "odbchat", "legacy"))
		r := testbed("record", "--root", root, "--suite", "odbchat", "--variant", "legacy", "--record-missing")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stderr).To(ContainSubstring("record-missing: recorded 0 calls into 0 cassettes; 30 replayed whole, unchanged"))
		Expect(yamlFiles(filepath.Join(root, "cassettes", "odbchat", "legacy"))).To(Equal(committed))
	})

	It("refuses --live with it", func() {
		r := testbed("record", "--root", project(), "--suite", "odbchat", "--live", "--record-missing")
		Expect(r.code).To(Equal(exitUsage), r.String())
	})
})

// must is v, failing the spec on err.
func must[T any](v T, err error) T {
	GinkgoHelper()
	Expect(err).NotTo(HaveOccurred())
	return v
}

var _ = Describe("the committed cassettes", func() {
	It("are what recording every committed suite against the stand-ins writes today, byte for byte (a stand-in or fixture change not re-recorded fails here)", func() {
		root := GinkgoT().TempDir()
		for _, dir := range []string{"scenarios", "fixtures"} {
			Expect(os.CopyFS(filepath.Join(root, dir), os.DirFS(filepath.Join(repoRoot, dir)))).To(Succeed())
		}

		r := testbed("record", "--root", root)
		Expect(r.code).To(Equal(exitOK), r.String())
		By("grading the pairs of variants the committed pairwise grades judge")
		pairs, err := filepath.Glob(filepath.Join(repoRoot, "cassettes", "*.pairwise", "*.vs.*"))
		Expect(err).NotTo(HaveOccurred())
		Expect(pairs).NotTo(BeEmpty())
		for _, dir := range pairs {
			suite := strings.TrimSuffix(filepath.Base(filepath.Dir(dir)), ".pairwise")
			base, head, _ := strings.Cut(filepath.Base(dir), ".vs.")
			r := testbed("compare", "--root", root, "--suite", suite, "--base", base, "--head", head, "--judge", "--record-missing")
			Expect(r.code).To(Equal(exitOK), r.String())
		}

		committed := yamlFiles(filepath.Join(repoRoot, "cassettes"))
		recorded := yamlFiles(filepath.Join(root, "cassettes"))
		Expect(slices.Sorted(maps.Keys(recorded))).To(Equal(slices.Sorted(maps.Keys(committed))), "a cassette no suite records, or a suite's scenario without one")
		var stale []string
		for name, data := range committed {
			if string(recorded[name]) != string(data) {
				stale = append(stale, name)
			}
		}
		slices.Sort(stale)
		Expect(stale).To(BeEmpty(), "these cassettes differ from what the stand-ins answer today; re-record them with make record, then bless the baseline if the gate asks")
	})
})
