package stream_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/stream"
	"github.com/agentreplay/testbed/harness/trace"
)

func ev(data string) stream.Event { return stream.Event{Data: []byte(data + "\n")} }

var _ = Describe("Token", func() {
	DescribeTable("tells the events that carry generated content or a tool call",
		func(data string, want bool) {
			Expect(stream.Token(ev(data))).To(Equal(want))
		},
		Entry("chat: a role-only first delta", `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`, false),
		Entry("chat: content", `{"choices":[{"index":0,"delta":{"content":"Hel"}}]}`, true),
		Entry("chat: a tool call", `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":""}}]}}]}`, true),
		Entry("chat: a custom tool's call", `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"custom","custom":{"name":"f","input":""}}]}}]}`, true),
		Entry("chat: reasoning_content, as compatible servers stream thinking", `{"choices":[{"index":0,"delta":{"content":null,"reasoning_content":"Let me think"}}]}`, false),
		Entry("chat: reasoning (OpenRouter)", `{"choices":[{"index":0,"delta":{"content":"","reasoning":"Let me think"}}]}`, false),
		Entry("chat: the usage chunk", `{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":3}}`, false),
		Entry("chat: [DONE]", `[DONE]`, false),
		Entry("gemini: text", `{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]}}]}`, true),
		Entry("gemini: a thought", `{"candidates":[{"content":{"parts":[{"text":"Let me think","thought":true}]}}]}`, false),
		Entry("gemini: a function call", `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{}}}]}}]}`, true),
		Entry("anthropic: message_start", `{"type":"message_start","message":{"id":"msg_1","content":[]}}`, false),
		Entry("anthropic: ping", `{"type": "ping"}`, false),
		Entry("anthropic: a text block's start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`, false),
		Entry("anthropic: a tool_use block's start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}`, true),
		Entry("anthropic: text_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}`, true),
		Entry("anthropic: an empty input_json_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}`, false),
		Entry("anthropic: input_json_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\":"}}`, true),
		Entry("anthropic: thinking_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}`, false),
		Entry("anthropic: message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":15}}`, false),
		Entry("responses: created", `{"type":"response.created","response":{"id":"resp_1"}}`, false),
		Entry("responses: a text delta", `{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi"}`, true),
		Entry("responses: a function call added", `{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","name":"f","arguments":""}}`, true),
		Entry("responses: a message item added", `{"type":"response.output_item.added","output_index":0,"item":{"type":"message","content":[]}}`, false),
		Entry("responses: reasoning", `{"type":"response.reasoning_summary_text.delta","delta":"thinking"}`, false),
		Entry("ollama: a piece of text", `{"model":"qwen3:14b","created_at":"2026-03-02T08:00:00Z","message":{"role":"assistant","content":"Hi"},"done":false}`, true),
		Entry("ollama: a tool call", `{"model":"qwen3:14b","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{}}}]},"done":false}`, true),
		Entry("ollama: a completion's text", `{"model":"qwen3:14b","response":"High","done":false}`, true),
		Entry("ollama: a completion's done chunk", `{"model":"qwen3:14b","response":"","done":true,"done_reason":"stop"}`, false),
		Entry("responses: completed, its answer under response", `{"type":"response.completed","response":{"id":"resp_1","output":[]}}`, false),
		Entry("ollama: the done chunk", `{"model":"qwen3:14b","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","eval_count":3}`, false),
		Entry("not JSON", `{"choices": [`, false),
	)
})

var _ = Describe("Parse and Measure", func() {
	const body = "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n" +
		": keep-alive comment\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"!\"}}]}\n\n" +
		"data: [DONE]\n\n"

	It("splits events as the SDKs do, comments left out", func() {
		events := stream.Parse(body)
		Expect(events).To(HaveLen(5))
		Expect(string(events[4].Data)).To(Equal("[DONE]\n"))
	})

	It("keeps a last event cut off before its blank line", func() {
		Expect(stream.Parse("event: message_stop\ndata: {\"type\":\"message_stop\"}")).To(ConsistOf(
			stream.Event{Type: "message_stop", Data: []byte("{\"type\":\"message_stop\"}\n")}))
	})

	It("measures time to first token from the first event that carries one, and the gaps between them; time to first chunk from the first event", func() {
		ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
		got := stream.Measure(stream.Parse(body), []time.Duration{ms(100), ms(300), ms(340), ms(400), ms(410)})
		Expect(got).To(Equal(trace.Stream{Events: 5, TokenEvents: 3, FirstToken: ms(300), FirstEvent: ms(100), GapMean: ms(50), GapP95: ms(60), Duration: ms(410)}))
	})

	It("says when no event carried a token", func() {
		got := stream.Measure(stream.Parse("data: {\"type\":\"ping\"}\n\n"), []time.Duration{time.Second})
		Expect(got.FirstToken).To(Equal(time.Duration(-1)))
		Expect(got.Duration).To(Equal(time.Second))
	})

	It("reads and writes the offsets header one value an event, and ignores a body that is not a stream", func() {
		h := http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}}
		stream.SetOffsets(h, []time.Duration{time.Millisecond, 2 * time.Millisecond})
		Expect(h.Values(stream.OffsetsHeader)).To(Equal([]string{"1ms", "2ms"}))
		Expect(stream.Of(h, "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n")).To(HaveField("FirstToken", time.Millisecond))
		Expect(stream.Of(http.Header{"Content-Type": {"application/json"}}, "{}")).To(BeNil())
		h.Set(stream.OffsetsHeader, "soon")
		Expect(stream.Offsets(h)).To(BeNil())
	})
})

