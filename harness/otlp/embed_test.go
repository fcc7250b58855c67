package otlp_test

import (
	"bytes"
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/otlp"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

var _ = Describe("an embeddings call's span", func() {
	It("is an embeddings operation with its billed tokens and its price, its exchange nested under it", func() {
		reported := 7155
		events := []trace.Event{
			{Kind: trace.KindEmbed, At: 100 * time.Millisecond, Embed: &trace.EmbedCall{Model: "text-embedding-3-small", Duration: 700 * time.Millisecond,
				Texts: 82, Input: 7002, Reported: &reported, Cost: &trace.Cost{USD: 0.0001431, From: trace.CostFromReported, Model: "text-embedding-3-small"}}},
			{Kind: trace.KindHTTP, At: 100 * time.Millisecond, HTTP: &trace.Exchange{Method: "POST", URL: "https://api.openai.com/v1/embeddings", Status: 200, Duration: 700 * time.Millisecond}},
			{Kind: trace.KindEmbed, At: 800 * time.Millisecond, Embed: &trace.EmbedCall{Model: "mystery-embedder", Duration: 30 * time.Millisecond, Texts: 1, Input: 15}},
		}
		rep := &report.Report{SchemaVersion: report.SchemaVersion, Mode: "replay", Suites: []report.Suite{{Name: "climate", Agent: "climate",
			Variants: []report.Variant{{Name: "trimmed", Provider: "openai", Scenarios: []report.Scenario{{ID: "kb", Verdict: report.VerdictPass, Events: events}}}}}}}
		var b bytes.Buffer
		Expect(otlp.WriteJSON(context.Background(), &b, rep, otlp.Options{Start: map[string]time.Time{"climate": clock}})).To(Succeed())
		spans := flatten(readLines(b.Bytes()))

		e := named(spans, "embeddings text-embedding-3-small")
		Expect(e.attrs).To(HaveKeyWithValue("gen_ai.operation.name", "embeddings"))
		Expect(e.attrs).To(HaveKeyWithValue("gen_ai.request.model", "text-embedding-3-small"))
		Expect(e.attrs).To(HaveKeyWithValue("gen_ai.usage.input_tokens", `{"intValue":"7155"}`), "the provider's count, as billed")
		Expect(e.attrs).To(HaveKeyWithValue("testbed.tokens.input", `{"intValue":"7002"}`))
		Expect(e.attrs).To(HaveKeyWithValue("testbed.cost.usd", `{"doubleValue":0.0001431}`))
		Expect(e.attrs).To(HaveKeyWithValue("testbed.cost.from", "reported"))
		Expect(e.StartTimeUnixNano).To(Equal(at(100 * time.Millisecond)))
		Expect(e.EndTimeUnixNano).To(Equal(at(800 * time.Millisecond)))
		Expect(named(spans, "POST").ParentSpanId).To(Equal(e.SpanId))

		u := named(spans, "embeddings mystery-embedder")
		Expect(u.attrs).To(HaveKeyWithValue("gen_ai.usage.input_tokens", `{"intValue":"15"}`), "testbed's count when the provider gave none")
		Expect(u.attrs).To(HaveKeyWithValue("testbed.cost.unpriced", `{"boolValue":true}`))
		Expect(u.attrs).NotTo(HaveKey("testbed.cost.usd"))
	})
})
