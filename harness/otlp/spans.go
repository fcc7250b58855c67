package otlp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	// gen_ai.request.stream and gen_ai.usage.reasoning.output_tokens
	// came after v1.40.0
	semconv141 "go.opentelemetry.io/otel/semconv/v1.41.0"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

// builder makes the spans of one run.
type builder struct {
	tracer  oteltrace.Tracer
	opts    Options
	start   time.Time
	suite   report.Suite
	variant report.Variant
	run     run
}

// interval is the virtual time a chat span covers, with its context.
type interval struct {
	from, to time.Duration
	ctx      context.Context
}

func (b builder) build(ctx context.Context) {
	name := runName(b.suite.Name, b.variant.Name, b.run.scenario.ID, b.run.sample)
	id := func(step string) context.Context {
		return context.WithValue(ctx, idKey{}, identity{run: name, step: step})
	}
	end := time.Duration(0)
	for _, e := range b.run.events {
		end = max(end, e.At+duration(e))
	}
	root, agent := b.tracer.Start(id("agent"), "invoke_agent "+b.suite.Agent,
		oteltrace.WithSpanKind(oteltrace.SpanKindInternal),
		oteltrace.WithTimestamp(b.start),
		oteltrace.WithAttributes(
			semconv.GenAIOperationNameInvokeAgent,
			semconv.GenAIAgentName(b.suite.Agent),
			semconv.GenAIProviderNameKey.String(b.provider()),
			KeySuite.String(b.suite.Name), KeyVariant.String(b.variant.Name),
			KeyScenario.String(b.run.scenario.ID), KeySample.Int(b.run.sample),
			KeyVerdict.String(b.run.verdict),
		))
	if m := b.model(); m != "" {
		agent.SetAttributes(semconv.GenAIRequestModel(m))
	}
	// Chat and embeddings spans first, so that the exchanges a call made
	// nest under it.
	var chats []interval
	srvs := servers(b.run.events)
	for i, e := range b.run.events {
		switch e.Kind {
		case trace.KindLLM:
			chats = append(chats, b.chat(id(fmt.Sprint(i)), root, e, srvs[i]))
		case trace.KindEmbed:
			chats = append(chats, b.embed(id(fmt.Sprint(i)), root, e, srvs[i]))
		}
	}
	// described is each tool's description as the model was last sent it
	// before the tool ran, from the prompts the run kept (run --prompts).
	var described map[string]string
	for i, e := range b.run.events {
		switch e.Kind {
		case trace.KindLLM:
			if p := e.LLM.Prompt; p != nil {
				for _, t := range p.Tools {
					if described == nil {
						described = map[string]string{}
					}
					described[t.Name] = t.Description
				}
			}
		case trace.KindTool:
			b.tool(id(fmt.Sprint(i)), root, e, described[e.Tool.Name])
		case trace.KindHTTP:
			parent := root
			for _, c := range chats {
				if e.At >= c.from && e.At+e.HTTP.Duration <= c.to {
					parent = c.ctx
				}
			}
			b.http(id(fmt.Sprint(i)), parent, e, srvs[i])
		case trace.KindNote:
			attrs := []attribute.KeyValue{KeyNoteKey.String(e.Note.Key)}
			if b.opts.Content {
				v, _ := json.Marshal(e.Note.Decoded())
				attrs = append(attrs, KeyNoteValue.String(string(v)))
			}
			agent.AddEvent(EventNote, oteltrace.WithTimestamp(b.at(e.At)), oteltrace.WithAttributes(attrs...))
		}
	}
	checks := failed(b.run.checks)
	label := "fail"
	if b.run.verdict == report.VerdictPass {
		label = "pass"
	}
	agent.AddEvent(EventEvaluation, oteltrace.WithTimestamp(b.at(end)), oteltrace.WithAttributes(
		semconv.GenAIEvaluationName(EvaluationVerdict),
		semconv.GenAIEvaluationScoreLabel(label),
		KeyVerdict.String(b.run.verdict),
		semconv.GenAIEvaluationExplanation(strings.Join(append(nonEmpty(b.run.errText), checks...), "\n")),
		KeyFailedChecks.StringSlice(checks),
	))
	for _, c := range b.run.checks {
		agent.AddEvent(EventEvaluation, oteltrace.WithTimestamp(b.at(end)), oteltrace.WithAttributes(evaluation(c)...))
	}
	if b.run.verdict != report.VerdictPass {
		fail(agent, "verdict "+b.run.verdict, b.run.verdict)
	}
	agent.End(oteltrace.WithTimestamp(b.at(end)))
}