var _ = Describe("newline-delimited JSON (Ollama's streams)", func() {
	const lines = `{"message":{"role":"assistant","content":"High "},"done":false}` + "\n\n" +
		`{"message":{"role":"assistant","content":"water"},"done":false}` + "\n" +
		`{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}`

	It("is an event a line, blank lines none, and timed by its offsets as a stream is", func() {
		Expect(stream.Lines(lines)).To(HaveLen(3))
		ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
		h := http.Header{"Content-Type": {stream.LinesType}}
		stream.SetOffsets(h, []time.Duration{ms(120), ms(150), ms(160)})
		Expect(stream.Of(h, lines)).To(Equal(&trace.Stream{Events: 3, TokenEvents: 2, FirstToken: ms(120), FirstEvent: ms(120), GapMean: ms(30), GapP95: ms(30), Duration: ms(160)}))
	})

	It("is timed line by line as it is read", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/x-ndjson")
			io.WriteString(w, `{"message":{"content":"High "},"done":false}`+"\n")
			w.(http.Flusher).Flush()
			time.Sleep(30 * time.Millisecond)
			io.WriteString(w, `{"message":{"content":""},"done":true}`)
		}))
		DeferCleanup(srv.Close)
		resp, err := (&http.Client{Transport: stream.Timed(http.DefaultTransport)}).Get(srv.URL)
		Expect(err).NotTo(HaveOccurred())
		_, err = io.ReadAll(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		offsets := stream.Offsets(resp.Header)
		Expect(offsets).To(HaveLen(2), "the last line counts without its newline")
		// The second event left 30 ms after the first was flushed; the first
		// is stamped when the client reads it, which a busy machine (the
		// race detector, both cores taken) may delay by a few ms.
		Expect(offsets[1] - offsets[0]).To(BeNumerically(">=", 15*time.Millisecond))
	})
})

var _ = Describe("Timed", func() {
	It("stamps each event as it arrives and sets the offsets once the body is read", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			f := w.(http.Flusher)
			io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n")
			f.Flush()
			time.Sleep(30 * time.Millisecond)
			io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]")
		}))
		DeferCleanup(srv.Close)
		resp, err := (&http.Client{Transport: stream.Timed(http.DefaultTransport)}).Get(srv.URL)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Header.Values(stream.OffsetsHeader)).To(BeEmpty(), "not before the body is read")
		body, err := io.ReadAll(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		offsets := stream.Offsets(resp.Header)
		Expect(offsets).To(HaveLen(3), "the last event counts without its blank line")
		// The second event left 30 ms after the first was flushed; the first
		// is stamped when the client reads it, which a busy machine (the
		// race detector, both cores taken) may delay by a few ms.
		Expect(offsets[1] - offsets[0]).To(BeNumerically(">=", 15*time.Millisecond))
		Expect(stream.Parse(string(body))).To(HaveLen(3))
	})

	It("leaves a stand-in's modelled offsets and a body that is not a stream alone", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/json" {
				io.WriteString(w, "{}")
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set(stream.OffsetsHeader, "5s")
			io.WriteString(w, "data: {}\n\n")
		}))
		DeferCleanup(srv.Close)
		c := &http.Client{Transport: stream.Timed(http.DefaultTransport)}
		for path, want := range map[string][]string{"/": {"5s"}, "/json": nil} {
			resp, err := c.Get(srv.URL + path)
			Expect(err).NotTo(HaveOccurred())
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			Expect(resp.Header.Values(stream.OffsetsHeader)).To(Equal(want), path)
		}
	})

	It("ends its reader when the body is closed unread", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, strings.Repeat("data: {}\n\n", 100))
		}))
		DeferCleanup(srv.Close)
		resp, err := (&http.Client{Transport: stream.Timed(http.DefaultTransport)}).Get(srv.URL)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Body.Close()).To(Succeed())
	})
})
