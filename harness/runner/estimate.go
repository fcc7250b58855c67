package runner

import (
	"errors"
	"fmt"
	"net/url"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/cost"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/tokens"
	"github.com/agentreplay/testbed/harness/wire"
)

// Estimate is what recording a suite's variant again may cost at most,
// from the model and embeddings requests its current cassettes hold (the
// calls the agent made last time), each estimated as Budget estimates a
// call.
type Estimate struct {
	Suite, Variant string
	Model          string
	Scenarios      int // scenario runs estimated
	Calls          int // model requests in their cassettes
	// EmbedCalls are the embeddings requests in them, each estimated at
	// its input's tokens; UnpricedEmbeds those whose model has no price
	// (or that could not be read), left out of USD.
	EmbedCalls     int
	UnpricedEmbeds int
	// GraderCalls are the rubric grader's requests in the scenarios'
	// grader cassettes, each estimated at the judge's model as a model
	// request is; UnpricedGraders those left out of USD because that model
	// has no price.
	GraderCalls     int
	UnpricedGraders int
	USD             float64
	// Unestimated are the scenario runs with no cassette to estimate from;
	// Unpriced is true when the model has no price.
	Unestimated []string
	Unpriced    bool
}

// EstimateRecording estimates what recording suites (as Run would with
// opts, without calling anything) may cost at most.
func EstimateRecording(suites []*scenario.Suite, opts Options) ([]Estimate, error) {
	var out []Estimate
	for _, s := range suites {
		p, err := pricer(s, opts)
		if err != nil {
			return nil, err
		}
		counter, err := tokens.New(tokenizerName(s))
		if err != nil {
			return nil, err
		}
		var judge *llm.Endpoint
		if s.Judge != nil {
			judge = &s.Judge.Endpoint
			if opts.Judge != nil {
				judge = opts.Judge
			}
		}
		for _, v := range s.Variants {
			if opts.Variant != "" && v.Name != opts.Variant {
				continue
			}
			ep := endpoint(opts, opts.Agents[s.Agent].Info, v)
			upstreams := hostsOf(opts.Agents[s.Agent].Info.Upstreams)
			e := Estimate{Suite: s.Name, Variant: v.Name, Model: ep.Model}
			if _, ok := p.Estimate(ep.Provider, ep.Model, 0, 0); !ok {
				e.Unpriced = true
			}
			for _, sc := range s.Scenarios {
				if opts.Scenario != "" && sc.ID != opts.Scenario {
					continue
				}
				n := max(1, s.Samples)
				if opts.Repeat > 0 {
					n = opts.Repeat
				}
				for k := 1; k <= n; k++ {
					path := cassette.SamplePath(opts.Root, s.Name, v.Name, sc.ID, k)
					reqs, err := cassette.Requests(path)
					if errors.Is(err, cassette.ErrNotFound) {
						e.Unestimated = append(e.Unestimated, fmt.Sprintf("%s#%d", sc.ID, k))
						continue
					}
					if err != nil {
						return nil, err
					}
					e.Scenarios++
					if judge != nil {
						if err := e.addGrades(cassette.JudgePath(opts.Root, s.Name, v.Name, sc.ID, k), *judge, p, counter); err != nil {
							return nil, err
						}
					}
					for _, r := range reqs {
						u, err := url.Parse(r.URL)
						switch {
						case err != nil || !upstreams.isModelCall(u):
						case wire.IsEmbeddings(u.Path):
							e.EmbedCalls++
							in, err := wire.ReadEmbedCall(u.Path, r.Body)
							if err != nil {
								e.UnpricedEmbeds++
								continue
							}
							if usd, ok := p.Estimate(ep.Provider, in.Model, embedTokens(in, counter), 0); ok {
								e.USD += usd
							} else {
								e.UnpricedEmbeds++
							}
						default:
							e.Calls++
							if usd, ok := p.Estimate(ep.Provider, ep.Model, counter.CountBytes(r.Body), MaxOutput(r.Body)); ok {
								e.USD += usd
							}
						}
					}
				}
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// addGrades adds the grader's requests of the grader cassette at path (none
// when it is not there: a scenario without rubric checks), each estimated
// at the judge's model.
func (e *Estimate) addGrades(path string, judge llm.Endpoint, p cost.Pricer, counter *tokens.Counter) error {
	reqs, err := cassette.Requests(path)
	if errors.Is(err, cassette.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, r := range reqs {
		e.GraderCalls++
		if usd, ok := p.Estimate(judge.Provider, judge.Model, counter.CountBytes(r.Body), MaxOutput(r.Body)); ok {
			e.USD += usd
		} else {
			e.UnpricedGraders++
		}
	}
	return nil
}
