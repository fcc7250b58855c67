package scenario

import (
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Fault targets: the model (chat and embeddings endpoints) or an upstream
// API.
const (
	FaultOnModel    = "model"
	FaultOnUpstream = "upstream"
)

// FaultRule injects a fault by rule while recording: into call Call
// (1-based; 0 for every call) to target On.
type FaultRule struct {
	On   string // FaultOnModel or FaultOnUpstream
	Call int
	Kind string // e.g. "429", "timeout", "oversized"
	Line int
}

// FaultRate injects faults at a seeded rate while recording: each call to
// a target draws, from a hash of Seed, the scenario, the sample and the
// call's position, whether it fails and with which of the target's kinds.
// The draw depends on nothing else, so re-recording injects the same faults.
type FaultRate struct {
	Rate     float64
	Seed     int64
	Model    []string // kinds for model calls
	Upstream []string // kinds for upstream calls
	Line     int
}

var (
	faultRuleKeys = []string{"on", "call", "kind"}
	faultRateKeys = []string{"rate", "seed", "model", "upstream"}
)

// checkFault reports kind, at node v, if the known kinds of target do not
// include it (when LoadOptions.Faults names them).
func (d *decoder) checkFault(v *yaml.Node, at, target, kind string) {
	known, ok := d.opts.Faults[target]
	if ok && !slices.Contains(known, kind) {
		d.errorf(resolve(v).Line, at, "unknown %s fault %q (known: %s)", target, kind, strings.Join(known, ", "))
	}
}

// faultRules reads a scenario's list of {on, call, kind}.
func (d *decoder) faultRules(v *yaml.Node, at string) []FaultRule {
	var out []FaultRule
	d.mappings(v, at, "on, call and kind", faultRuleKeys, []string{"on", "kind"}, func(at string, m *yaml.Node, fs fields) {
		rule := FaultRule{Line: m.Line}
		if f, ok := fs["on"]; ok {
			rule.On, _ = d.enum(f.val, join(at, "on"), FaultOnModel, FaultOnUpstream)
		}
		if f, ok := fs["call"]; ok {
			rule.Call, _ = d.integer(f.val, join(at, "call"), 1)
		}
		if f, ok := fs["kind"]; ok {
			if rule.Kind, ok = d.str(f.val, join(at, "kind")); ok && rule.On != "" {
				d.checkFault(f.val, join(at, "kind"), rule.On, rule.Kind)
			}
		}
		out = append(out, rule)
	})
	return out
}

// faultRate reads a suite's {rate, seed, model, upstream}.
func (d *decoder) faultRate(v *yaml.Node) *FaultRate {
	const at = "faults"
	m, fs, ok := d.mapping(v, at, "a mapping with rate, seed, model and upstream", faultRateKeys...)
	if !ok {
		return nil
	}
	d.require(m, fs, at, "rate", "seed")
	fr := &FaultRate{Line: m.Line}
	if f, ok := fs["rate"]; ok {
		fr.Rate, _ = d.fraction(f.val, join(at, "rate"))
	}
	if f, ok := fs["seed"]; ok {
		seed, _ := d.integer(f.val, join(at, "seed"), 0)
		fr.Seed = int64(seed)
	}
	for _, target := range []string{FaultOnModel, FaultOnUpstream} {
		f, ok := fs[target]
		if !ok {
			continue
		}
		kinds, _ := d.strs(f.val, join(at, target), false)
		for i, k := range kinds {
			d.checkFault(resolve(f.val).Content[i], index(join(at, target), i), target, k)
		}
		if target == FaultOnModel {
			fr.Model = kinds
		} else {
			fr.Upstream = kinds
		}
	}
	if len(fr.Model)+len(fr.Upstream) == 0 {
		d.errorf(m.Line, at, "no fault kinds; list some under model or upstream")
	}
	return fr
}
