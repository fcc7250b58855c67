package otlp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"sync"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/agentreplay/testbed/harness/report"
)

// WriteJSON writes the spans of r to w as OTLP/JSON (the OTLP
// specification's JSON Protobuf Encoding: lowercase hex trace and span ids,
// integer enums, lowerCamelCase names): one ExportTraceServiceRequest per
// line, one line per scenario run, each a body the OTLP/HTTP endpoint
// /v1/traces takes as application/json.
func WriteJSON(ctx context.Context, w io.Writer, r *report.Report, opts Options) error {
	exp, err := otlptrace.New(ctx, &lines{w: w})
	if err != nil {
		return fmt.Errorf("start otlp json exporter: %w", err)
	}
	err = Export(ctx, r, exp, opts)
	if serr := exp.Shutdown(ctx); err == nil && serr != nil {
		err = fmt.Errorf("stop otlp json exporter: %w", serr)
	}
	return err
}

// PushRetry is how long Push retries a failed send: an unreachable
// collector fails the push in seconds, not in the exporter's default minute.
const PushRetry = 5 * time.Second

// Push sends the spans of r over OTLP/HTTP to endpoint, a URL such as
// http://localhost:4318 (the path /v1/traces is added when it has none).
// Push stops at the first run the endpoint does not take; a failed send is
// retried for up to PushRetry. Extra otlptracehttp options (headers, TLS,
// another retry policy) come after Push's own and override them.
func Push(ctx context.Context, endpoint string, r *report.Report, opts Options, httpOpts ...otlptracehttp.Option) error {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return fmt.Errorf("otlp endpoint %q is not a URL such as http://localhost:4318", endpoint)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	retry := otlptracehttp.RetryConfig{Enabled: true, InitialInterval: 250 * time.Millisecond, MaxInterval: time.Second, MaxElapsedTime: PushRetry}
	own := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(u.String()), otlptracehttp.WithRetry(retry)}
	exp, err := otlptracehttp.New(ctx, append(own, httpOpts...)...)
	if err != nil {
		return fmt.Errorf("otlp endpoint %s: %w", endpoint, err)
	}
	err = Export(ctx, r, exp, opts)
	if serr := exp.Shutdown(ctx); err == nil && serr != nil {
		err = fmt.Errorf("stop otlp exporter for %s: %w", endpoint, serr)
	}
	if err != nil {
		return fmt.Errorf("push to %s: %w", endpoint, err)
	}
	return nil
}

// lines is an otlptrace.Client that writes each upload as one line of
// OTLP/JSON. protojson's defaults are not OTLP/JSON (base64 ids, enum
// names), so the request goes through the Collector's pdata, whose JSON
// marshaler is the encoding's reference, and is compacted.
type lines struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lines) Start(context.Context) error { return nil }
func (l *lines) Stop(context.Context) error  { return nil }

func (l *lines) UploadTraces(_ context.Context, spans []*tracepb.ResourceSpans) error {
	pb, err := proto.Marshal(&collectortrace.ExportTraceServiceRequest{ResourceSpans: spans})
	if err != nil {
		return fmt.Errorf("encode otlp: %w", err)
	}
	td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(pb)
	if err != nil {
		return fmt.Errorf("encode otlp json: %w", err)
	}
	raw, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		return fmt.Errorf("encode otlp json: %w", err)
	}
	// The Collector's marshaler writes compact JSON, one line; compacting
	// it again took a quarter of the export (BenchmarkWriteJSON), so it is
	// compacted only if a line break is in it.
	if bytes.IndexByte(raw, '\n') >= 0 {
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			return fmt.Errorf("compact otlp json: %w", err)
		}
		raw = b.Bytes()
	}
	raw = append(raw, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.Write(raw); err != nil {
		return fmt.Errorf("write otlp json: %w", err)
	}
	return nil
}
