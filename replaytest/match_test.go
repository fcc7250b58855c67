package replaytest_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/replaytest"
)

// stamping is an in-process agent that, like many real ones, puts a fresh
// UUID and the wall-clock time (moved by offset) into every request: the
// system prompt of its model call, and the query of its upstream call.
type stamping struct {
	cfg    agents.Config
	offset time.Duration
}

func (s stamping) Run(ctx context.Context, in agents.Input) (agents.Answer, error) {
	var b [16]byte
	rand.Read(b[:])
	id := fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
	now := time.Now().Add(s.offset).UTC()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.cfg.Upstreams["weather"]+"/v1/current?city=Oslo&request_id="+id+
		"&ts="+strconv.FormatInt(now.UnixMilli(), 10), nil)
	if err != nil {
		return agents.Answer{}, err
	}
	resp, err := s.cfg.HTTP.Do(req)
	if err != nil {
		return agents.Answer{}, err
	}
	weather, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	out, err := s.cfg.Model.Chat(ctx, llm.Request{Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "You are a concise weather assistant. Request " + id + " at " + now.Format(time.RFC3339) + ". Weather: " + string(weather)},
		{Role: llm.RoleUser, Content: in.Turns[0]},
	}})
	if err != nil {
		return agents.Answer{}, err
	}
	return agents.Answer{Replies: []agents.Reply{{Text: out.Message.Content}}}, nil
}

// stampingSuite is a suite of the stamping agent, with rules.
func stampingSuite(rules string) string {
	return `suite: stamping
agent:
  name: stamped
  model: {provider: openai, base_url: "https://api.openai.com/v1", model: gpt-4.1-mini}
  upstreams:
    weather: {base_url: "https://api.weather.example"}
clock: 2026-03-02T08:00:00Z
baseline: default
variants:
  default:
` + rules + `scenarios:
  - id: oslo
    input: "What's the weather in Oslo right now?"
    expect:
      llm_calls: 1
`
}

const stampingRules = `match:
  ignore:
    - query: ts
  normalise:
    - pattern: uuid
    - pattern: iso8601
`

var _ = Describe("Run, with the suite's match rules", func() {
	It("replays an agent that stamps its requests with a fresh UUID and the time, a year later, and misses without the rules", func() {
		root := GinkgoT().TempDir()
		Expect(os.CopyFS(filepath.Join(root, "fixtures"), os.DirFS(filepath.Join(repo, "examples", "stamped", "fixtures")))).To(Succeed())
		suite := filepath.Join(root, "scenarios", "stamping.yaml")
		Expect(os.MkdirAll(filepath.Dir(suite), 0o755)).To(Succeed())
		Expect(os.WriteFile(suite, []byte(stampingSuite(stampingRules)), 0o644)).To(Succeed())
		at := func(offset time.Duration) agents.Constructor {
			return func(cfg agents.Config) (agents.Agent, error) { return stamping{cfg: cfg, offset: offset}, nil }
		}

		t, _ := run(suite, at(0), replaytest.Record(true))
		Expect(t.failed()).To(BeEmpty())

		t, rep := run(suite, at(9000*time.Hour), replaytest.Record(false))
		Expect(t.failed()).To(BeEmpty())
		Expect(rep.Replay.Replayed).To(Equal(2))

		Expect(os.WriteFile(suite, []byte(stampingSuite("")), 0o644)).To(Succeed())
		t, _ = run(suite, at(9000*time.Hour), replaytest.Record(false))
		Expect(t.failed()).To(ContainSubstring("default/oslo: stale: "))
		Expect(t.failed()).To(ContainSubstring("query request_id: "))
		Expect(t.failed()).To(ContainSubstring("query ts: "))
	})
})
