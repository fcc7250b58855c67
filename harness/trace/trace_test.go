package trace_test

import (
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/trace"
)

func llm(role string, in trace.Parts, out int, d time.Duration) trace.Event {
	return trace.Event{Kind: trace.KindLLM, LLM: &trace.LLMCall{Role: role, Input: in, Output: out, Duration: d}}
}

func reported(e trace.Event, in, out int) trace.Event {
	e.LLM.Reported = &trace.Usage{Input: in, Output: out}
	return e
}

func http(d time.Duration) trace.Event {
	return trace.Event{Kind: trace.KindHTTP, HTTP: &trace.Exchange{Method: "POST", Duration: d}}
}

func tool(raw, ctx int) trace.Event {
	return trace.Event{Kind: trace.KindTool, Tool: &trace.ToolCall{Name: "t", RawTokens: raw, ContextTokens: ctx}}
}

var _ = Describe("Trace", func() {
	It("stamps events with the turn and the virtual time when they were added", func() {
		var tr trace.Trace
		tr.Add(http(0))
		tr.Advance(300 * time.Millisecond)
		tr.SetTurn(1)
		tr.Add(tool(10, 1))
		tr.Add(trace.Event{Kind: trace.KindNote, At: 5 * time.Millisecond, Note: &trace.Note{Key: "k"}})

		ev := tr.Events()
		Expect(ev).To(HaveLen(3))
		Expect(ev[0].Turn).To(Equal(0))
		Expect(ev[0].At).To(Equal(time.Duration(0)))
		Expect(ev[1].Turn).To(Equal(1))
		Expect(ev[1].At).To(Equal(300 * time.Millisecond))
		Expect(ev[2].At).To(Equal(5*time.Millisecond), "an explicit At is kept")
		Expect(trace.OfTurn(ev, 1)).To(HaveLen(2))
		Expect(tr.Elapsed()).To(Equal(300 * time.Millisecond))
	})

	It("returns a copy of its events", func() {
		var tr trace.Trace
		tr.Add(http(time.Second))
		ev := tr.Events()
		ev[0].Turn = 7
		Expect(tr.Events()[0].Turn).To(Equal(0))
	})

	It("is safe for concurrent use", func() {
		var tr trace.Trace
		var wg sync.WaitGroup
		for i := 0; i < 50; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tr.Add(http(time.Millisecond))
				tr.Advance(time.Millisecond)
			}()
		}
		wg.Wait()
		Expect(tr.Events()).To(HaveLen(50))
		Expect(tr.Elapsed()).To(Equal(50 * time.Millisecond))
	})
})

var _ = Describe("Measure", func() {
	events := []trace.Event{
		llm("router", trace.Parts{System: 100, Tools: 50, History: 20, ToolResults: 0, User: 10, Overhead: 9}, 30, 400*time.Millisecond),
		http(400 * time.Millisecond),
		tool(1000, 50),
		http(150 * time.Millisecond),
		reported(llm("onepass", trace.Parts{System: 80, User: 40, Overhead: 6}, 200, 2*time.Second), 130, 190),
		http(2 * time.Second),
		tool(500, 200),
		{Kind: trace.KindNote, Note: &trace.Note{Key: "route", Value: "tool"}},
	}

	It("sums calls, tokens by part and latency from HTTP durations", func() {
		m := trace.Measure(events)
		Expect(m.LLMCalls).To(Equal(2))
		Expect(m.ToolCalls).To(Equal(2))
		Expect(m.HTTPCalls).To(Equal(3))
		Expect(m.Input).To(Equal(trace.Parts{System: 180, Tools: 50, History: 20, User: 50, Overhead: 15}))
		Expect(m.InputTokens).To(Equal(315))
		Expect(m.OutputTokens).To(Equal(230))
		Expect(m.Latency).To(Equal(2550 * time.Millisecond))
		Expect(m.RawTokens).To(Equal(1500))
		Expect(m.ContextTokens).To(Equal(250))
		Expect(m.ReportedInput).To(Equal(130), "only the call that reported usage counts")
		Expect(m.ReportedOutput).To(Equal(190))
		Expect(m.ReportedReasoning).To(BeZero(), "no call reported thinking")
	})

	It("sums the thinking part of the provider-reported output", func() {
		a, b := reported(llm("r", trace.Parts{}, 0, 0), 10, 90), reported(llm("r", trace.Parts{}, 0, 0), 10, 50)
		a.LLM.Reported.Reasoning, b.LLM.Reported.Reasoning = 60, 5
		m := trace.Measure([]trace.Event{a, b, llm("r", trace.Parts{}, 7, 0)})
		Expect(m.ReportedOutput).To(Equal(140))
		Expect(m.ReportedReasoning).To(Equal(65))
	})

	It("splits LLM calls by role", func() {
		m := trace.Measure(events)
		Expect(m.RoleNames()).To(Equal([]string{"onepass", "router"}))
		Expect(m.Roles["router"]).To(Equal(trace.Role{Calls: 1, InputTokens: 189, OutputTokens: 30, Latency: 400 * time.Millisecond}))
		Expect(m.Roles["onepass"].Latency).To(Equal(2 * time.Second))
	})

	DescribeTable("token reduction is 1 − context/raw",
		func(raw, ctx int, want float64) {
			Expect(trace.Measure([]trace.Event{tool(raw, ctx)}).TokenReduction()).To(BeNumerically("~", want, 1e-9))
		},
		Entry("a trimmed payload", 1000, 307, 0.693),
		Entry("nothing trimmed", 400, 400, 0.0),
		Entry("no raw payload is no reduction, not a division by zero", 0, 0, 0.0),
		Entry("a context larger than the raw payload is negative", 100, 150, -0.5),
	)

	It("finds notes by key in order", func() {
		ev := []trace.Event{
			{Kind: trace.KindNote, Note: &trace.Note{Key: "a", Value: 1}},
			{Kind: trace.KindNote, Note: &trace.Note{Key: "b", Value: 2}},
			{Kind: trace.KindNote, Note: &trace.Note{Key: "a", Value: 3}},
		}
		Expect(trace.Notes(ev, "a")).To(Equal([]any{1, 3}))
		Expect(trace.Notes(ev, "c")).To(BeEmpty())
	})
})

var _ = Describe("Measure over streamed calls", func() {
	It("lists each streamed call's timing with its role and output, in call order, and LastStream finds a call's stream", func() {
		tr := &trace.Trace{}
		st := &trace.Stream{Events: 4, TokenEvents: 2, FirstToken: 300 * time.Millisecond, Duration: time.Second}
		tr.Add(trace.Event{Kind: trace.KindHTTP, HTTP: &trace.Exchange{URL: "u", Duration: time.Second, Stream: st}})
		Expect(tr.LastStream(0)).To(Equal(st))
		Expect(tr.LastStream(time.Millisecond)).To(BeNil(), "an exchange before the call started is not its answer")
		tr.Add(trace.Event{Kind: trace.KindLLM, LLM: &trace.LLMCall{Role: "writer", Output: 12, Stream: st}})
		tr.Add(trace.Event{Kind: trace.KindLLM, LLM: &trace.LLMCall{Role: "router", Output: 3}})
		m := trace.Measure(tr.Events())
		Expect(m.Streams).To(Equal([]trace.StreamCall{{Role: "writer", Stream: *st, Output: 12}}))
		Expect(m.Streams[0].TPOT()).To(Equal(700 * time.Millisecond / 11))
		Expect(m.Streams[0].TokensPerSecond()).To(BeNumerically("~", 12/0.7, 1e-9))
	})
})
