package external

import (
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/proxy"
)

// inherited are the variables of testbed's own environment a program is
// given too: what finding commands and files needs, never a key.
var inherited = []string{"PATH", "HOME", "LANG", "TMPDIR", "SYSTEMROOT", "NODE_PATH"}

// Inherited is the part of testbed's own environment a program is given
// (PATH, HOME, LANG, TMPDIR, SYSTEMROOT, NODE_PATH, those that are set).
func Inherited() map[string]string {
	env := map[string]string{}
	for _, k := range inherited {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	return env
}

// Environment is what the driver sets in the environment of the program
// spec describes, on top of Inherited, for a session whose base URL is base
// (proxy.Proxy.Open): the suite's env:, the model's base URL and
// placeholder key (proxy.ModelEnv), each upstream's base URL
// (UpstreamVar), TESTBED_PROVIDER, TESTBED_MODEL, TESTBED_MODEL_URL,
// TESTBED_API (when the endpoint names one), TESTBED_STREAM (when it
// streams), TESTBED_NOW (now, RFC 3339), TESTBED_CLOCK_URL,
// TESTBED_TURN_URL, TESTBED_VARIANT (the variant's config as a JSON object,
// {} without one), TracingOff (unless env: sets it), with
// agent.clock: fake the libfaketime preload set to now (fakeClock), the
// forward proxy that catches calls to other hosts (HTTP_PROXY and
// HTTPS_PROXY, NO_PROXY for loopback) and, for a service (port not 0),
// PORT. The run's driver and testbed proxy both use it, so that an agent
// started by hand gets what a run gives it.
func Environment(spec Spec, ep llm.Endpoint, upstreams map[string]string, variant map[string]any, now time.Time, base string, port int) (map[string]string, error) {
	env := maps.Clone(spec.Env)
	if env == nil {
		env = map[string]string{}
	}
	maps.Copy(env, proxy.ModelEnv(ep, base))
	for name := range upstreams {
		env[UpstreamVar(name, spec.UpstreamEnv)] = base + "/upstream/" + name
	}
	env["TESTBED_PROVIDER"], env["TESTBED_MODEL"], env["TESTBED_MODEL_URL"] = ep.Provider, ep.Model, ep.BaseURL
	if ep.API != "" {
		env["TESTBED_API"] = ep.API
	}
	if ep.Stream {
		env["TESTBED_STREAM"] = "true"
	}
	// Any host called directly, not through the base URLs above, goes to
	// the proxy, which refuses it and fails the scenario; loopback (the
	// base URLs) goes direct.
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		env[k] = proxy.ForwardProxy(base)
	}
	env["NO_PROXY"], env["no_proxy"] = "127.0.0.1,localhost,::1", "127.0.0.1,localhost,::1"
	env["TESTBED_NOW"] = now.Format(time.RFC3339Nano) // as TESTBED_CLOCK_URL says it: whole seconds as RFC 3339 has them
	if spec.FakeClock {
		fake, err := fakeClock(now, time.Now())
		if err != nil {
			return nil, err
		}
		maps.Copy(env, fake)
	}
	if _, set := spec.Env[TracingOff]; !set {
		env[TracingOff] = "1"
	}
	env["TESTBED_CLOCK_URL"] = base + "/clock"
	env["TESTBED_TURN_URL"] = base + "/turn"
	if variant == nil {
		variant = map[string]any{} // a variant without config: an object all the same
	}
	b, err := json.Marshal(variant)
	if err != nil {
		return nil, err
	}
	env["TESTBED_VARIANT"] = string(b)
	if port != 0 {
		env["PORT"] = strconv.Itoa(port)
	}
	return env, nil
}

// TracingOff is the variable that turns off the OpenAI Agents SDK's
// tracing (JavaScript and Python alike). Its trace exporter posts to
// https://api.openai.com/v1/traces/ingest whatever OPENAI_BASE_URL says,
// with the placeholder key a program is given, so under testbed it could
// only fail: a call to a host not given, which fails the scenario in the
// network namespace, and elsewhere sends the run's prompts off the
// machine to be refused. Environment sets it to 1 unless the suite's
// env: sets it.
const TracingOff = "OPENAI_AGENTS_DISABLE_TRACING"

// EnvList is env as KEY=value entries, sorted by key, for exec.Cmd.Env.
func EnvList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}
