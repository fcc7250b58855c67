package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/agentreplay/testbed/harness/cost"
	"github.com/agentreplay/testbed/harness/tokens"
	"github.com/agentreplay/testbed/harness/wire"
)

// ErrOverBudget is the error of a model call a recording did not make
// because it could take the recording's spend over its cap.
var ErrOverBudget = errors.New("over the recording's --max-cost")

// DefaultMaxOutput is the output a request that sets no max_tokens (nor
// max_completion_tokens, max_output_tokens, maxOutputTokens) is assumed to
// get at most, for the cap.
const DefaultMaxOutput = 4096

// Budget caps what a recording spends on model calls (testbed record
// --max-cost): before each model request it estimates the most the call can
// cost (its prompt's tokens at the input rate, its max_tokens at the output
// rate) and refuses the call when that would take the spend over Max. The
// spend is what the finished scenario runs' calls cost, as priced, plus the
// estimates of those in flight (Spent and InFlight, apart). Once a call is refused, every later one is
// too: the recording stops there. Safe for concurrent use.
type Budget struct {
	Max float64

	mu      sync.Mutex
	spent   float64 // settled: priced calls of finished runs
	pending float64 // estimates of the calls of runs not yet finished
	stopped bool
}

// Spent is what the recording has spent so far: the calls of its finished
// scenario runs, as priced. The calls still in flight are apart
// (InFlight): an estimate of the most they may cost is not a spend.
func (b *Budget) Spent() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// InFlight is what the cap holds booked for the calls of scenario runs
// not finished yet: the most each may cost, settled at its price when its
// run ends.
func (b *Budget) InFlight() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pending
}

// Stopped reports whether the cap refused a call.
func (b *Budget) Stopped() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stopped
}

// reserve books est for a call, or says why not.
func (b *Budget) reserve(est float64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped || b.spent+b.pending+est > b.Max {
		if !b.stopped {
			b.stopped = true
			return fmt.Errorf("%w: the next model call may cost up to %s and $%g is the cap, %s; the cassette of this scenario run was not written (any earlier one is kept)",
				ErrOverBudget, usd(est), b.Max, spentText(b.spent, b.pending))
		}
		return fmt.Errorf("%w: the recording stopped at $%g; not recorded", ErrOverBudget, b.Max)
	}
	b.pending += est
	return nil
}

// settle replaces a run's reserved estimates by what its calls cost.
func (b *Budget) settle(reserved, actual float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pending -= reserved
	b.spent += actual
}

func usd(v float64) string { return fmt.Sprintf("$%.4f", v) }

// spentText says what a recording spent and what it holds booked for
// calls in flight, apart: "$0.0300 spent by finished scenario runs, up to
// $0.0500 booked for calls in flight" (the latter left out when none is).
func spentText(spent, inFlight float64) string {
	s := usd(spent) + " spent by finished scenario runs"
	if inFlight > 0 {
		s += ", up to " + usd(inFlight) + " booked for calls in flight"
	}
	return s
}

// guard is one scenario run's transport under a Budget: model requests
// are estimated and reserved before they leave.
type guard struct {
	next     http.RoundTripper
	budget   *Budget
	pricer   cost.Pricer
	provider string
	model    string
	counter  *tokens.Counter // set once the run has one
	onRefuse func()
	// upstreams are the agent's upstreams' hosts, whose calls cost nothing.
	upstreams upstreamHosts

	mu       sync.Mutex
	reserved float64
	err      error // the first refusal
}

func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	p := req.URL.Path
	if !g.upstreams.isModelCall(req.URL) {
		return g.next.RoundTrip(req)
	}
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	est, err := g.estimate(p, body)
	if err == nil {
		err = g.budget.reserve(est)
	}
	if err != nil {
		g.mu.Lock()
		if g.err == nil {
			g.err = err
		}
		g.mu.Unlock()
		if g.onRefuse != nil {
			g.onRefuse()
		}
		return nil, err
	}
	g.mu.Lock()
	g.reserved += est
	g.mu.Unlock()
	return g.next.RoundTrip(req)
}

// estimate is the most a request to path can cost: a chat request's body
// tokens (a little more than its prompt's) at the input rate and its output
// cap at the output rate; an embeddings request's input tokens at its
// model's input rate.
func (g *guard) estimate(path string, body []byte) (float64, error) {
	if wire.IsEmbeddings(path) {
		in, err := wire.ReadEmbedCall(path, body)
		if err != nil {
			return 0, fmt.Errorf("%w: %v, so the cap cannot be kept", ErrOverBudget, err)
		}
		usd, ok := g.pricer.Estimate(g.provider, in.Model, embedTokens(in, g.counter), 0)
		if !ok {
			return 0, fmt.Errorf("%w: embeddings model %s has no price, so the cap cannot be kept; pass --prices FILE or map it in the suite's prices: models", ErrOverBudget, in.Model)
		}
		return usd, nil
	}
	in := len(body) / 2 // without a counter, a safe overestimate
	if g.counter != nil {
		in = g.counter.CountBytes(body)
	}
	usd, ok := g.pricer.Estimate(g.provider, g.model, in, MaxOutput(body))
	if !ok {
		return 0, fmt.Errorf("%w: model %s has no price, so the cap cannot be kept; pass --prices FILE or map it in the suite's prices: models", ErrOverBudget, g.model)
	}
	return usd, nil
}

// embedTokens is an embeddings request's input tokens: its texts counted
// (without a counter, half their bytes, a safe overestimate) and the
// inputs it sent as token ids.
func embedTokens(in wire.EmbedCall, counter *tokens.Counter) int {
	n := in.Tokens
	for _, t := range in.Texts {
		if counter != nil {
			n += counter.Count(t)
		} else {
			n += len(t) / 2
		}
	}
	return n
}

// MaxOutput reads a model request's output cap: OpenAI's max_tokens or
// max_completion_tokens, the Responses API's max_output_tokens,
// Anthropic's max_tokens, Gemini's generationConfig.maxOutputTokens (or
// generation_config.max_output_tokens); DefaultMaxOutput when it sets none.
func MaxOutput(body []byte) int {
	var r struct {
		MaxTokens           int `json:"max_tokens"`
		MaxCompletionTokens int `json:"max_completion_tokens"`
		MaxOutputTokens     int `json:"max_output_tokens"`
		GenerationConfig    struct {
			MaxOutputTokens int `json:"maxOutputTokens"`
		} `json:"generationConfig"`
		GenerationConfigSnake struct {
			MaxOutputTokens      int `json:"maxOutputTokens"`
			MaxOutputTokensSnake int `json:"max_output_tokens"`
		} `json:"generation_config"`
		Options struct {
			NumPredict int `json:"num_predict"` // Ollama's
		} `json:"options"`
	}
	if json.Unmarshal(body, &r) != nil {
		return DefaultMaxOutput
	}
	gs := r.GenerationConfigSnake
	for _, n := range []int{r.MaxCompletionTokens, r.MaxTokens, r.MaxOutputTokens, r.GenerationConfig.MaxOutputTokens, gs.MaxOutputTokens, gs.MaxOutputTokensSnake, r.Options.NumPredict} {
		if n > 0 {
			return n
		}
	}
	return DefaultMaxOutput
}

// refusal is the guard's first refusal, or nil.
func (g *guard) refusal() error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}
