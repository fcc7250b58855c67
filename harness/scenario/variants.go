package scenario

import (
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/agentreplay/testbed/agents/llm"
)

// checkVariant reports name, written at node n, if it is not a variant.
func (d *decoder) checkVariant(n *yaml.Node, at, name string) {
	if d.known && !slices.Contains(d.variants, name) {
		d.errorf(n.Line, at, "unknown variant %q (variants: %s)", name, strings.Join(d.variants, ", "))
	}
}

func (d *decoder) suiteVariants(v *yaml.Node) []Variant {
	const at = "variants"
	v = resolve(v)
	if !d.present(v, at) {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		d.want(v, at, "a mapping of variant names to {description, config}")
		return nil
	}
	list, _ := d.fields(v, at)
	if len(list) == 0 {
		d.errorf(v.Line, at, "no variants; add at least the baseline")
		return nil
	}
	d.known = true
	var out []Variant
	folded := map[string]*yaml.Node{} // each name by its lower case: file systems that ignore case would share its folder
	for _, f := range list {
		name := f.key.Value
		at := join(at, name)
		other, clash := folded[strings.ToLower(name)]
		switch why := nameProblem(name); {
		case why != "":
			d.errorf(f.key.Line, at, "invalid variant name %q (it names a cassette folder): %s", name, why)
		case clash:
			d.errorf(f.key.Line, at, "variant %q differs from %q (line %d) only in case, and would share its cassette folder where file names ignore case (macOS, Windows); rename one", name, other.Value, other.Line)
		default:
			folded[strings.ToLower(name)] = f.key
		}
		d.variants = append(d.variants, name)
		vr := Variant{Name: name, Line: f.key.Line}
		if isNull(resolve(f.val)) {
			out = append(out, vr)
			continue
		}
		_, fs, ok := d.mapping(f.val, at, "a mapping with description, config and endpoint", variantKeys...)
		if !ok {
			continue
		}
		if f, ok := fs["endpoint"]; ok {
			vr.Endpoint = d.endpoint(f.val, join(at, "endpoint"))
		}
		if f, ok := fs["description"]; ok {
			vr.Description, _ = d.str(f.val, join(at, "description"))
		}
		if f, ok := fs["config"]; ok {
			vr.Config, _ = d.anyMap(f.val, join(at, "config"))
		}
		out = append(out, vr)
	}
	return out
}

// endpoint reads a variant's model endpoint {provider, base_url, model,
// key_env, api, api_version, stream}; api (chat or responses) only for
// provider openai or azure, api_version only for azure; stream: true
// streams the variant's model calls.
func (d *decoder) endpoint(v *yaml.Node, at string) *llm.Endpoint {
	m, fs, ok := d.mapping(v, at, "a mapping with provider, base_url, model, key_env, api, api_version and stream", endpointKeys...)
	if !ok {
		return nil
	}
	d.require(m, fs, at, "provider", "model")
	ep := &llm.Endpoint{}
	if f, ok := fs["provider"]; ok {
		ep.Provider, _ = d.enum(f.val, join(at, "provider"), llm.Providers()...)
	}
	if f, ok := fs["base_url"]; ok {
		ep.BaseURL, _ = d.str(f.val, join(at, "base_url"))
	}
	if f, ok := fs["model"]; ok {
		ep.Model, _ = d.str(f.val, join(at, "model"))
	}
	if f, ok := fs["key_env"]; ok {
		ep.KeyEnv, _ = d.str(f.val, join(at, "key_env"))
	}
	if f, ok := fs["api"]; ok {
		ep.API, _ = d.enum(f.val, join(at, "api"), llm.APIChat, llm.APIResponses)
		if ep.API != "" && ep.Provider != llm.ProviderOpenAI && ep.Provider != llm.ProviderAzure {
			d.errorf(resolve(f.val).Line, join(at, "api"), "only an openai or azure endpoint chooses its API (chat or responses), not %s", ep.Provider)
		}
	}
	if f, ok := fs["api_version"]; ok {
		ep.APIVersion, _ = d.str(f.val, join(at, "api_version"))
		if ep.Provider != llm.ProviderAzure {
			d.errorf(resolve(f.val).Line, join(at, "api_version"), "only an azure endpoint has an api_version, not %s", ep.Provider)
		}
	}
	if f, ok := fs["stream"]; ok {
		ep.Stream, _ = d.boolean(f.val, join(at, "stream"))
	}
	if ep.BaseURL == "" {
		ep.BaseURL = llm.DefaultBaseURL(ep.Provider)
	}
	if ep.BaseURL == "" {
		d.errorf(m.Line, at, "missing key \"base_url\" (needed for provider %s)", ep.Provider)
	}
	return ep
}