// evaluation is the gen_ai.evaluation.result of one check: its name, pass
// or fail, its score when it was graded (a rubric's), its detail.
func evaluation(c report.Check) []attribute.KeyValue {
	label := "fail"
	if c.Pass {
		label = "pass"
	}
	attrs := []attribute.KeyValue{semconv.GenAIEvaluationName(c.Name), semconv.GenAIEvaluationScoreLabel(label), KeyTurn.Int(c.Turn + 1)}
	if c.Score != nil {
		attrs = append(attrs, semconv.GenAIEvaluationScoreValue(*c.Score))
	}
	if c.Detail != "" {
		attrs = append(attrs, semconv.GenAIEvaluationExplanation(c.Detail))
	}
	if c.Judged {
		attrs = append(attrs, KeyJudged.Bool(true))
	}
	return attrs
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// provider is the variant's provider by the conventions' well-known value
// where there is one (the Gemini API is gcp.gemini, Azure OpenAI
// azure.ai.openai), its own name where there is none (ollama), or _OTHER
// when it names none.
func (b builder) provider() string {
	switch b.variant.Provider {
	case "":
		return "_OTHER"
	case llm.ProviderGemini:
		return semconv.GenAIProviderNameGCPGemini.Value.AsString()
	case llm.ProviderAzure:
		return semconv.GenAIProviderNameAzureAIOpenAI.Value.AsString()
	}
	return b.variant.Provider
}

// model is the model every model call of the run named, the agent's
// gen_ai.request.model; "" when it made none or named several.
func (b builder) model() string {
	model := ""
	for _, e := range b.run.events {
		if e.Kind != trace.KindLLM {
			continue
		}
		if model != "" && e.LLM.Model != model {
			return ""
		}
		model = e.LLM.Model
	}
	return model
}

// operation is a model call's gen_ai.operation.name: the conventions name
// the Gemini API's generateContent generate_content, every other chat.
func (b builder) operation() attribute.KeyValue {
	if b.variant.Provider == llm.ProviderGemini {
		return semconv.GenAIOperationNameGenerateContent
	}
	return semconv.GenAIOperationNameChat
}

func (b builder) at(d time.Duration) time.Time { return b.start.Add(d) }

// duration is how long an event lasted on the virtual clock.
func duration(e trace.Event) time.Duration {
	switch e.Kind {
	case trace.KindLLM:
		return e.LLM.Duration
	case trace.KindHTTP:
		return e.HTTP.Duration
	case trace.KindEmbed:
		return e.Embed.Duration
	}
	return 0
}

// chat makes the span of a model call made to srv (its server.address
// and server.port, none when the report has no exchange of it).
func (b builder) chat(ctx, parent context.Context, e trace.Event, srv []attribute.KeyValue) interval {
	c := e.LLM
	in, out := c.Input.Total(), c.Output
	if u := c.Reported; u != nil {
		in, out = u.Input, u.Output
	}
	op := b.operation()
	// room for every attribute a call may have: one allocation, not
	// three as the slice grows
	attrs := append(make([]attribute.KeyValue, 0, 48),
		op,
		semconv.GenAIProviderNameKey.String(b.provider()),
		semconv.GenAIRequestModel(c.Model),
		semconv.GenAIUsageInputTokens(in),
		semconv.GenAIUsageOutputTokens(out),
		KeyRole.String(c.Role), KeyTurn.Int(e.Turn),
		KeyCountedInput.Int(c.Input.Total()), KeyCountedOutput.Int(c.Output),
	)
	if c.ResponseModel != "" {
		attrs = append(attrs, semconv.GenAIResponseModel(c.ResponseModel))
	}
	if c.ResponseID != "" {
		attrs = append(attrs, semconv.GenAIResponseID(c.ResponseID))
	}
	attrs = append(attrs, srv...)
	attrs = append(attrs, params(c)...)
	if c.FinishReason != "" {
		attrs = append(attrs, semconv.GenAIResponseFinishReasons(c.FinishReason))
	}
	if c.RawFinishReason != "" {
		attrs = append(attrs, KeyRawFinishReason.String(c.RawFinishReason))
	}
	if u := c.Reported; u != nil {
		if u.CacheRead > 0 {
			attrs = append(attrs, semconv.GenAIUsageCacheReadInputTokens(u.CacheRead))
		}
		if u.CacheWrite > 0 {
			attrs = append(attrs, semconv.GenAIUsageCacheCreationInputTokens(u.CacheWrite))
		}
		if u.Reasoning > 0 {
			attrs = append(attrs, semconv141.GenAIUsageReasoningOutputTokens(u.Reasoning), KeyReasoning.Int(u.Reasoning))
		}
	}
	if p := c.Cost; p != nil {
		attrs = append(attrs, KeyCost.Float64(p.USD), KeyCostFrom.String(p.From))
		if len(p.Unpriced) > 0 {
			attrs = append(attrs, KeyCostUnpriced.Bool(true), KeyCostUnpricedParts.StringSlice(p.Unpriced))
		}
	} else {
		attrs = append(attrs, KeyCostUnpriced.Bool(true))
	}
	if st := c.Stream; st != nil && st.FirstToken >= 0 {
		attrs = append(attrs, KeyTTFT.Float64(st.FirstToken.Seconds()))
	}
	if st := c.Stream; st != nil && st.FirstEvent > 0 {
		attrs = append(attrs, semconv141.GenAIResponseTimeToFirstChunk(st.FirstEvent.Seconds()))
	}
	if b.opts.Content {
		attrs = append(attrs, semconv.GenAIOutputMessagesKey.String(answer(c)))
		attrs = append(attrs, prompt(c.Prompt)...)
	}
	ctx = oteltrace.ContextWithSpan(ctx, oteltrace.SpanFromContext(parent))
	sctx, span := b.tracer.Start(ctx, op.Value.AsString()+" "+c.Model, oteltrace.WithSpanKind(oteltrace.SpanKindClient),
		oteltrace.WithTimestamp(b.at(e.At)), oteltrace.WithAttributes(attrs...))
	fail(span, c.Error, errorOther)
	span.End(oteltrace.WithTimestamp(b.at(e.At + c.Duration)))
	return interval{from: e.At, to: e.At + c.Duration, ctx: sctx}
}

// embed makes the span of an embeddings call made to srv: its input
// tokens as billed (the provider's count, else testbed's), the encoding
// formats and dimensions it asked for, each when it said, and its price.
func (b builder) embed(ctx, parent context.Context, e trace.Event, srv []attribute.KeyValue) interval {
	c := e.Embed
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameEmbeddings,
		semconv.GenAIProviderNameKey.String(b.provider()),
		semconv.GenAIRequestModel(c.Model),
		semconv.GenAIUsageInputTokens(c.Tokens()),
		KeyTurn.Int(e.Turn), KeyCountedInput.Int(c.Input),
	}
	attrs = append(attrs, srv...)
	if len(c.Formats) > 0 {
		attrs = append(attrs, semconv.GenAIRequestEncodingFormats(c.Formats...))
	}
	if c.Dimensions > 0 {
		attrs = append(attrs, semconv.GenAIEmbeddingsDimensionCount(c.Dimensions))
	}
	if p := c.Cost; p != nil {
		attrs = append(attrs, KeyCost.Float64(p.USD), KeyCostFrom.String(p.From))
	} else {
		attrs = append(attrs, KeyCostUnpriced.Bool(true))
	}
	ctx = oteltrace.ContextWithSpan(ctx, oteltrace.SpanFromContext(parent))
	sctx, span := b.tracer.Start(ctx, "embeddings "+c.Model, oteltrace.WithSpanKind(oteltrace.SpanKindClient),
		oteltrace.WithTimestamp(b.at(e.At)), oteltrace.WithAttributes(attrs...))
	fail(span, c.Error, errorOther)
	span.End(oteltrace.WithTimestamp(b.at(e.At + c.Duration)))
	return interval{from: e.At, to: e.At + c.Duration, ctx: sctx}
}

