package runner

import (
	"fmt"
	"os"
	"slices"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/files"
	"github.com/agentreplay/testbed/harness/scenario"
)

// What a recording needs besides Run in ModeRecord, shared by testbed
// record and package replaytest so that both record the same way.

// LockSuites takes the recording lock of every suite's cassette folder, or
// none: while another recording of one of them runs, it fails at once with
// an error that matches cassette.ErrLocked. It then removes the temporary
// files a killed recording may have left there (the lock says no live one
// is writing them). release frees the locks; the kernel frees them too if
// the process dies.
func LockSuites(root string, suites []*scenario.Suite) (release func(), err error) {
	var locks []*cassette.Lock
	release = func() {
		for _, l := range locks {
			l.Release()
		}
	}
	for _, s := range suites {
		dir := cassette.Dir(root, s.Name)
		l, err := cassette.AcquireLock(dir)
		if err != nil {
			release()
			return nil, fmt.Errorf("suite %s is being recorded: %w", s.Name, err)
		}
		locks = append(locks, l)
		if _, err := files.RemoveLeftovers(dir); err != nil {
			release()
			return nil, err
		}
	}
	return release, nil
}

// RouteVariants sends the model endpoint of every variant that names its
// own (variants.<name>.endpoint) to the stand-in model.
func (s *StandIns) RouteVariants(suites []*scenario.Suite) error {
	for _, su := range suites {
		for _, v := range su.Variants {
			if v.Endpoint == nil {
				continue
			}
			if err := s.RouteModel(v.Endpoint.BaseURL); err != nil {
				return fmt.Errorf("%s: variant %s: %w", su.Path, v.Name, err)
			}
		}
	}
	return nil
}

// RouteJudges sends the grader endpoint of every suite with a judge: block
// to the stand-in model, whose judge policy answers grading requests, in
// Judges (Options.JudgeRoutes); it starts the stand-in model when only a
// real agent model was to run.
func (s *StandIns) RouteJudges(suites []*scenario.Suite) error {
	for _, su := range suites {
		if su.Judge == nil {
			continue
		}
		if err := s.startModel(); err != nil {
			return err
		}
		if err := routeTo(s.Judges, su.Judge.Endpoint.BaseURL, s.model); err != nil {
			return fmt.Errorf("%s: judge: %w", su.Path, err)
		}
	}
	return nil
}

// KeyVariables returns the provider key variables and every agent's own
// (agents.Info.Keys and Secrets), sorted.
func KeyVariables(entries map[string]agents.Entry) []string {
	names := cassette.KeyVariables()
	for _, e := range entries {
		names = append(append(names, e.Info.Keys...), e.Info.Secrets...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// AgentKeys are the agents' own keys and secrets (Info.Keys, Info.Secrets)
// that getenv sets, by variable: what a recording against the real
// upstream APIs sends them.
func AgentKeys(entries map[string]agents.Entry, getenv func(string) string) map[string]string {
	out := map[string]string{}
	for _, e := range entries {
		for _, k := range slices.Concat(e.Info.Keys, e.Info.Secrets) {
			if v := getenv(k); v != "" {
				out[k] = v
			}
		}
	}
	return out
}

// KeyValues returns the values of the key variables set in the
// environment: what Options.Redact holds for a recording.
func KeyValues(entries map[string]agents.Entry) []string {
	var out []string
	for _, k := range KeyVariables(entries) {
		if v := os.Getenv(k); v != "" {
			out = append(out, v)
		}
	}
	return out
}
