package runner_test

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"gopkg.in/yaml.v3"

	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/trace"
)

// recorded is the part of a cassette file these specs read, parsed
// independently of package cassette.
type recorded struct {
	Interactions []struct {
		Request struct {
			URL     string              `yaml:"url"`
			Method  string              `yaml:"method"`
			Headers map[string][]string `yaml:"headers"`
		} `yaml:"request"`
		Response struct {
			Duration string `yaml:"duration"`
		} `yaml:"response"`
	} `yaml:"interactions"`
}

func readCassette(path string) recorded {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	var c recorded
	Expect(yaml.Unmarshal(data, &c)).To(Succeed(), path)
	return c
}

// duration is the sum of the recorded durations of c's interactions.
func (c recorded) duration() time.Duration {
	GinkgoHelper()
	var sum time.Duration
	for _, in := range c.Interactions {
		d, err := time.ParseDuration(in.Response.Duration)
		Expect(err).NotTo(HaveOccurred())
		sum += d
	}
	return sum
}

// edit replaces old with new in the file at path, exactly once.
func edit(path, old, new string) {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	Expect(strings.Count(string(data), old)).To(Equal(1), "%q in %s", old, path)
	Expect(os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o644)).To(Succeed())
}

// appendFirstInteraction appends a copy of the first interaction of the
// cassette at path to its list, as if the agent had once made one more call.
func appendFirstInteraction(path string) {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	var doc yaml.Node
	Expect(yaml.Unmarshal(data, &doc)).To(Succeed())
	top := doc.Content[0]
	found := false
	for i := 0; i < len(top.Content); i += 2 {
		if top.Content[i].Value == "interactions" {
			seq := top.Content[i+1]
			seq.Content = append(seq.Content, seq.Content[0])
			found = true
		}
	}
	Expect(found).To(BeTrue(), "no interactions in %s", path)
	out, err := yaml.Marshal(&doc)
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(path, out, 0o644)).To(Succeed())
}

// replayAt replays suite under root with opts.
func replayAt(root string, suite *scenario.Suite, opts runner.Options) *report.Report {
	GinkgoHelper()
	opts.Mode, opts.Root, opts.Agents = cassette.ModeReplay, root, all.Registry()
	rep, err := runner.Run(context.Background(), []*scenario.Suite{suite}, opts)
	Expect(err).NotTo(HaveOccurred())
	return rep
}

// scenarios returns every scenario of rep with its variant's name.
func scenarios(rep *report.Report) map[string]report.Scenario {
	out := map[string]report.Scenario{}
	for _, s := range rep.Suites {
		for _, v := range s.Variants {
			for _, sc := range v.Scenarios {
				out[v.Name+"/"+sc.ID] = sc
			}
		}
	}
	return out
}

func variantNames(rep *report.Report) []string {
	var out []string
	for _, s := range rep.Suites {
		for _, v := range s.Variants {
			out = append(out, v.Name)
		}
	}
	return out
}