// tool makes the span of a tool call, with the tool's description when
// the run kept one ("" else); tool calls take no virtual time.
func (b builder) tool(ctx, parent context.Context, e trace.Event, description string) {
	t := e.Tool
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameExecuteTool,
		semconv.GenAIToolName(t.Name),
		semconv.GenAIToolType("function"), // the agent runs its tools itself
		KeyTurn.Int(e.Turn),
		KeyRawTokens.Int(t.RawTokens), KeyContextTokens.Int(t.ContextTokens), KeyRawBytes.Int(t.RawBytes),
	}
	if t.CallID != "" {
		attrs = append(attrs, semconv.GenAIToolCallID(t.CallID))
	}
	if description != "" {
		attrs = append(attrs, semconv.GenAIToolDescription(description))
	}
	if b.opts.Content && len(t.Args) > 0 {
		attrs = append(attrs, semconv.GenAIToolCallArgumentsKey.String(string(t.Args)))
	}
	ctx = oteltrace.ContextWithSpan(ctx, oteltrace.SpanFromContext(parent))
	_, span := b.tracer.Start(ctx, "execute_tool "+t.Name, oteltrace.WithSpanKind(oteltrace.SpanKindInternal),
		oteltrace.WithTimestamp(b.at(e.At)), oteltrace.WithAttributes(attrs...))
	fail(span, t.Error, errorOther)
	span.End(oteltrace.WithTimestamp(b.at(e.At)))
}

