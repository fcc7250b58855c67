package external

import (
	"context"
	"errors"
	"sync"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/proxy"
)

// Pool keeps the programs of agents whose suite says keep_alive: variant:
// one program per variant, started at its first scenario run and kept for
// the others, which it serves one at a time. The programs and the runs
// they serve go through the pool's own proxy, started with its first run
// and closed with the pool, so that it lives as long as they do. Each
// program is given an alias of the proxy (proxy.Proxy.Alias) for its base
// URLs, bound to the session of the run it serves, so that no run's calls
// reach another's cassette. Close ends them all; a run that fails ends its
// program, and the next run starts a fresh one. The order of the runs is
// the caller's: testbed's runner hands a program its runs one after the
// other, in report order.
type Pool struct {
	mu     sync.Mutex
	kept   map[string]*kept
	closed bool
	held   agents.Cache // the pool's proxy
}

// NewPool returns an empty pool. Close it when the run ends.
func NewPool() *Pool { return &Pool{kept: map[string]*kept{}} }

// proxy is the pool's proxy, started at the first call and closed with
// the pool; none once the pool is closed.
func (p *Pool) proxy() (*proxy.Proxy, func(), error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, func() {}, errClosed
	}
	return agents.Hold(&p.held, proxyKind, proxy.Start)
}

// kept is one variant's program.
type kept struct {
	turn  chan struct{} // held by the run the program serves
	prog  *program      // nil before the first run, or after a failed one
	alias string
}

// errClosed is a run that starts after its pool closed.
var errClosed = errors.New("the run is over: its kept-alive programs are stopped")

// acquire waits for the variant's program (key) to be free and returns it,
// started by launch at the alias's base URL if it is not running, with the
// function that hands it back: with failed, its program is stopped.
func (p *Pool) acquire(ctx context.Context, px *proxy.Proxy, session, key string, launch func(base string) (*program, error)) (*program, func(failed bool), error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, nil, errClosed
	}
	k := p.kept[key]
	if k == nil {
		k = &kept{turn: make(chan struct{}, 1)}
		p.kept[key] = k
	}
	p.mu.Unlock()
	select {
	case k.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	free := func() { <-k.turn }
	if k.prog != nil && k.prog.proc.exited() {
		k.prog.proc.stop()
		k.prog = nil
	}
	if k.prog == nil {
		var base string
		k.alias, base = px.Alias()
		prog, err := launch(base)
		if err != nil {
			free()
			return nil, nil, err
		}
		k.prog = prog
	}
	if err := px.Bind(k.alias, session); err != nil {
		free()
		return nil, nil, err
	}
	prog := k.prog
	return prog, func(failed bool) {
		px.Bind(k.alias, "")
		if failed {
			prog.proc.stop()
			k.prog = nil
		}
		free()
	}, nil
}

// Close stops every program the pool keeps, with its process group, and
// refuses runs from now on.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	all := make([]*kept, 0, len(p.kept))
	for _, k := range p.kept {
		all = append(all, k)
	}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, k := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k.turn <- struct{}{} // wait for the run it serves
			if k.prog != nil {
				k.prog.proc.stop()
				k.prog = nil
			}
		}()
	}
	wg.Wait()
	return p.held.Close()
}
