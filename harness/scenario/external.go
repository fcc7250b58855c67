package scenario

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/agentreplay/testbed/agents/llm"
)

// External describes an agent outside testbed (agent: as a mapping): a
// command that speaks JSON lines, or starts a web service (http:) or an MCP
// server (mcp:), and the endpoints it calls, which the proxy serves it under
// their logical URLs (see package external).
type External struct {
	Command []string          // command: argv
	Dir     string            // dir: working folder, relative to the project root
	Env     map[string]string // env:
	// NotSecret names the env: variables whose values are no secret
	// (not_secret:): written as they are, where every other env: value of
	// 8 bytes or more is replaced by its placeholder.
	NotSecret []string
	Model     llm.Endpoint // model: {provider, base_url, model}
	// Embeddings is the logical base URL of the agent's embeddings calls
	// (embeddings:), when not the model's.
	Embeddings string
	// Upstreams maps each upstream's name to its logical base URL
	// (upstreams: {name: {base_url, env}}); UpstreamEnv to the variable
	// the program reads it from, when not <NAME>_BASE_URL.
	Upstreams   map[string]string
	UpstreamEnv map[string]string
	TurnTimeout time.Duration // turn_timeout:
	AllTurns    bool          // all_turns: the program reads every turn before it answers
	// HTTP or MCP, when set, says the program is a service reached that way
	// (http: or mcp:) rather than a command speaking JSON lines.
	HTTP *HTTPDriver
	MCP  *MCPDriver
	// KeepAlive keeps one program for all of a variant's scenario runs
	// (KeepAliveVariant), or as many as run at once for all of the agent's
	// (KeepAliveAgent), instead of one per scenario run (""): keep_alive:.
	KeepAlive    string
	StartTimeout time.Duration // start_timeout: how long a service may take to open its port
	// FakeClock is clock: fake: the program's wall clock is made to read
	// the scenario's clock with libfaketime (see package external).
	FakeClock bool
	// MaxRequestBody bounds the body of each request the agent sends
	// through the proxy, in bytes (max_request_body: 64MiB); 0 is the
	// proxy's default.
	MaxRequestBody int64
	// HostNetwork is network: host: the program shares the machine's
	// network (a local database it needs), kept to the proxy by HTTP_PROXY
	// alone, rather than a network namespace of its own (isolated).
	HostNetwork bool
	// Line is the line of agent.name, where two suites that describe one
	// agent otherwise are told so.
	Line int
}

var (
	externalKeys = []string{"name", "command", "dir", "env", "not_secret", "model", "embeddings", "upstreams", "turn_timeout", "all_turns", "http", "mcp", "keep_alive", "start_timeout", "clock", "max_request_body", "network"}
	upstreamKeys = []string{"base_url", "env"}
	// externalKey is the key of agent: that sets each field of External.
	externalKey = map[string]string{"Command": "command", "Dir": "dir", "Env": "env", "NotSecret": "not_secret", "Model": "model", "Embeddings": "embeddings",
		"Upstreams": "upstreams", "UpstreamEnv": "upstreams' env", "TurnTimeout": "turn_timeout", "AllTurns": "all_turns", "HTTP": "http",
		"MCP": "mcp", "KeepAlive": "keep_alive", "StartTimeout": "start_timeout", "FakeClock": "clock", "MaxRequestBody": "max_request_body",
		"HostNetwork": "network"}
)

