package runner

import (
	"context"
	"log/slog"

	"github.com/agentreplay/testbed/harness/trace"
)

// NoteLog is the trace note key of a captured agent log record.
const NoteLog = "log"

// traceHandler is a slog.Handler that records each log record as a trace
// note: {level, msg, attrs}. Records are deterministic: no time is kept.
type traceHandler struct {
	trace *trace.Trace
	attrs []slog.Attr
	group string
}

func (h *traceHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *traceHandler) Handle(_ context.Context, r slog.Record) error {
	attrs := map[string]any{}
	add := func(a slog.Attr) {
		key := a.Key
		if h.group != "" {
			key = h.group + "." + key
		}
		attrs[key] = a.Value.Resolve().Any()
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(func(a slog.Attr) bool { add(a); return true })
	h.trace.Add(trace.Event{Kind: trace.KindNote, Note: &trace.Note{Key: NoteLog,
		Value: map[string]any{"level": r.Level.String(), "msg": r.Message, "attrs": attrs}}})
	return nil
}

func (h *traceHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &traceHandler{trace: h.trace, attrs: append(append([]slog.Attr(nil), h.attrs...), as...), group: h.group}
}

func (h *traceHandler) WithGroup(name string) slog.Handler {
	g := name
	if h.group != "" {
		g = h.group + "." + name
	}
	return &traceHandler{trace: h.trace, attrs: h.attrs, group: g}
}
