package external

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentreplay/testbed/agents"
)

// turnIn is one line to the program.
type turnIn struct {
	Turn        int          `json:"turn"`
	Turns       int          `json:"turns"`
	Input       string       `json:"input"`
	Session     string       `json:"session"`
	Attachments []attachment `json:"attachments,omitempty"`
	// Env is, on a run's first line to a program serving several variants
	// (Spec.RunEnv), the run's environment.
	Env map[string]string `json:"env,omitempty"`
}

type attachment struct {
	Name        string `json:"name"`
	MIME        string `json:"mime"`
	Description string `json:"description,omitempty"`
	Data        string `json:"data"` // base64
}

// turnOut is one reply of the program, whichever way it came: a line on
// stdout, a web service's JSON response, an MCP tool result.
type turnOut struct {
	Text  *string         `json:"text"`
	Data  json.RawMessage `json:"data"`
	Notes []Note          `json:"notes"`
	Tools []toolReport    `json:"tools"`
}

// Note is one fact an outside agent reports with a reply, as a built-in
// agent notes it through agents.Tracer.
type Note struct {
	Key   string `json:"key"`
	Value any    `json:"value"`
}

// toolReport is a tool call a program reports itself. Raw and Context
// are nil when the report leaves them out: they are then read from the
// traffic (turnCalls), as for a program that reports no tools.
type toolReport struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
	Raw  *string         `json:"raw"`
	// RawFrom names the upstream answer (ExchangeHeader) whose body is
	// the raw payload, in place of Raw.
	RawFrom string  `json:"raw_from"`
	Context *string `json:"context"`
	Error   string  `json:"error"`
}

// lines is a conversation with a program on JSON lines.
type lines struct {
	proc     *process
	in       []turnIn
	allTurns bool
	kept     bool // the program serves other runs after this one
	timeout  time.Duration
}

func newLines(proc *process, in agents.Input, session string, env map[string]string, allTurns, kept bool, timeout time.Duration) *lines {
	c := &lines{proc: proc, allTurns: allTurns, kept: kept, timeout: timeout}
	for i, input := range in.Turns {
		line := turnIn{Turn: i, Turns: len(in.Turns), Input: input, Session: session}
		if i == 0 {
			line.Env = env
			for _, at := range in.Attachments {
				line.Attachments = append(line.Attachments, attachment{Name: at.Name, MIME: at.MIME, Description: at.Description, Data: base64.StdEncoding.EncodeToString(at.Data)})
			}
		}
		c.in = append(c.in, line)
	}
	if allTurns {
		go c.write(c.in)
	}
	return c
}

// ask sends turn i, unless every turn went at once, and reads its reply.
func (c *lines) ask(ctx context.Context, i int) (turnOut, error) {
	if !c.allTurns {
		go c.write(c.in[i : i+1])
	}
	timer := time.NewTimer(c.timeout)
	defer timer.Stop()
	for {
		var out turnOut
		select {
		case line, ok := <-c.proc.lines:
			if !ok {
				return out, c.proc.gone("before it answered", nil)
			}
			err := json.Unmarshal([]byte(line), &out)
			if err == nil && out.Text == nil && logRecord(line) {
				c.proc.log(line)
				continue
			}
			if err != nil || out.Text == nil {
				return out, fmt.Errorf("the agent wrote a line of %d bytes that is not a reply ({\"text\": …} as one JSON line): %q%s", len(line), clip(line), c.proc.tail())
			}
			return out, nil
		case <-timer.C:
			return out, fmt.Errorf("%w within %s%s", errNoAnswer, c.timeout, c.proc.tail())
		case <-ctx.Done():
			return out, ctx.Err()
		}
	}
}

// logRecord reports whether line, a JSON object without "text", is a
// structured log record (pino's, winston's, slog's, structlog's, Python's
// JSON formatters'): it has a level, "level", "levelname" or "severity".
func logRecord(line string) bool {
	var rec map[string]json.RawMessage
	if json.Unmarshal([]byte(line), &rec) != nil {
		return false
	}
	for _, k := range []string{"level", "levelname", "severity"} {
		if _, ok := rec[k]; ok {
			return true
		}
	}
	return false
}

// write sends turns, one JSON line each; a program that exits early makes
// it stop (ask says why).
func (c *lines) write(turns []turnIn) {
	for _, in := range turns {
		b, err := json.Marshal(in)
		if err != nil {
			return
		}
		if _, err := c.proc.stdin.Write(append(b, '\n')); err != nil {
			return
		}
	}
}

// end closes the program's stdin and waits for it to exit, unless it is
// kept for other runs.
func (c *lines) end() error {
	if c.kept {
		return nil
	}
	return c.proc.finish()
}
