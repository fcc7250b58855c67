package check

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/itchyny/gojq"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/trace"
)

// jqTimeout bounds one jq evaluation; a safety net against expressions that
// never end, not a performance assertion.
const jqTimeout = time.Second

// CompileJQ compiles a jq expression as Turn will run it (with the variables
// $text, $trace and $metrics), for validating suites up front.
func CompileJQ(expr string) error {
	_, err := compileJQ(expr)
	return err
}

func compileJQ(expr string) (*gojq.Code, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("parse jq %s: %w", expr, err)
	}
	code, err := gojq.Compile(q, gojq.WithVariables([]string{"$text", "$trace", "$metrics"}))
	if err != nil {
		return nil, fmt.Errorf("compile jq %s: %w", expr, err)
	}
	return code, nil
}

// jqInput is the input and the variables of a turn's jq expressions, as plain
// JSON values.
type jqInput struct {
	data, text, trace, metrics any
}

// jqInputs makes what exprs can read: the reply's data and text, and the
// trace and the metrics when an expression names $trace or $metrics. A
// query reads a variable only by its name, so one that does not name it
// cannot tell it was left null; turning a long trace into JSON values
// cost more than most checks.
func jqInputs(reply agents.Reply, events []trace.Event, exprs []string) (jqInput, error) {
	in := jqInput{text: reply.Text}
	var err error
	if in.data, err = plainJSON(reply.Data); err != nil {
		return in, fmt.Errorf("reply data is not JSON: %w", err)
	}
	if events == nil {
		events = []trace.Event{} // [] rather than null
	}
	if names(exprs, "$trace") {
		if in.trace, err = plainJSON(events); err != nil {
			return in, fmt.Errorf("trace events are not JSON: %w", err)
		}
	}
	if names(exprs, "$metrics") {
		if in.metrics, err = plainJSON(trace.Measure(events)); err != nil {
			return in, fmt.Errorf("metrics are not JSON: %w", err)
		}
	}
	return in, nil
}

// names reports whether any of exprs contains variable.
func names(exprs []string, variable string) bool {
	return slices.ContainsFunc(exprs, func(e string) bool { return strings.Contains(e, variable) })
}

// plainJSON converts v to the values encoding/json decodes into an any.
func plainJSON(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(b, &out)
	return out, err
}

// checkJQ passes when the first output of expr is exactly true.
func checkJQ(expr string, in jqInput) string {
	code, err := compileJQ(expr)
	if err != nil {
		return err.Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), jqTimeout)
	defer cancel()
	v, ok := code.RunWithContext(ctx, in.data, in.text, in.trace, in.metrics).Next()
	switch {
	case !ok:
		return fmt.Sprintf("%s: want true, got no output", expr)
	case v == true:
		return ""
	}
	if err, ok := v.(error); ok {
		return fmt.Sprintf("%s: want true, got error: %v", expr, err)
	}
	b, err := gojq.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%s: want true, got %v", expr, v)
	}
	return fmt.Sprintf("%s: want true, got %s", expr, clip(string(b), excerptLen))
}
