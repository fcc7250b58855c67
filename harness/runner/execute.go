package runner

import (
	"context"
	"fmt"
	"mime"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/files"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/scenario"
)

// execute builds the agent from cfg, runs the scenario's turns through it
// within ctx, and closes the cassette: a recording is saved only when
// everything went through, and is aborted otherwise.
func (r *sampleRun) execute(ctx, parent context.Context, cfg agents.Config) {
	agent, err := r.entry.New(cfg)
	if err == nil {
		in := agents.Input{}
		for _, t := range r.j.scenario.Turns {
			in.Turns = append(in.Turns, t.Input)
		}
		in.Attachments, err = loadAttachments(filepath.Join(r.opts.Root, "fixtures", r.j.suite.Agent), r.j.scenario.Attachments)
		if err == nil {
			began := time.Now()
			r.ans, r.out.Crashed, err = runAgent(ctx, agent, in)
			r.out.Processing = max(0, time.Since(began)-r.waited.total())
			if t, ok := agent.(agents.Timed); ok {
				r.out.Wall = wallOf(t.Timing(), r.waited.total())
			}
		}
	}
	r.timedOut = ctx.Err() != nil
	switch {
	case parent.Err() != nil:
		// Interrupted: whatever the agent managed is not a complete recording.
		err = fmt.Errorf("interrupted: %w", parent.Err())
	case r.timedOut && err == nil:
		err = fmt.Errorf("scenario stopped after %s: %w", r.opts.Timeout, ctx.Err())
	}
	if parent.Err() == nil {
		// A stand-in that could not answer: the agent went on with an error
		// (or failed on it), which is nothing to keep; that is the cause.
		if uerr := r.tp.Unanswered(); uerr != nil {
			err = uerr
		}
	}
	if refused := r.guard.refusal(); refused != nil {
		// The agent may have gone on without the call: not a recording.
		err = refused
	}
	switch {
	case r.tp.Recording() && (err != nil || r.failed.Load()):
		// A recording that did not complete never replaces the cassette.
		r.tp.Abort()
		if err == nil {
			// Name the request: an agent that answered well gives no other clue.
			r.staleMu.Lock()
			failure := r.failure
			r.staleMu.Unlock()
			if failure != "" {
				err = fmt.Errorf("recording aborted after a failed request (%s); the previous cassette is kept", failure)
			} else {
				err = fmt.Errorf("recording aborted after a failed request; the previous cassette is kept")
			}
		}
	case r.tp.Recording():
		r.unsaved = true // saved once graded (save)
	default:
		r.closeErr = r.tp.Close()
	}
	r.err = err
}

// runAgent runs the agent, turning a panic into an error: one broken
// scenario never stops the run.
func runAgent(ctx context.Context, agent agents.Agent, in agents.Input) (ans agents.Answer, crashed bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			ans, crashed, err = agents.Answer{}, true, fmt.Errorf("agent panicked: %v", r)
		}
	}()
	ans, err = agent.Run(ctx, in)
	return ans, false, err
}

// loadAttachments reads a scenario's attachment files from dir.
func loadAttachments(dir string, refs []scenario.AttachmentRef) ([]agents.Attachment, error) {
	var out []agents.Attachment
	for _, r := range refs {
		data, err := files.ReadIn(dir, r.File, files.MaxBytes)
		if err != nil {
			return nil, fmt.Errorf("attachment %s: %w", r.File, err)
		}
		m := r.MIME
		if m == "" {
			m = mimeOf(r.File)
		}
		out = append(out, agents.Attachment{Name: filepath.Base(r.File), MIME: m, Description: r.Description, Data: data})
	}
	return out, nil
}

// mimeOf guesses a MIME type from a file name, without the charset.
func mimeOf(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return "application/json"
	case ".csv":
		return "text/csv"
	case ".txt", ".md", ".log":
		return "text/plain"
	}
	if t := mime.TypeByExtension(filepath.Ext(name)); t != "" {
		return strings.SplitN(t, ";", 2)[0]
	}
	return "application/octet-stream"
}

// wallOf splits the wall time of a run of an agent outside testbed: the
// program's start, the proxy's own work on its calls (the session's time
// less the cassette's), the cassette, and the agent's own rest.
func wallOf(t agents.Timing, cassette time.Duration) *report.WallTime {
	proxy := max(0, t.Calls-cassette)
	return &report.WallTime{
		Start:    t.Start,
		Proxy:    proxy,
		Cassette: cassette,
		Agent:    max(0, t.Total-t.Start-t.Calls),
	}
}