var _ = Describe("Run, replaying the committed cassettes", Ordered, func() {
	var (
		root  string
		suite *scenario.Suite
		rep   *report.Report
	)

	// One replay serves every spec here; they only read it.
	BeforeAll(func() {
		root = project()
		suite = loadSuite(root)
		rep = replayAt(root, suite, runner.Options{Parallel: 4})
	})

	It("passes every scenario of both variants", func() {
		got := scenarios(rep)
		Expect(got).To(HaveLen(60))
		for name, sc := range got {
			Expect(sc.Verdict).To(Equal(report.VerdictPass), "%s: %s %v", name, sc.Error, sc.Checks)
		}
		Expect(rep.Passed()).To(BeTrue())
		Expect(rep.Mode).To(Equal("replay"))
	})

	It("reports as a scenario's latency the sum of the durations recorded in its cassette", func() {
		for _, v := range rep.Suites[0].Variants {
			for _, sc := range v.Scenarios {
				c := readCassette(cassette.Path(root, "odbchat", v.Name, sc.ID))
				Expect(c.Interactions).NotTo(BeEmpty())
				Expect(c.duration()).To(BeNumerically(">", 0))
				Expect(sc.Metrics.Latency).To(Equal(c.duration()), "%s/%s", v.Name, sc.ID)
				Expect(sc.Metrics.HTTPCalls).To(Equal(len(c.Interactions)), "%s/%s", v.Name, sc.ID)
				Expect(sc.Unplayed).To(BeZero(), "%s/%s", v.Name, sc.ID)
			}
		}
	})

	It("gives the agent the virtual clock, so the router's t_total_ms is the turn's replayed latency", func() {
		seen := 0
		for _, v := range rep.Suites[0].Variants {
			for _, sc := range v.Scenarios {
				for turn := range len(sc.Answer) {
					events := trace.OfTurn(sc.Events, turn)
					notes := trace.Notes(events, "t_total_ms")
					if len(notes) == 0 {
						continue
					}
					Expect(notes).To(HaveLen(1))
					latency := trace.Measure(events).Latency
					Expect(notes[0]).To(BeEquivalentTo(latency.Milliseconds()), "%s/%s turn %d", v.Name, sc.ID, turn)
					seen++
				}
			}
		}
		Expect(seen).To(BeNumerically(">=", 30), "the single-pass router notes t_total_ms on every answer")
	})

	It("labels each variant with the provenance of its cassettes", func() {
		for _, v := range rep.Suites[0].Variants {
			Expect(v.Provenance).To(Equal("replayed from rule-based stand-in shaped like gemma3:4b's API"), v.Name)
		}
	})

	It("gives the same report byte for byte whatever the parallelism", func() {
		var one, four bytes.Buffer
		Expect(report.WriteJSON(&four, rep)).To(Succeed())
		Expect(report.WriteJSON(&one, replayAt(root, suite, runner.Options{Parallel: 1}))).To(Succeed())
		Expect(one.String()).To(Equal(four.String()))
	})
})

