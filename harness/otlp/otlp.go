// Package otlp turns a report.Report into OpenTelemetry spans that follow
// the GenAI semantic conventions, and exports them with the OpenTelemetry Go
// SDK: as OTLP JSON lines to a file (WriteJSON) or over OTLP/HTTP (Push).
//
// Each scenario run becomes one trace: an invoke_agent span with a chat span
// (generate_content for the Gemini API) per model call, an execute_tool span
// per tool call and an HTTP client span per upstream exchange. Timestamps are on the virtual clock (the suite's
// clock plus each event's offset) and trace and span ids are derived from
// the suite, variant, scenario, sample and step, so the same report always
// gives the same spans, byte for byte. Message content (the model's answers
// and the tools' arguments) is left out unless Options.Content is set.
//
// The package does not trace a live run as it happens: it reads a finished
// report.
package otlp

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

// ScopeName is the instrumentation scope of the spans.
const ScopeName = "github.com/agentreplay/testbed/harness/otlp"

// DefaultStart returns the virtual start of the scenarios of a suite that
// Options.Start has no clock for: 2025-01-01T00:00:00Z.
func DefaultStart() time.Time { return time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC) }

// Attribute keys of the spans beyond the semantic conventions.
const (
	KeySuite         = attribute.Key("testbed.suite")
	KeyVariant       = attribute.Key("testbed.variant")
	KeyScenario      = attribute.Key("testbed.scenario")
	KeySample        = attribute.Key("testbed.sample")
	KeyVerdict       = attribute.Key("testbed.verdict")
	KeyRole          = attribute.Key("testbed.llm.role")
	KeyTurn          = attribute.Key("testbed.turn")
	KeyCountedInput  = attribute.Key("testbed.tokens.input")
	KeyCountedOutput = attribute.Key("testbed.tokens.output")
	KeyReasoning     = attribute.Key("testbed.usage.reasoning_tokens")
	KeyTTFT          = attribute.Key("testbed.stream.time_to_first_token")
	// KeyRawFinishReason is the finish reason as the provider sent it;
	// gen_ai.response.finish_reasons holds the neutral one.
	KeyRawFinishReason = attribute.Key("testbed.response.raw_finish_reason")
	// KeyCost is a model call's price in US dollars, KeyCostFrom what it
	// was priced from ("reported" usage or testbed's "counted" tokens), and
	// KeyCostUnpriced is true on a call whose model has no price: it
	// carries no testbed.cost.usd rather than 0. A call with parts the
	// table has no price for (a service tier, web searches) carries
	// KeyCostUnpriced beside the price of the rest, and
	// KeyCostUnpricedParts names them.
	KeyCostUnpricedParts = attribute.Key("testbed.cost.unpriced_parts")
	KeyCost              = attribute.Key("testbed.cost.usd")
	KeyCostFrom          = attribute.Key("testbed.cost.from")
	KeyCostUnpriced      = attribute.Key("testbed.cost.unpriced")
	KeyRawTokens         = attribute.Key("testbed.tool.raw_tokens")
	KeyContextTokens     = attribute.Key("testbed.tool.context_tokens")
	KeyRawBytes          = attribute.Key("testbed.tool.raw_bytes")
	KeyFault             = attribute.Key("testbed.fault")
	KeyFailedChecks      = attribute.Key("testbed.failed_checks")
	KeyNoteKey           = attribute.Key("testbed.note.key")
	KeyNoteValue         = attribute.Key("testbed.note.value")
	// KeyJudged is true on a check's evaluation whose outcome rests on the
	// model's judgement (the suite's judged: list, a rubric).
	KeyJudged = attribute.Key("testbed.check.judged")
)

// Names of the span events and of the evaluation.
const (
	// EventEvaluation is the invoke_agent span's event that states the
	// run's verdict, and the one of each check of the run (named by the
	// check: route, rubric[0], …).
	EventEvaluation = "gen_ai.evaluation.result"
	// EventNote is the invoke_agent span's event for each note the agent made.
	EventNote = "testbed.note"
	// EvaluationVerdict is the gen_ai.evaluation.name of the verdict.
	EvaluationVerdict = "testbed.verdict"
)

// Options are the knobs of an export; the zero value works.
type Options struct {
	// Start maps a suite's name to its clock: the virtual time at which
	// each of its scenarios starts. A suite not in it starts at
	// DefaultStart().
	Start map[string]time.Time
	// Content adds the model's answers (gen_ai.output.messages) and the
	// tools' arguments (gen_ai.tool.call.arguments) to the spans.
	Content bool
}

