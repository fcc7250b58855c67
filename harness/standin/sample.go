package standin

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"math/rand"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents/llm"
)

// SampleHeader carries the sample number of a recording that keeps several
// samples per scenario (testbed record --repeat). Sample 1, and a request
// without the header, get the deterministic answer; from sample 2 on, the
// stand-in answers like a model sampled above temperature zero: see
// sampler. The runner sets the header on the request it routes to the
// stand-in, after the recorder has captured it, so cassettes never hold it.
const SampleHeader = "X-Testbed-Sample"

// Sampling rates of the stand-in from sample 2 on.
const (
	// MisreadRate is the chance that the policy sees the last user message
	// with one word dropped, as a model that skimmed it would; policies are
	// keyword heuristics, so a dropped keyword can change the route.
	MisreadRate = 0.25
	// RewordRate is the chance that a plain-text answer gets one more
	// closing sentence, so output tokens vary.
	RewordRate = 0.5
	// LatencySpread is the standard deviation of the log of the factor that
	// multiplies the modelled latency.
	LatencySpread = 0.15
)

var closings = []string{
	"Let me know if you need anything else.",
	"I hope this helps.",
	"These figures come from the data returned above.",
	"Ask again with another place or date if you want a comparison.",
}

// sampler perturbs one request's answer for one sample. Its generator is
// seeded by the sample number and the request, so re-recording gives the
// same bytes. A nil sampler (sample 1) changes nothing.
type sampler struct {
	rng *rand.Rand
}

// sampleOf reads SampleHeader; 1 when absent or malformed.
func sampleOf(r *http.Request) int {
	k, err := strconv.Atoi(r.Header.Get(SampleHeader))
	if err != nil || k < 1 {
		return 1
	}
	return k
}

func newSampler(sample int, req Request) *sampler {
	if sample <= 1 {
		return nil
	}
	h := fnv.New64a()
	h.Write([]byte(strconv.Itoa(sample)))
	for _, m := range req.Messages {
		h.Write([]byte{0})
		h.Write([]byte(m.Role))
		h.Write([]byte(m.Content))
		for _, tc := range m.ToolCalls {
			h.Write([]byte(tc.Name))
			h.Write(tc.Arguments)
		}
	}
	return &sampler{rng: rand.New(rand.NewSource(int64(h.Sum64())))}
}

// view is the request as the policy reads it: sometimes with one word of
// the last user message dropped. A message that is a JSON object keeps its
// shape: the word is dropped from one of its top-level strings of several
// words (the router's "query", for instance).
func (s *sampler) view(req Request) Request {
	if s == nil || s.rng.Float64() >= MisreadRate {
		return req
	}
	last := -1
	for j := len(req.Messages) - 1; j >= 0; j-- {
		if req.Messages[j].Role == llm.RoleUser {
			last = j
			break
		}
	}
	if last < 0 {
		return req
	}
	content, ok := s.misread(req.Messages[last].Content)
	if !ok {
		return req
	}
	out := req
	out.Messages = slices.Clone(req.Messages)
	out.Messages[last].Content = content
	return out
}

// misread drops one word of text, or of one string field of a JSON object.
func (s *sampler) misread(text string) (string, bool) {
	var obj map[string]any
	if json.Unmarshal([]byte(text), &obj) != nil {
		return s.dropWord(text)
	}
	var keys []string
	for k, v := range obj {
		if str, ok := v.(string); ok && len(strings.Fields(str)) > 1 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return text, false
	}
	slices.Sort(keys)
	k := keys[s.rng.Intn(len(keys))]
	v, _ := s.dropWord(obj[k].(string))
	obj[k] = v
	b, err := json.Marshal(obj)
	if err != nil {
		return text, false
	}
	return string(b), true
}

func (s *sampler) dropWord(text string) (string, bool) {
	words := strings.Fields(text)
	if len(words) < 2 {
		return text, false
	}
	drop := s.rng.Intn(len(words))
	return strings.Join(slices.Delete(words, drop, drop+1), " "), true
}

// reword sometimes adds a closing sentence to a plain-text answer; JSON
// answers and tool calls are left alone, since protocols parse them.
func (s *sampler) reword(msg llm.Message) llm.Message {
	if s == nil || len(msg.ToolCalls) > 0 || msg.Content == "" || s.rng.Float64() >= RewordRate {
		return msg
	}
	if t := strings.TrimSpace(msg.Content); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") || strings.Contains(t, "```") {
		return msg
	}
	msg.Content = strings.TrimRight(msg.Content, " \n") + " " + closings[s.rng.Intn(len(closings))]
	return msg
}

// jitter multiplies a modelled latency by a log-normal factor, rounded to
// the millisecond.
func (s *sampler) jitter(d time.Duration) time.Duration {
	return scale(d, s.factor())
}

// factor draws the log-normal factor that multiplies a sample's latency;
// 1 for sample 1.
func (s *sampler) factor() float64 {
	if s == nil {
		return 1
	}
	return math.Exp(s.rng.NormFloat64() * LatencySpread)
}

// scale multiplies d by f, rounded to the millisecond unless f is 1.
func scale(d time.Duration, f float64) time.Duration {
	if f == 1 {
		return d
	}
	return time.Duration(float64(d) * f).Round(time.Millisecond)
}
