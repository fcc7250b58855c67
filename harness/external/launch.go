package external

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentreplay/testbed/harness/files"
	"github.com/agentreplay/testbed/harness/proxy"
)

// program is a started program: a command speaking JSON lines, or a
// service listening on port.
type program struct {
	proc *process
	port int    // 0 for JSON lines
	base string // the base URL its model and upstreams are reached at
	iso  Isolation
	// stdio is the MCP session over a stdio server's stdin and stdout:
	// one for the program's life, which every run it serves shares.
	stdio *mcp.ClientSession
}

// client is the HTTP client a service driver reaches the program with: a
// jailed one through its helper, inside its network namespace.
func (p *program) client() *http.Client {
	if j := p.proc.jail; j != nil {
		return &http.Client{Transport: &http.Transport{
			DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) { return j.dial(ctx, addr) },
		}}
	}
	return &http.Client{}
}

// service reports whether the program is a service on a port (http:, or
// mcp: over HTTP).
func (a *agent) service() bool {
	return a.spec.HTTP != nil || a.spec.MCP != nil && a.spec.MCP.Transport != TransportStdio
}

// lines reports whether the program speaks JSON lines (neither http: nor
// mcp:).
func (a *agent) lines() bool { return a.spec.HTTP == nil && a.spec.MCP == nil }

// launch starts the program with the base URLs at base, of proxy p, to be
// killed when life ends; a service is given a free PORT and waited for
// (while ctx lasts) until it listens, and started again on a fresh port
// when another process took its port first.
func (a *agent) launch(ctx, life context.Context, p *proxy.Proxy, base string) (*program, error) {
	if !a.service() {
		return a.launchOn(ctx, life, p, base, 0)
	}
	var taken []string
	for {
		port, release, err := holdPort()
		if err != nil {
			return nil, err
		}
		prog, err := a.launchOn(ctx, life, p, base, port)
		if err == nil {
			go func() {
				<-prog.proc.done
				release()
			}()
			return prog, nil
		}
		release()
		var t *portTaken
		if !errors.As(err, &t) || t.port != port {
			return nil, err
		}
		if taken = append(taken, t.Error()); len(taken) == portTries {
			return nil, fmt.Errorf("the agent's service found no port of its own in %d tries, each taken by another process before it listened: %s (command %q)",
				portTries, strings.Join(taken, "; "), a.spec.Command)
		}
	}
}

// launchOn is launch with the service's port (0 for a command speaking
// JSON lines).
func (a *agent) launchOn(ctx, life context.Context, p *proxy.Proxy, base string, port int) (*program, error) {
	prog := &program{port: port, base: base}
	set, err := Environment(a.spec, a.cfg.Endpoint, a.cfg.Upstreams, a.cfg.Variant, a.cfg.Clock(), base, prog.port)
	if err != nil {
		return nil, err
	}
	env := Inherited()
	maps.Copy(env, set)
	v := vars{port: prog.port}
	argv := make([]string, len(a.spec.Command))
	for i, arg := range a.spec.Command {
		argv[i] = v.text(arg)
	}
	dir := filepath.Join(a.root, a.spec.Dir)
	if _, err := files.Inside(a.root, dir); err != nil {
		return nil, fmt.Errorf("agent.dir: %w", err)
	}
	if a.spec.FakeClock {
		if err := notGo(argv[0], dir); err != nil {
			return nil, err
		}
	}
	prog.iso = a.isolation()
	var j *jail
	if prog.iso.Hermetic {
		if j, err = newJail(a.spec.Isolate, p); err != nil {
			return nil, err
		}
	}
	use := stdoutLines
	switch {
	case a.service():
		use = stdoutOutput
	case a.spec.MCP != nil:
		use = stdoutRaw
	}
	if prog.proc, err = start(life, argv, dir, EnvList(env), use, j, a.spec.Isolate); err != nil {
		if j != nil {
			j.close()
		}
		return nil, err
	}
	if !a.service() {
		return prog, nil
	}
	var raw string
	if a.spec.HTTP != nil {
		raw = a.spec.HTTP.URL
	} else {
		raw = a.spec.MCP.URL
	}
	u, err := url.Parse(v.text(raw))
	if err != nil {
		prog.proc.stop()
		return nil, fmt.Errorf("the agent's url: %w", err)
	}
	addr := u.Host
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" {
			port = "443"
		}
		addr = net.JoinHostPort(u.Hostname(), port)
	}
	if err := prog.proc.waitPort(ctx, addr, cmp.Or(a.spec.StartTimeout, DefaultStartTimeout)); err != nil {
		prog.proc.stop()
		return nil, err
	}
	return prog, nil
}

// isolation is how the program will be kept off the network.
func (a *agent) isolation() Isolation {
	switch {
	case a.spec.HostNetwork:
		return Isolation{Reason: "the suite asks for the machine's network (agent.network: host): a call that ignores HTTP_PROXY is not seen"}
	case a.spec.Isolate == "":
		return Isolation{Reason: "no namespace helper was given (Spec.Isolate): a call that ignores HTTP_PROXY is not seen"}
	}
	return Probe(a.spec.Isolate)
}
