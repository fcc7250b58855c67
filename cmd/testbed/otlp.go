package main

import (
	"context"
	"io"
	"time"

	"github.com/agentreplay/testbed/harness/files"
	"github.com/agentreplay/testbed/harness/otlp"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/scenario"
)

// otlpFlags are run's OpenTelemetry flags.
type otlpFlags struct {
	file, endpoint string
	content        bool
}

func (o *otlpFlags) register(fs *flags) {
	fs.StringVar(&o.file, "otlp-file", "", "also write the run as OpenTelemetry GenAI spans to this file, as OTLP JSON (one export request per line)")
	fs.StringVar(&o.endpoint, "otlp", "", "also push the run's spans over OTLP/HTTP to this endpoint (e.g. http://localhost:4318)")
	fs.BoolVar(&o.content, "otlp-content", false, "put the model's answers and the tools' arguments in the spans (with --prompts, what each model call was sent too)")
}

// export writes and pushes the run's spans as the flags ask; the spans'
// clock is each suite's clock:.
func (o otlpFlags) export(ctx context.Context, rep *report.Report, suites []*scenario.Suite) error {
	if o.file == "" && o.endpoint == "" {
		return nil
	}
	opts := otlp.Options{Start: map[string]time.Time{}, Content: o.content}
	for _, s := range suites {
		opts.Start[s.Name] = s.Clock
	}
	if o.file != "" {
		if err := files.WriteAtomic(o.file, func(w io.Writer) error { return otlp.WriteJSON(ctx, w, rep, opts) }); err != nil {
			return err
		}
	}
	if o.endpoint != "" {
		return otlp.Push(ctx, o.endpoint, rep, opts)
	}
	return nil
}
