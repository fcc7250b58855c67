package runner

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/files"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/standin"
	"github.com/agentreplay/testbed/harness/upstream"
)

// StandIns are the loopback servers that record mode runs against.
type StandIns struct {
	// Routes maps every logical host the agents call to a loopback base URL.
	Routes map[string]string
	// Judges maps the logical hosts of the suites' graders to the stand-in
	// model, whose judge policy answers them (RouteJudges); apart from
	// Routes, so that a real agent model on the same host stays real.
	Judges  map[string]string
	model   string          // the stand-in model's URL, when it runs
	opts    standin.Options // what the stand-in model is started with
	closers []func()
}

// RouteModel sends a further model endpoint, such as a variant's, to the
// stand-in model.
func (s *StandIns) RouteModel(baseURL string) error {
	if s.model == "" {
		return fmt.Errorf("no stand-in model is running")
	}
	return s.route(baseURL, s.model)
}

// StandInOption configures StartStandIns.
type StandInOption func(*StandIns)

// ModelOptions starts the stand-in model with opts (its policies, latency
// model and faults) instead of the zero standin.Options.
func ModelOptions(opts standin.Options) StandInOption {
	return func(s *StandIns) { s.opts = opts }
}

// StartStandIns starts the stand-in model and, for each agent with
// fixtures/<agent>/routes.yaml, a stub of its upstreams. With model false
// the model host is not routed (a real provider is used); with upstreams
// false the upstream hosts are not routed (real APIs are used).
func StartStandIns(root string, entries map[string]agents.Entry, model, upstreams bool, opts ...StandInOption) (*StandIns, error) {
	s := &StandIns{Routes: map[string]string{}, Judges: map[string]string{}}
	for _, o := range opts {
		o(s)
	}
	if model {
		if err := s.startModel(); err != nil {
			return nil, err
		}
		srv := s.model
		for _, e := range entries {
			bases := []string{e.Info.Model.BaseURL}
			if e.Info.Embeddings != nil {
				bases = append(bases, e.Info.Embeddings.BaseURL)
			}
			for _, base := range bases {
				if err := s.route(base, srv); err != nil {
					s.Close()
					return nil, err
				}
			}
		}
	}
	if upstreams {
		for name, e := range entries {
			path := filepath.Join(root, "fixtures", name, "routes.yaml")
			if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
				continue
			}
			if _, err := files.Inside(root, path); err != nil {
				s.Close()
				return nil, fmt.Errorf("%w: %w", upstream.ErrInvalid, err)
			}
			// 404 bodies name the file as the project does, never by a local path.
			srv, err := upstream.StartFile(path, "fixtures/"+name+"/routes.yaml")
			if err != nil {
				s.Close()
				return nil, err
			}
			s.closers = append(s.closers, srv.Close)
			for _, base := range e.Info.Upstreams {
				if err := s.route(base, srv.URL()); err != nil {
					s.Close()
					return nil, err
				}
			}
		}
	}
	return s, nil
}

func (s *StandIns) route(logical, target string) error {
	return routeTo(s.Routes, logical, target)
}

// routeTo sends logical's host to target in routes.
func routeTo(routes map[string]string, logical, target string) error {
	u, err := url.Parse(logical)
	if err != nil || u.Host == "" {
		return fmt.Errorf("endpoint %q is not an absolute URL", logical)
	}
	routes[u.Host] = target
	return nil
}

// startModel starts the stand-in model, once.
func (s *StandIns) startModel() error {
	if s.model != "" {
		return nil
	}
	opts := s.opts
	if opts.Policies == nil {
		opts.Policies = standin.Policies()
	}
	srv, err := standin.New(opts)
	if err != nil {
		return err
	}
	if err := srv.Start(); err != nil {
		return err
	}
	s.closers = append(s.closers, func() { srv.Close() })
	s.model = srv.URL()
	return nil
}

// FaultKinds lists the faults each target can inject, for
// scenario.LoadOptions.Faults.
func FaultKinds() map[string][]string {
	return map[string][]string{scenario.FaultOnModel: standin.Faults(), scenario.FaultOnUpstream: upstream.Faults()}
}

// Close stops every server.
func (s *StandIns) Close() {
	for _, c := range s.closers {
		c()
	}
}
