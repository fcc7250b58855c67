package otlp

import (
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	semconv141 "go.opentelemetry.io/otel/semconv/v1.41.0"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/trace"
)

// outputType is the gen_ai.output.type of each output a request can ask
// for (llm.Output), the conventions' own values.
var outputType = map[llm.Output]attribute.KeyValue{
	llm.OutputText:   semconv.GenAIOutputTypeText,
	llm.OutputJSON:   semconv.GenAIOutputTypeJSON,
	llm.OutputImage:  semconv.GenAIOutputTypeImage,
	llm.OutputSpeech: semconv.GenAIOutputTypeSpeech,
}

// params are the attributes of what a model call asked for, each only
// when the request gave it: its temperature, token limit and other
// sampling settings as the agent set them, how many answers when not
// one, the output it asked for (gen_ai.output.type: text, json, image or
// speech), the provider's conversation it named, and whether it was
// streamed.
func params(c *trace.LLMCall) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	if p := c.Params; p != nil {
		if p.Temperature != nil {
			attrs = append(attrs, semconv.GenAIRequestTemperature(*p.Temperature))
		}
		if p.MaxTokens > 0 {
			attrs = append(attrs, semconv.GenAIRequestMaxTokens(p.MaxTokens))
		}
		if p.TopP != nil {
			attrs = append(attrs, semconv.GenAIRequestTopP(*p.TopP))
		}
		if p.TopK != nil {
			attrs = append(attrs, semconv.GenAIRequestTopK(*p.TopK))
		}
		if len(p.Stop) > 0 {
			attrs = append(attrs, semconv.GenAIRequestStopSequences(p.Stop...))
		}
		if p.Seed != nil {
			attrs = append(attrs, semconv.GenAIRequestSeed(*p.Seed))
		}
		if p.FrequencyPenalty != nil {
			attrs = append(attrs, semconv.GenAIRequestFrequencyPenalty(*p.FrequencyPenalty))
		}
		if p.PresencePenalty != nil {
			attrs = append(attrs, semconv.GenAIRequestPresencePenalty(*p.PresencePenalty))
		}
		if p.Choices != 0 && p.Choices != 1 {
			attrs = append(attrs, semconv.GenAIRequestChoiceCount(p.Choices))
		}
		if kv, ok := outputType[p.Output]; ok {
			attrs = append(attrs, kv)
		}
		if p.Conversation != "" {
			attrs = append(attrs, semconv.GenAIConversationID(p.Conversation))
		}
	}
	if c.Stream != nil {
		attrs = append(attrs, semconv141.GenAIRequestStream(true))
	}
	return attrs
}
