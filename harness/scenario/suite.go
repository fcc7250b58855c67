package scenario

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

var (
	suiteKeys    = []string{"suite", "agent", "clock", "tokenizer", "baseline", "variants", "thresholds", "gate", "gating", "goodput", "about", "judged", "reduction_without", "samples", "min_sample_pass_rate", "faults", "match", "redact", "prices", "judge", "scenarios", "scenarios_from"}
	variantKeys  = []string{"description", "config", "endpoint"}
	endpointKeys = []string{"provider", "base_url", "model", "key_env", "api", "api_version", "stream"}
	scenarioKeys = []string{"id", "criterion", "tags", "attachments", "faults", "input", "expect", "variants", "turns"}
	attachKeys   = []string{"file", "mime", "description"}
	turnKeys     = []string{"input", "expect", "variants"}
	tokenizers   = []string{"o200k_base", "cl100k_base"}

	suiteName = regexp.MustCompile(`^[a-z0-9-]+$`)
	// fileName is what variant names and scenario IDs may be, since they
	// name cassette files.
	fileName = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*$`)
	// sampleName is how the cassettes of a scenario's samples end
	// (<id>.sample2.yaml): an id ending so would share their files.
	sampleName = regexp.MustCompile(`(?i)\.sample[0-9]+$`)
	// judgeName is how a scenario's grader cassettes end (<id>.judge.yaml).
	judgeName = regexp.MustCompile(`(?i)\.judge$`)
)

// MaxNameBytes is the longest variant name or scenario id: with the suffixes
// testbed adds (.sample12.yaml, a recording's temporary name), a longer one
// would not fit in a file name (255 bytes on most file systems).
const MaxNameBytes = 200

// nameProblem says why name cannot name cassette files, or "".
func nameProblem(name string) string {
	switch {
	case !fileName.MatchString(name):
		return "use letters, digits, ., _ and -, not starting with ."
	case len(name) > MaxNameBytes:
		return fmt.Sprintf("%d bytes is longer than the %d a cassette file name allows; shorten it", len(name), MaxNameBytes)
	case judgeName.MatchString(name):
		return "it ends like the grader cassette of a scenario (<id>.judge.yaml) and would share its file; rename it"
	case sampleName.MatchString(name):
		return "it ends like the cassette of a scenario's sample (<id>.sample2.yaml) and would share its file; rename it"
	}
	return ""
}

func (d *decoder) suite(root *yaml.Node) *Suite {
	m, fs, ok := d.mapping(root, "", "a mapping of suite keys", suiteKeys...)
	if !ok {
		return nil
	}
	d.require(m, fs, "", "suite", "agent", "clock", "baseline", "variants")
	if _, ok := fs["scenarios_from"]; !ok {
		d.require(m, fs, "", "scenarios")
	}
	s := &Suite{Path: d.path, Tokenizer: tokenizers[0]}
	// Problems in the agent or the variants leave nothing for Check to build.
	head := len(d.errs)
	if f, ok := fs["suite"]; ok {
		if name, ok := d.str(f.val, "suite"); ok {
			if !suiteName.MatchString(name) {
				d.errorf(f.val.Line, "suite", "invalid name %q; use lowercase letters, digits and -", name)
			}
			s.Name, s.NameLine = name, resolve(f.val).Line
		}
	}
	if f, ok := fs["agent"]; ok && resolve(f.val) != nil && resolve(f.val).Kind == yaml.MappingNode {
		d.external(f.val, s)
	} else if ok {
		if agent, ok := d.str(f.val, "agent"); ok {
			if len(d.opts.Agents) > 0 && !slices.Contains(d.opts.Agents, agent) {
				d.errorf(f.val.Line, "agent", "unknown agent %q (known: %s)", agent, strings.Join(d.opts.Agents, ", "))
			}
			s.Agent = agent
		}
	}
	agentRead := len(d.errs) == head
	if f, ok := fs["clock"]; ok {
		if v, ok := d.str(f.val, "clock"); ok {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				d.errorf(f.val.Line, "clock", "%q is not an RFC 3339 time; write it like 2025-11-06T10:00:00+08:00", v)
			}
			s.Clock = t
		}
	}
	if f, ok := fs["tokenizer"]; ok {
		s.Tokenizer, _ = d.enum(f.val, "tokenizer", tokenizers...)
	}
	if f, ok := fs["variants"]; ok {
		before := len(d.errs)
		s.Variants = d.suiteVariants(f.val)
		d.headRead = agentRead && s.Agent != "" && d.known && len(d.errs) == before
		d.builtInOllama(s)
	}
	if f, ok := fs["baseline"]; ok {
		if name, ok := d.str(f.val, "baseline"); ok {
			d.checkVariant(f.val, "baseline", name)
			s.Baseline = name
		}
	}
	if f, ok := fs["gate"]; ok {
		s.Gate = d.gate(f.val)
	}
	if f, ok := fs["gating"]; ok {
		gating, ok := d.boolean(f.val, "gating")
		s.NotGating = ok && !gating
	}
	if f, ok := fs["goodput"]; ok {
		s.Goodput = d.goodput(f.val)
	}
	if f, ok := fs["about"]; ok {
		if text, ok := d.str(f.val, "about"); ok {
			s.About = strings.TrimSpace(text)
		}
	}
	if f, ok := fs["reduction_without"]; ok {
		s.ReductionWithout, _ = d.strs(f.val, "reduction_without", false)
	}
	if f, ok := fs["judged"]; ok {
		if names, ok := d.strs(f.val, "judged", false); ok {
			for _, n := range names {
				kind, _, _ := strings.Cut(n, ".")
				if !slices.Contains(JudgedKinds, kind) {
					d.errorf(resolve(f.val).Line, "judged", "%q is not a check kind (want one of %s, or one check such as answer.not_contains)", n, strings.Join(JudgedKinds, ", "))
				}
			}
			s.Judged = names
		}
	}
	s.Samples = 1
	if f, ok := fs["samples"]; ok {
		if n, ok := d.integer(f.val, "samples", 1); ok {
			if n > MaxSamples {
				d.errorf(resolve(f.val).Line, "samples", "%d samples per scenario is more than the %d testbed records; lower it", n, MaxSamples)
			} else {
				s.Samples = n
			}
		}
	}
	s.MinSamplePassRate = 1
	if f, ok := fs["min_sample_pass_rate"]; ok {
		if r, ok := d.fraction(f.val, "min_sample_pass_rate"); ok {
			if r <= 0 || r > 1 {
				d.errorf(f.val.Line, "min_sample_pass_rate", "%s is not a share of samples; write a percentage above 0%% and at most 100%%, like 80%%", f.val.Value)
			} else {
				s.MinSamplePassRate = r
			}
		}
	}
	if f, ok := fs["thresholds"]; ok {
		s.Thresholds = d.thresholds(f.val, s.Baseline)
	}
	if f, ok := fs["faults"]; ok {
		s.Faults = d.faultRate(f.val)
	}
	if f, ok := fs["match"]; ok {
		s.Match = d.matchRules(f.val)
	}
	if f, ok := fs["redact"]; ok {
		s.Redact = d.redact(f.val)
	}
	if f, ok := fs["prices"]; ok {
		s.Prices = d.prices(f.val)
	}
	if f, ok := fs["judge"]; ok {
		s.Judge = d.judge(f.val)
	}
	if f, ok := fs["scenarios"]; ok {
		s.Scenarios = d.scenarios(f.val)
	}
	if f, ok := fs["scenarios_from"]; ok {
		var rows []Scenario
		s.ScenariosFrom, rows = d.scenariosFrom(f.val)
		s.Scenarios = d.joinScenarios(s.Scenarios, rows)
	}
	d.needsJudge(s)
	if f, ok := fs["gate"]; ok {
		d.gradedGate(s, f.val)
	}
	return s
}