// thresholds reads the thresholds by variant; baseline is the suite's
// baseline variant, which a threshold may not compare with itself.
func (d *decoder) thresholds(v *yaml.Node, baseline string) map[string][]Threshold {
	const at = "thresholds"
	v = resolve(v)
	if !d.present(v, at) {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		d.want(v, at, "a mapping of variant names to lists of thresholds")
		return nil
	}
	list, _ := d.fields(v, at)
	out := make(map[string][]Threshold, len(list))
	for _, f := range list {
		name := f.key.Value
		at := join(at, name)
		d.checkVariant(f.key, at, name)
		exprs := resolve(f.val)
		if !d.present(exprs, at) {
			continue
		}
		if exprs.Kind != yaml.SequenceNode {
			d.want(exprs, at, "a list of thresholds")
			continue
		}
		ts := []Threshold{}
		for i, item := range exprs.Content {
			at := index(at, i)
			expr, ok := d.str(item, at)
			if !ok {
				continue
			}
			item = resolve(item)
			t, err := ParseThreshold(expr)
			if err != nil {
				d.errorf(item.Line, at, "%v", err)
				continue
			}
			if len(d.opts.Metrics) > 0 && !slices.Contains(d.opts.Metrics, t.Metric) {
				d.errorf(item.Line, at, "unknown metric %q (known: %s)", t.Metric, strings.Join(d.opts.Metrics, ", "))
				continue
			}
			if why := t.unitProblem(); why != "" {
				d.errorf(item.Line, at, "threshold %q: %s", expr, why)
				continue
			}
			if t.Against != "" {
				d.checkVariant(item, at, t.Against)
			}
			switch {
			case t.Baseline && t.Against == "" && name == baseline:
				d.errorf(item.Line, at, "%q compares %s, the baseline, with itself, so it could only pass; remove it, or compare with another variant (variant:<name>)", expr, name)
				continue
			case t.Against == name:
				d.errorf(item.Line, at, "%q compares %s with itself, so it could only pass; remove it, or name another variant", expr, name)
				continue
			case t.foregone() != "":
				d.errorf(item.Line, at, "%q %s", expr, t.foregone())
				continue
			}
			t.Line = item.Line
			ts = append(ts, t)
		}
		out[name] = ts
	}
	return out
}

// goodput reads {ttft: 500ms, tpot: 50ms}: both durations above 0.
func (d *decoder) goodput(v *yaml.Node) *Goodput {
	const at = "goodput"
	m, fs, ok := d.mapping(v, at, "a mapping with ttft and tpot, like {ttft: 500ms, tpot: 50ms}", goodputKeys...)
	if !ok {
		return nil
	}
	d.require(m, fs, at, "ttft", "tpot")
	g := &Goodput{}
	for _, k := range []struct {
		key  string
		into *time.Duration
	}{{"ttft", &g.TTFT}, {"tpot", &g.TPOT}} {
		key, into := k.key, k.into
		f, ok := fs[key]
		if !ok {
			continue
		}
		text, ok := d.str(f.val, join(at, key))
		if !ok {
			continue
		}
		t, err := time.ParseDuration(text)
		if err != nil || t <= 0 {
			d.errorf(resolve(f.val).Line, join(at, key), "%q is not a duration above 0; write it like 500ms", text)
			continue
		}
		*into = t
	}
	return g
}

// GateMetrics are the metrics a suite's gate block may name.
func GateMetrics() []string {
	return []string{"pass_rate", "routing_accuracy", "token_reduction", "input_tokens_mean", "output_tokens_mean",
		"llm_calls_mean", "latency_mean", "latency_p95", "cost_mean", "cost_p95", "cost_total", "rubric_score_mean"}
}

// gate reads {metric: tolerance}: how much worse than the blessed baseline
// a metric may get, as a percentage of it ("2%") or a number ("0").
func (d *decoder) gate(v *yaml.Node) map[string]float64 {
	const at = "gate"
	v = resolve(v)
	if v.Kind != yaml.MappingNode {
		d.want(v, at, "a mapping of metric names to tolerances such as 2%")
		return nil
	}
	list, _ := d.fields(v, at)
	out := map[string]float64{}
	for _, f := range list {
		at := join(at, f.key.Value)
		if !slices.Contains(GateMetrics(), f.key.Value) {
			d.errorf(f.key.Line, at, "unknown gate metric %q (known: %s)", f.key.Value, strings.Join(GateMetrics(), ", "))
			continue
		}
		if tol, ok := d.fraction(f.val, at); ok {
			out[f.key.Value] = tol
		}
	}
	return out
}

// builtInOllama refuses, at its variant, an ollama endpoint for a built-in
// agent: testbed has no Go client for Ollama's native API, only an agent
// outside testbed calls it (with its own), and a built-in agent reaches an
// Ollama server through its OpenAI-compatible API.
func (d *decoder) builtInOllama(s *Suite) {
	if s.External != nil || s.Agent == "" {
		return
	}
	for _, v := range s.Variants {
		if v.Endpoint != nil && v.Endpoint.Provider == llm.ProviderOllama {
			d.errorf(v.Line, "variants."+v.Name+".endpoint.provider",
				"ollama is Ollama's native API, which only an agent outside testbed speaks; built-in agent %s reaches an Ollama server through its OpenAI-compatible API: provider: openai, base_url: \"http://localhost:11434/v1\"", s.Agent)
		}
	}
}
