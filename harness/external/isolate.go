package external

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/proxy"
)

// IsolateCommand is the hidden subcommand of the program named by
// Spec.Isolate that IsolateMain serves: testbed starts itself with it, in
// a user and network namespace of the agent's own, to make the proxy
// reachable there and start the agent.
const IsolateCommand = "__isolate"

// Isolation says how an agent's program was kept off the network.
type Isolation struct {
	// Hermetic is true when the program ran in a network namespace of its
	// own, where only the proxy is reachable.
	Hermetic bool
	// Reason says, when not Hermetic, why it could not be.
	Reason string
}

// String is the phrase the hermeticity line of a report uses:
// "hermetic by network namespace" or "not isolated: <reason>".
func (i Isolation) String() string {
	if i.Hermetic {
		return "hermetic by network namespace"
	}
	return "not isolated: " + i.Reason
}

// lookupError is an agent's lookup of host names it was not given, seen
// by the name server of its network namespace; model is the run's model
// endpoint.
type lookupError struct {
	hosts []string
	model llm.Endpoint
}

func (e *lookupError) Error() string {
	// The advice for the host the model's API is on, if it was looked up,
	// comes first: naming that host as an upstream would not do.
	advice := proxy.DirectAdvice(e.hosts[0]) // for a host no model is on
	for _, h := range e.hosts {
		if a := proxy.DirectAdvice(h, e.model); a != advice {
			if len(e.hosts) > 1 {
				a += "; for the other hosts, " + advice
			}
			advice = a
			break
		}
	}
	return fmt.Sprintf("the agent looked up %s, not through the base URLs it was given (%s): it runs in a network namespace where only testbed's proxy is reachable, so the call failed there and would have left the machine elsewhere; %s",
		strings.Join(e.hosts, ", "), proxy.GivenBaseURLs(e.model), advice)
}

func (e *lookupError) Is(target error) bool { return target == ErrEscaped }

// lookups are the host names a program looked up, in order, and how many
// of them a run has claimed.
type lookups struct {
	mu      sync.Mutex
	names   []string
	claimed int
	wake    chan struct{} // closed, and replaced, by each add
}

func (l *lookups) add(name string) {
	l.mu.Lock()
	l.names = append(l.names, name)
	if l.wake != nil {
		close(l.wake)
		l.wake = nil
	}
	l.mu.Unlock()
}

// watch calls seen once, as soon as the program has looked up a name no
// run has claimed yet (at once if it already has), unless stop is closed
// first. Such a run fails whatever the program answers, so the run stops
// waiting for its answer then: a client that retries a fetch it cannot
// make (a tokenizer, telemetry) would otherwise hold the run for its
// whole turn timeout.
func (l *lookups) watch(stop <-chan struct{}, seen func()) {
	for {
		l.mu.Lock()
		pending := len(l.names) > l.claimed
		if l.wake == nil {
			l.wake = make(chan struct{})
		}
		wake := l.wake
		l.mu.Unlock()
		if pending {
			seen()
			return
		}
		select {
		case <-wake:
		case <-stop:
			return
		}
	}
}

// errLookedUp ends the wait for a turn's answer once the program has
// looked up a host it was not given (lookups.watch); the lookup's own
// error leads the run's.
var errLookedUp = errors.New("testbed stopped waiting for its answer when it looked that host up: the run fails whatever it answers")

// claim is the error naming the distinct hosts looked up since the last
// claim, or nil, and claims them: a run claims, as it ends, what its
// program looked up while it served it, and before (as it started, and
// while a kept program waited for the run); model is the run's model
// endpoint.
func (l *lookups) claim(model llm.Endpoint) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var hosts []string
	for _, n := range l.names[l.claimed:] {
		if !slices.Contains(hosts, n) {
			hosts = append(hosts, n)
		}
	}
	l.claimed = len(l.names)
	if len(hosts) == 0 {
		return nil
	}
	return &lookupError{hosts: hosts, model: model}
}

// ignoredLookup says whether a looked-up name is the machine's own, which
// a resolver may ask for without the program calling anyone.
func ignoredLookup(name, hostname string) bool {
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	return name == "" || name == "localhost" || strings.HasSuffix(name, ".localhost") ||
		hostname != "" && (name == strings.ToLower(hostname) || strings.HasPrefix(name, strings.ToLower(hostname)+"."))
}

// errNoAnswer is a turn the program did not answer in time.
var errNoAnswer = errors.New("the agent did not answer")
