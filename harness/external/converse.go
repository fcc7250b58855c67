package external

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/agentreplay/testbed/agents"
)

// conversation is one scenario run's exchange with the program.
type conversation interface {
	// ask hands the program turn i and returns its reply.
	ask(ctx context.Context, i int) (turnOut, error)
	// end finishes the run.
	end() error
}

// sendsAttachments refuses a run with attachments its driver's template
// would leave out: an http: body or mcp: args without {{attachments}}
// (the default http: body has it).
func (a *agent) sendsAttachments(in agents.Input) error {
	if len(in.Attachments) == 0 {
		return nil
	}
	switch {
	case a.spec.HTTP != nil && a.spec.HTTP.Body != nil && !mentions(a.spec.HTTP.Body, "attachments"):
		return fmt.Errorf("the scenario has %d attachments, and the agent's http: body has no {{attachments}} to send them in: add it, like attachments: \"{{attachments}}\", or parts: [{kind: text, text: \"{{input}}\"}, \"{{attachments}}\"] with an attachment: template", len(in.Attachments))
	case a.spec.MCP != nil && !mentions(a.spec.MCP.Args, "attachments"):
		return fmt.Errorf("the scenario has %d attachments, and the agent's mcp: args have no {{attachments}} to send them in: add one, like args: {query: \"{{input}}\", files: \"{{attachments}}\"}", len(in.Attachments))
	}
	return nil
}

// converse opens a conversation with the program for one scenario run.
func (a *agent) converse(ctx context.Context, prog *program, in agents.Input) (conversation, error) {
	timeout := cmp.Or(a.spec.TurnTimeout, DefaultTurnTimeout)
	session := newSessionID()
	switch {
	case a.spec.HTTP != nil:
		v := vars{session: session, port: prog.port, files: in.Attachments, file: a.spec.HTTP.Attachment}
		return &web{spec: a.spec.HTTP, reply: a.reply, vars: v, in: in.Turns,
			client: prog.client(), timeout: timeout}, nil
	case a.spec.MCP != nil:
		v := vars{session: session, port: prog.port, files: in.Attachments, file: a.spec.MCP.Attachment}
		if a.spec.MCP.Transport == TransportStdio {
			if prog.stdio == nil {
				cs, err := connectStdio(ctx, prog.proc, timeout)
				if err != nil {
					return nil, err
				}
				prog.stdio = cs
			}
			return &toolCall{spec: a.spec.MCP, reply: a.reply, vars: v, in: in.Turns, session: prog.stdio, timeout: timeout, kept: true, proc: prog.proc}, nil
		}
		cs, stop, err := connect(ctx, a.spec.MCP, v, prog.client(), timeout)
		if err != nil {
			return nil, fmt.Errorf("%w%s", err, prog.proc.tail())
		}
		return &toolCall{spec: a.spec.MCP, reply: a.reply, vars: v, in: in.Turns, session: cs, stop: stop, timeout: timeout, proc: prog.proc}, nil
	}
	var env map[string]string
	if a.spec.RunEnv {
		var err error
		if env, err = a.runEnv(prog); err != nil {
			return nil, err
		}
	}
	return newLines(prog.proc, in, session, env, a.spec.AllTurns, a.spec.KeepAlive, timeout), nil
}

// runEnv is what a program serving several variants (Spec.RunEnv) is told
// in a run's first line: the variables Environment sets for this run, but
// for the suite's env: and a fake clock's, which are the same for every
// run and were set when the program started.
// The variables Environment sets only for some runs are given empty when
// it does not, so that another run's value does not hold for this one.
func (a *agent) runEnv(prog *program) (map[string]string, error) {
	spec := a.spec
	spec.Env, spec.FakeClock = nil, false
	env, err := Environment(spec, a.cfg.Endpoint, a.cfg.Upstreams, a.cfg.Variant, a.cfg.Clock(), prog.base, prog.port)
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"TESTBED_API", "TESTBED_STREAM"} {
		if _, ok := env[k]; !ok {
			env[k] = ""
		}
	}
	return env, nil
}

// newSessionID is a fresh conversation id ({{session}}).
func newSessionID() string {
	var b [8]byte
	rand.Read(b[:])
	return "tb-" + hex.EncodeToString(b[:])
}