var _ = Describe("Run", func() {
	var (
		root  string
		suite *scenario.Suite
	)

	BeforeEach(func() {
		root = project()
		suite = loadSuite(root)
	})

	replay := func(opts runner.Options) *report.Report {
		GinkgoHelper()
		return replayAt(root, suite, opts)
	}

	It("fails a scenario whose cassette holds an interaction the agent did not use", func() {
		appendFirstInteraction(cassette.Path(root, "odbchat", "single-pass", "ac1-taiwan-sst"))

		rep := replay(runner.Options{Variant: "single-pass", Scenario: "ac1-taiwan-sst"})

		sc := scenarios(rep)["single-pass/ac1-taiwan-sst"]
		Expect(sc.Verdict).To(Equal(report.VerdictFail))
		Expect(sc.Unplayed).To(Equal(1))
		Expect(sc.Checks).To(ContainElement(SatisfyAll(
			HaveField("Name", "cassette.unplayed"),
			HaveField("Pass", false),
			HaveField("Detail", ContainSubstring("interaction 5: POST http://localhost:11434/v1/chat/completions")),
			HaveField("Detail", ContainSubstring("testbed record --suite odbchat --variant single-pass --scenario ac1-taiwan-sst")),
		)))
		for _, c := range sc.Checks {
			if c.Name != "cassette.unplayed" {
				Expect(c.Pass).To(BeTrue(), "%s: %s", c.Name, c.Detail)
			}
		}
	})

	It("reports a missed upstream request as stale even though the agent turns the HTTP error into an answer", func() {
		// The MCP tools/call of the recording asked about another bbox.
		edit(cassette.Path(root, "odbchat", "single-pass", "ac1-taiwan-sst"),
			`"arguments":{"bbox":[118,`,
			`"arguments":{"bbox":[117,`)

		rep := replay(runner.Options{Variant: "single-pass", Scenario: "ac1-taiwan-sst"})

		sc := scenarios(rep)["single-pass/ac1-taiwan-sst"]
		Expect(sc.Answer).To(HaveLen(1), "the agent answers despite the failed upstream call")
		Expect(sc.Verdict).To(Equal(report.VerdictStale))
		Expect(sc.Error).To(ContainSubstring("has no match for POST https://eco.odb.ntu.edu.tw/mcp/ghrsst"))
		Expect(sc.Error).To(ContainSubstring("/params/arguments/bbox/0: 117 → 118"))
		Expect(sc.Error).To(ContainSubstring(filepath.Join("cassettes", "odbchat", "single-pass", "ac1-taiwan-sst.yaml")))
		Expect(sc.Error).To(ContainSubstring("re-record with: testbed record --suite odbchat --variant single-pass --scenario ac1-taiwan-sst"))
		Expect(sc.Unplayed).To(Equal(1))
	})

	It("reports a missing cassette as stale, with the command that records it", func() {
		Expect(os.Remove(cassette.Path(root, "odbchat", "legacy", "ac3-what-is-ghrsst"))).To(Succeed())

		got := scenarios(replay(runner.Options{Scenario: "ac3-what-is-ghrsst"}))

		Expect(got).To(HaveLen(2))
		Expect(got["legacy/ac3-what-is-ghrsst"].Verdict).To(Equal(report.VerdictStale))
		Expect(got["legacy/ac3-what-is-ghrsst"].Error).To(ContainSubstring(
			"record it with: testbed record --suite odbchat --variant legacy --scenario ac3-what-is-ghrsst"))
		Expect(got["single-pass/ac3-what-is-ghrsst"].Verdict).To(Equal(report.VerdictPass))
	})

	DescribeTable("keeps only the selected variant and scenario",
		func(variant, id string, wantVariants []string, wantPerVariant int) {
			rep := replay(runner.Options{Variant: variant, Scenario: id})

			Expect(variantNames(rep)).To(Equal(wantVariants))
			for _, v := range rep.Suites[0].Variants {
				Expect(v.Scenarios).To(HaveLen(wantPerVariant))
				Expect(v.Summary.Scenarios).To(Equal(wantPerVariant))
				for _, sc := range v.Scenarios {
					if id != "" {
						Expect(sc.ID).To(Equal(id))
					}
					Expect(sc.Verdict).To(Equal(report.VerdictPass), "%s/%s: %s", v.Name, sc.ID, sc.Error)
				}
			}
		},
		Entry("a variant", "legacy", "", []string{"legacy"}, 30),
		Entry("a scenario", "", "ac2-hualien-point", []string{"legacy", "single-pass"}, 1),
		Entry("both, with the baseline kept for comparison", "single-pass", "ac4-json-to-csv", []string{"legacy", "single-pass"}, 1),
	)

	It("reports every scenario as an error when the per-scenario timeout expires, and returns", func() {
		rep := replay(runner.Options{Timeout: time.Nanosecond})

		got := scenarios(rep)
		Expect(got).To(HaveLen(60))
		for name, sc := range got {
			Expect(sc.Verdict).To(Equal(report.VerdictError), "%s answered %q", name, sc.Answer)
			Expect(sc.Error).To(ContainSubstring("deadline exceeded"), name)
		}
	})

	It("stops and says why when the run's context is cancelled", func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := runner.Run(ctx, []*scenario.Suite{suite}, runner.Options{
			Mode: cassette.ModeReplay, Root: root, Agents: all.Registry(),
		})
		Expect(err).To(MatchError(context.Canceled))
	})

	It("refuses a suite whose agent is not registered", func() {
		_, err := runner.Run(context.Background(), []*scenario.Suite{suite}, runner.Options{
			Mode: cassette.ModeReplay, Root: root, Agents: nil,
		})
		Expect(err).To(MatchError(ContainSubstring(`unknown agent "odbchat"`)))
	})

	It("refuses a suite with an unknown token encoding before running anything", func() {
		odd := *suite
		odd.Tokenizer = "p50k_base"
		rep, err := runner.Run(context.Background(), []*scenario.Suite{&odd}, runner.Options{
			Mode: cassette.ModeReplay, Root: root, Agents: all.Registry(),
		})
		Expect(err).To(MatchError(ContainSubstring(`unknown token encoding "p50k_base"`)))
		Expect(rep).To(BeNil())
	})

	Describe("in record mode without a route to the model", func() {
		var (
			before map[string]string
			rep    *report.Report
			runErr error
		)

		// record runs the single-pass variant in record mode with only the
		// upstreams routed and no network allowed, so every model call is
		// refused before it leaves the machine.
		record := func(ctx context.Context) {
			GinkgoHelper()
			before = map[string]string{}
			for _, sc := range suite.Scenarios {
				before[sc.ID] = readFile(cassette.Path(root, "odbchat", "single-pass", sc.ID))
			}
			sis, err := runner.StartStandIns(root, all.Registry(), false, true)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(sis.Close)
			Expect(sis.Routes).NotTo(HaveKey("localhost:11434"))
			rep, runErr = runner.Run(ctx, []*scenario.Suite{suite}, runner.Options{
				Mode: cassette.ModeRecord, Root: root, Agents: all.Registry(),
				Routes: sis.Routes, Parallel: 1, Variant: "single-pass",
			})
		}

		It("refuses the unrouted host instead of reaching the network", func() {
			record(context.Background())
			Expect(runErr).NotTo(HaveOccurred())
			sc := scenarios(rep)["single-pass/ac1-taiwan-sst"]
			Expect(sc.Verdict).NotTo(Equal(report.VerdictPass))
			Expect(sc.Events).To(ContainElement(HaveField("HTTP", SatisfyAll(
				Not(BeNil()),
				HaveField("URL", "http://localhost:11434/v1/chat/completions"),
				HaveField("Error", ContainSubstring("no stand-in serves localhost:11434")),
			))))
		})

		// DESIGN §4 and the README: "a failed or interrupted recording
		// leaves the old cassette".
		It("leaves the previous cassettes as they were when the recording fails", func() {
			record(context.Background())
			for id, data := range before {
				Expect(readFile(cassette.Path(root, "odbchat", "single-pass", id))).To(Equal(data), id)
			}
		})

		It("leaves the previous cassettes as they were when the recording is interrupted", func() {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			record(ctx)
			Expect(runErr).To(MatchError(context.Canceled))
			for id, data := range before {
				Expect(readFile(cassette.Path(root, "odbchat", "single-pass", id))).To(Equal(data), id)
			}
		})
	})

	// One recording serves every spec here; they only read it.
	Describe("in record mode against the stand-ins", Ordered, func() {
		var (
			root   string
			suite  *scenario.Suite
			rep    *report.Report
			routes map[string]string
		)

		BeforeAll(func() {
			rec := startRecording()
			root, suite, routes = rec.root, rec.suite, rec.sis.Routes
			Expect(os.RemoveAll(filepath.Join(root, "cassettes"))).To(Succeed())
			rep = rec.record(nil, runner.Options{Variant: "single-pass"})
		})

		It("routes every logical host to a loopback server", func() {
			Expect(routes).To(HaveKey("localhost:11434"))
			Expect(routes).To(HaveKey("eco.odb.ntu.edu.tw"))
			for host, target := range routes {
				u, err := url.Parse(target)
				Expect(err).NotTo(HaveOccurred())
				Expect(u.Hostname()).To(Equal("127.0.0.1"), host)
			}
		})

		It("writes cassettes that say they come from the stand-in and hold the logical URLs", func() {
			Expect(rep.Mode).To(Equal("record"))
			Expect(rep.Suites[0].Variants).To(HaveLen(1))
			Expect(rep.Suites[0].Variants[0].Provenance).To(Equal("rule-based stand-in shaped like gemma3:4b's API"))
			got := scenarios(rep)
			Expect(got).To(HaveLen(30))
			hosts := map[string]bool{}
			for name, sc := range got {
				Expect(sc.Verdict).To(Equal(report.VerdictPass), "%s: %s", name, sc.Error)
				path := cassette.Path(root, "odbchat", "single-pass", sc.ID)

				p, err := cassette.ReadProvenance(path)
				Expect(err).NotTo(HaveOccurred())
				Expect(p).To(Equal(cassette.Provenance{
					Recorder: "testbed", Provider: "openai", Endpoint: "http://localhost:11434/v1",
					Model: "gemma3:4b", StandIn: true, Upstream: "fixtures",
				}), path)

				c := readCassette(path)
				Expect(c.Interactions).NotTo(BeEmpty(), path)
				for _, in := range c.Interactions {
					u, err := url.Parse(in.Request.URL)
					Expect(err).NotTo(HaveOccurred())
					hosts[u.Host] = true
				}
				for _, e := range sc.Events {
					if e.HTTP != nil {
						Expect(e.HTTP.URL).NotTo(ContainSubstring("127.0.0.1"), name)
					}
				}
			}
			Expect(hosts).To(Equal(map[string]bool{"localhost:11434": true, "eco.odb.ntu.edu.tw": true}))
		})

		It("keeps each model call's response id, as the answer gave it", func() {
			calls := 0
			for name, sc := range scenarios(rep) {
				for _, e := range sc.Events {
					if e.LLM != nil {
						calls++
						Expect(e.LLM.ResponseID).To(MatchRegexp(`^chatcmpl-[0-9a-f]+$`), name)
					}
				}
			}
			Expect(calls).To(BeNumerically(">", 30))
		})

		It("keeps the settings each call asked for", func() {
			routers := 0
			for _, sc := range scenarios(rep) {
				for _, e := range sc.Events {
					if e.LLM != nil && e.LLM.Role == "router" {
						routers++
						Expect(e.LLM.Params).To(Equal(&trace.Params{Temperature: new(float64), MaxTokens: 256, Output: llm.OutputJSON}), "odbchat's router: temperature 0, 256 tokens, a JSON object")
					}
				}
			}
			Expect(routers).To(BeNumerically(">=", 30))
		})

		It("records what replays to the same report", func() {
			var recordedJSON, replayedJSON bytes.Buffer
			// The replay also runs the baseline, which this root did not
			// record; compare the recorded variant alone.
			again := replayAt(root, suite, runner.Options{Variant: "single-pass"})
			Expect(variantNames(again)).To(Equal([]string{"legacy", "single-pass"}))
			again.Suites[0].Variants = again.Suites[0].Variants[1:]
			again.Suites[0].Variants[0].Thresholds = rep.Suites[0].Variants[0].Thresholds
			Expect(again.Passed()).To(BeTrue())
			// The mode, the provenance label and the replay's own statistics
			// are all that differ.
			Expect(again.Replay).NotTo(BeNil())
			Expect(again.Replay.LiveCalls).To(Equal(0))
			Expect(again.Replay.Replayed).To(Equal(again.Replay.Recorded))
			again.Replay = nil
			again.Mode = rep.Mode
			again.Suites[0].Variants[0].Provenance = rep.Suites[0].Variants[0].Provenance
			Expect(report.WriteJSON(&recordedJSON, rep)).To(Succeed())
			Expect(report.WriteJSON(&replayedJSON, again)).To(Succeed())
			Expect(replayedJSON.String()).To(Equal(recordedJSON.String()))
		})
	})
})

func readFile(path string) string {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	return string(data)
}

var _ = Describe("Run's replay statistics", func() {
	It("count every interaction and fail on a cassette no scenario owns", func() {
		root := project()
		stray := filepath.Join(root, "cassettes", "odbchat", "legacy", "removed-scenario.yaml")
		data, err := os.ReadFile(filepath.Join(root, "cassettes", "odbchat", "legacy", "ac1-taiwan-sst.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(stray, data, 0o644)).To(Succeed())

		rep := replayAt(root, loadSuite(root), runner.Options{})
		Expect(rep.Replay.LiveCalls).To(Equal(0))
		Expect(rep.Replay.Replayed).To(Equal(rep.Replay.Recorded))
		Expect(rep.Replay.Recorded).To(BeNumerically(">", 100))
		Expect(rep.Replay.UnusedCassettes).To(Equal([]string{"cassettes/odbchat/legacy/removed-scenario.yaml"}))
		Expect(rep.Passed()).To(BeFalse())

		filtered := replayAt(root, loadSuite(root), runner.Options{Scenario: "ac1-taiwan-sst"})
		Expect(filtered.Replay.UnusedCassettes).To(BeEmpty(), "a filtered run cannot tell what is unused")
	})
})