// http makes the client span of an upstream exchange made to srv.
func (b builder) http(ctx, parent context.Context, e trace.Event, srv []attribute.KeyValue) {
	x := e.HTTP
	attrs := append(make([]attribute.KeyValue, 0, 6),
		semconv.HTTPRequestMethodKey.String(x.Method),
		semconv.URLFull(x.URL),
	)
	attrs = append(attrs, srv...)
	if x.Status != 0 {
		attrs = append(attrs, semconv.HTTPResponseStatusCode(x.Status))
	}
	if x.Fault != "" {
		attrs = append(attrs, KeyFault.String(x.Fault))
	}
	ctx = oteltrace.ContextWithSpan(ctx, oteltrace.SpanFromContext(parent))
	_, span := b.tracer.Start(ctx, x.Method, oteltrace.WithSpanKind(oteltrace.SpanKindClient),
		oteltrace.WithTimestamp(b.at(e.At)), oteltrace.WithAttributes(attrs...))
	msg, kind := x.Error, errorOther
	if x.Status >= 400 {
		kind = strconv.Itoa(x.Status)
		if msg == "" {
			msg = fmt.Sprintf("status %d", x.Status)
		}
	}
	if x.Fault != "" {
		kind = x.Fault
	}
	fail(span, msg, kind)
	span.End(oteltrace.WithTimestamp(b.at(e.At + x.Duration)))
}
