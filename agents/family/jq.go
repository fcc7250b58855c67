//lint:file-ignore ST1005 the tool's answers to the model, worded as the seed's jq_query tool words them

package family

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/itchyny/gojq"

	"github.com/agentreplay/testbed/agents/family/attach"
)

// Bounds of one jq query.
const (
	jqTimeout   = 2 * time.Second
	jqMaxOutput = 8 << 20 // bytes of encoded results
	jqMaxError  = 500     // characters of a gojq error message kept
)

// jq is jq_query: it validates the attachment id, parses the JSON, compiles
// the program and runs it within a time and output bound. One result is
// returned as is, several as a list. Bad input gets an error text the model
// can act on.
func (a *Agent) jq(ctx context.Context, argJSON json.RawMessage) (toolResult, []byte) {
	var args struct {
		ID      string `json:"attachment_id"`
		Program string `json:"jq_program"`
	}
	if err := json.Unmarshal(argJSON, &args); err != nil || args.ID == "" || args.Program == "" {
		return fail("attachment_id and jq_program are required."), nil
	}
	att, ok := a.store.Get(args.ID)
	if !ok {
		return fail("Attachment with ID %s not found.", args.ID), nil
	}
	out, err := runJQ(ctx, att, args.Program)
	if err != nil {
		return fail("%v", err), att.Data
	}
	return toolResult{ok: true, text: string(out)}, att.Data
}

// runJQ evaluates program over the JSON document att holds.
func runJQ(ctx context.Context, att attach.Attachment, program string) ([]byte, error) {
	doc, err := att.Value()
	if err != nil {
		return nil, fmt.Errorf("Attachment is not valid JSON. Parse error: %v", err)
	}
	q, err := gojq.Parse(program)
	if err != nil {
		return nil, fmt.Errorf("Invalid jq query. %s", jqMessage(err))
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, fmt.Errorf("Invalid jq query. %s", jqMessage(err))
	}
	ctx, cancel := context.WithTimeout(ctx, jqTimeout)
	defer cancel()
	var results [][]byte // each result's JSON
	size := 0
	iter := code.RunWithContext(ctx, doc)
	for {
		v, ok := iter.Next()
		if !ok {
			break
		}
		if err, isErr := v.(error); isErr {
			if errors.Is(err, context.DeadlineExceeded) {
				return nil, fmt.Errorf("jq query took longer than %s; narrow it", jqTimeout)
			}
			// error("…") in the program makes the message as long as it likes.
			return nil, fmt.Errorf("jq query failed: %s", jqMessage(err))
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("jq result is not JSON: %v", err)
		}
		if size += len(b); size > jqMaxOutput {
			return nil, fmt.Errorf("jq result is larger than %d MiB; select fewer fields or records", jqMaxOutput>>20)
		}
		results = append(results, b)
	}
	if len(results) == 1 {
		return results[0], nil
	}
	// Several results are their list: the encodings joined, as
	// json.Marshal would write the list of them.
	out := make([]byte, 0, size+len(results)+2)
	out = append(out, '[')
	for i, b := range results {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, b...)
	}
	return append(out, ']'), nil
}

// jqMessage is gojq's error as the model reads it: clipped, and valid
// UTF-8 (gojq quotes a byte of a character it cannot read on its own).
func jqMessage(err error) string {
	return clip(strings.ToValidUTF8(err.Error(), "\ufffd"), jqMaxError)
}