// external reads agent: as a mapping, and returns the agent's name.
func (d *decoder) external(v *yaml.Node, s *Suite) {
	const at = "agent"
	m, fs, ok := d.mapping(v, at, "an agent name, or a mapping describing an agent outside testbed", externalKeys...)
	if !ok {
		return
	}
	if d.opts.InProcess {
		d.require(m, fs, at, "name", "model")
	} else {
		d.require(m, fs, at, "name", "command", "model")
	}
	e := &External{}
	if f, ok := fs["name"]; ok {
		e.Line = resolve(f.val).Line
		if name, ok := d.str(f.val, join(at, "name")); ok {
			if !suiteName.MatchString(name) {
				d.errorf(resolve(f.val).Line, join(at, "name"), "invalid name %q; use lowercase letters, digits and - (it names fixtures/<name>)", name)
			} else if slices.Contains(d.opts.Agents, name) {
				d.errorf(resolve(f.val).Line, join(at, "name"), "%q is a built-in agent; name yours otherwise", name)
			}
			s.Agent = name
		}
	}
	if f, ok := fs["command"]; ok {
		if argv, ok := d.strs(f.val, join(at, "command"), false); ok {
			if len(argv) == 0 || strings.TrimSpace(argv[0]) == "" {
				d.errorf(resolve(f.val).Line, join(at, "command"), "empty command; give the program and its arguments, like [node, agent.js]")
			}
			e.Command = argv
		}
	}
	if f, ok := fs["dir"]; ok {
		e.Dir, _ = d.str(f.val, join(at, "dir"))
		d.dirLine = resolve(f.val).Line
		if filepath.IsAbs(e.Dir) {
			d.errorf(d.dirLine, join(at, "dir"), "%q is an absolute path; give the agent's folder relative to the project root, inside it", e.Dir)
		}
	}
	envLines := map[string]int{}
	if f, ok := fs["env"]; ok {
		e.Env = map[string]string{}
		if efs, ok := d.anyKeys(f.val, join(at, "env"), "a mapping of variable names to values"); ok {
			for k, ef := range efs {
				e.Env[k], _ = d.str(ef.val, join(join(at, "env"), k))
				envLines[k] = ef.key.Line
			}
		}
	}
	if f, ok := fs["not_secret"]; ok {
		if names, ok := d.strs(f.val, join(at, "not_secret"), false); ok {
			for i, n := range names {
				if _, in := e.Env[n]; !in {
					d.errorf(lineOf(resolve(f.val).Content[i]), index(join(at, "not_secret"), i), "%s is not a variable of env:; list the env: variables whose values are no secret", n)
					continue
				}
				e.NotSecret = append(e.NotSecret, n)
			}
		}
	}
	if f, ok := fs["model"]; ok {
		if ep := d.endpoint(f.val, join(at, "model")); ep != nil {
			e.Model = *ep
			// The model's key variable is set to a placeholder for the
			// program whatever env: says, and the proxy puts the real key
			// on each call: a key here is never used, and would be
			// committed with the suite.
			if k := llm.KeyEnv(ep.Provider); k != "" && envLines[k] > 0 {
				d.errorf(envLines[k], join(join(at, "env"), k), "a model key does not belong in a suite: testbed gives the program a placeholder %s and its proxy puts the real key on each call to a real provider (read from testbed's own environment by record --provider), so this value is never the one used, and it would be committed with the suite file; remove it from env:", k)
			}
		}
	}
	if f, ok := fs["embeddings"]; ok {
		e.Embeddings, _ = d.str(f.val, join(at, "embeddings"))
	}
	if f, ok := fs["upstreams"]; ok {
		e.Upstreams, e.UpstreamEnv = map[string]string{}, map[string]string{}
		uat := join(at, "upstreams")
		if ufs, ok := d.anyKeys(f.val, uat, "a mapping of upstream names to {base_url, env}"); ok {
			for name, uf := range ufs {
				_, bfs, ok := d.mapping(uf.val, join(uat, name), "a mapping with base_url and env", upstreamKeys...)
				if !ok {
					continue
				}
				d.require(resolve(uf.val), bfs, join(uat, name), "base_url")
				if b, ok := bfs["base_url"]; ok {
					e.Upstreams[name], _ = d.str(b.val, join(join(uat, name), "base_url"))
				}
				if b, ok := bfs["env"]; ok {
					e.UpstreamEnv[name], _ = d.str(b.val, join(join(uat, name), "env"))
				}
			}
		}
	}
	if f, ok := fs["all_turns"]; ok {
		e.AllTurns, _ = d.boolean(f.val, join(at, "all_turns"))
	}
	if f, ok := fs["clock"]; ok {
		clock, _ := d.enum(f.val, join(at, "clock"), "system", "fake")
		e.FakeClock = clock == "fake"
		if e.FakeClock && d.opts.InProcess {
			d.errorf(resolve(f.val).Line, join(at, "clock"), "an agent run in-process reads the scenario's clock from agents.Config.Clock; no preload reaches it: remove clock: fake")
		}
	}
	if f, ok := fs["max_request_body"]; ok {
		e.MaxRequestBody = d.size(f.val, join(at, "max_request_body"))
	}
	if f, ok := fs["network"]; ok {
		network, _ := d.enum(f.val, join(at, "network"), "isolated", "host")
		e.HostNetwork = network == "host"
	}
	d.drivers(m, fs, at, e)
	s.External = e
}

// sizeUnits are the units a size may be written in.
var sizeUnits = map[string]int64{"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}

// size reads a byte count above 0: 1048576, 512KiB, 64MiB, 1GiB.
func (d *decoder) size(v *yaml.Node, at string) int64 {
	s, ok := d.str(v, at)
	if !ok {
		return 0
	}
	i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if i < 0 {
		i = len(s)
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	unit, known := sizeUnits[strings.TrimSpace(s[i:])]
	if err != nil || !known || n <= 0 || n > (1<<40)/unit {
		d.errorf(resolve(v).Line, at, "%q is not a size above 0; write it like 64MiB (units B, KiB, MiB, GiB)", s)
		return 0
	}
	return n * unit
}

// anyKeys checks that v is a mapping, whatever its keys, and returns its
// fields.
func (d *decoder) anyKeys(v *yaml.Node, at, want string) (fields, bool) {
	v = resolve(v)
	if !d.present(v, at) {
		return nil, false
	}
	if v.Kind != yaml.MappingNode {
		d.want(v, at, want)
		return nil, false
	}
	_, fs := d.fields(v, at)
	return fs, true
}

// boolean reads true or false.
func (d *decoder) boolean(v *yaml.Node, at string) (bool, bool) {
	v = resolve(v)
	if !d.present(v, at) {
		return false, false
	}
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" {
		d.want(v, at, "true or false")
		return false, false
	}
	var b bool
	if err := v.Decode(&b); err != nil {
		d.want(v, at, "true or false")
		return false, false
	}
	return b, true
}

// sameAgent refuses s when an earlier suite describes an agent outside
// testbed of the same name otherwise: a name is one program (its fixtures,
// the programs kept alive for it), and the last description would run
// every suite's scenarios.
func sameAgent(suites []*Suite, s *Suite) *Error {
	if s.External == nil {
		return nil
	}
	for _, o := range suites {
		if o.External == nil || o.Agent != s.Agent {
			continue
		}
		if key := differs(*o.External, *s.External); key != "" {
			return &Error{Path: s.Path, Line: s.External.Line, Msg: fmt.Sprintf(
				"agent.name: %q is also the name of the agent described in %s:%d, whose %s differs; one name is one program, run for every suite that names it: describe it the same way in both, or give one another name",
				s.Agent, o.Path, o.External.Line, key)}
		}
	}
	return nil
}

// differs returns the suite key of the first field in which a and b, two
// descriptions of an agent, differ, or "" when they describe one program.
func differs(a, b External) string {
	a.Line, b.Line = 0, 0
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := range va.NumField() {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			name := va.Type().Field(i).Name
			if key, ok := externalKey[name]; ok {
				return key
			}
			return strings.ToLower(name)
		}
	}
	return ""
}