// Export builds the spans of every scenario run in r and hands them to exp,
// one ExportSpans call per run, in the report's order. It does not shut exp
// down.
func Export(ctx context.Context, r *report.Report, exp sdktrace.SpanExporter, opts Options) error {
	rec := &recorder{}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithSpanProcessor(rec),
		sdktrace.WithIDGenerator(ids{}),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithResource(sdkresource.NewSchemaless(semconv.ServiceName("testbed"))),
	)
	defer func() { _ = tp.Shutdown(ctx) }()
	tracer := tp.Tracer(ScopeName)
	for _, s := range r.Suites {
		start, ok := opts.Start[s.Name]
		if !ok || start.IsZero() {
			start = DefaultStart()
		}
		for _, v := range s.Variants {
			for _, sc := range v.Scenarios {
				for _, run := range runs(sc) {
					rec.spans = rec.spans[:0]
					b := builder{tracer: tracer, opts: opts, start: start, suite: s, variant: v, run: run}
					b.build(ctx)
					if err := exp.ExportSpans(ctx, rec.sorted()); err != nil {
						return fmt.Errorf("export %s/%s/%s#%d: %w", s.Name, v.Name, sc.ID, run.sample, err)
					}
				}
			}
		}
	}
	return nil
}

// run is one replayed sample of a scenario.
type run struct {
	scenario report.Scenario
	sample   int
	verdict  string
	errText  string
	events   []trace.Event
	// checks are the run's checks: a report keeps them for sample 1 only.
	checks []report.Check
}

// runs returns the samples of sc: sc itself when it was not sampled.
func runs(sc report.Scenario) []run {
	if sc.Sampling == nil || len(sc.Sampling.Runs) == 0 {
		return []run{{scenario: sc, sample: 1, verdict: sc.Verdict, errText: sc.Error, events: sc.Events, checks: sc.Checks}}
	}
	out := make([]run, 0, len(sc.Sampling.Runs))
	for _, r := range sc.Sampling.Runs {
		ru := run{scenario: sc, sample: r.Sample, verdict: r.Verdict, errText: r.Error, events: r.Events}
		if r.Sample == 1 {
			ru.checks = sc.Checks
		}
		out = append(out, ru)
	}
	return out
}

// recorder is a span processor that keeps the spans that ended.
type recorder struct {
	spans []sdktrace.ReadOnlySpan
}

func (r *recorder) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (r *recorder) OnEnd(s sdktrace.ReadOnlySpan)                   { r.spans = append(r.spans, s) }
func (r *recorder) Shutdown(context.Context) error                  { return nil }
func (r *recorder) ForceFlush(context.Context) error                { return nil }

// sorted returns the kept spans by start time, the root first among equals.
func (r *recorder) sorted() []sdktrace.ReadOnlySpan {
	out := slices.Clone(r.spans)
	slices.SortStableFunc(out, func(a, b sdktrace.ReadOnlySpan) int {
		if c := a.StartTime().Compare(b.StartTime()); c != 0 {
			return c
		}
		ra, rb := !a.Parent().IsValid(), !b.Parent().IsValid()
		switch {
		case ra && !rb:
			return -1
		case rb && !ra:
			return 1
		}
		return 0
	})
	return out
}

// idKey is the context key under which a span's identity is passed to ids.
type idKey struct{}

// ids derives trace and span ids from the identity in the context: the run's
// for the trace id, the run's and the step's for the span id.
type ids struct{}

// identity is what a span's ids are derived from.
type identity struct {
	run  string // suite/variant/scenario#sample
	step string
}

func (ids) NewIDs(ctx context.Context) (oteltrace.TraceID, oteltrace.SpanID) {
	id, _ := ctx.Value(idKey{}).(identity)
	var t oteltrace.TraceID
	h := sha256.Sum256([]byte("trace\x00" + id.run))
	copy(t[:], h[:])
	return t, spanID(id)
}

func (ids) NewSpanID(ctx context.Context, _ oteltrace.TraceID) oteltrace.SpanID {
	id, _ := ctx.Value(idKey{}).(identity)
	return spanID(id)
}

func spanID(id identity) oteltrace.SpanID {
	var s oteltrace.SpanID
	h := sha256.Sum256([]byte("span\x00" + id.run + "\x00" + id.step))
	copy(s[:], h[:])
	return s
}

// TraceID is the trace id of the given run of a scenario: what a reader
// looks the run up by in a tracing backend.
func TraceID(suite, variant, scenario string, sample int) oteltrace.TraceID {
	t, _ := ids{}.NewIDs(context.WithValue(context.Background(), idKey{}, identity{run: runName(suite, variant, scenario, sample)}))
	return t
}

func runName(suite, variant, scenario string, sample int) string {
	return fmt.Sprintf("%s/%s/%s#%d", suite, variant, scenario, sample)
}

// failed lists the failed checks as "turn N name: detail" (Check.Label).
func failed(checks []report.Check) []string {
	var out []string
	for _, c := range checks {
		if !c.Pass {
			out = append(out, c.Label()+": "+c.Detail)
		}
	}
	return out
}

// errorOther is the error.type of a span whose error has no class of its
// own: the conventions' fallback.
const errorOther = "_OTHER"

// fail marks span as ended in an error when msg is not empty: an error
// status with msg, and error.type kind (an HTTP status code, a fault's
// kind, a verdict, or errorOther), as the conventions require of such a
// span.
func fail(span oteltrace.Span, msg, kind string) {
	if msg != "" {
		span.SetStatus(codes.Error, msg)
		span.SetAttributes(semconv.ErrorTypeKey.String(kind))
	}
}
