package cassette_test

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/match"
)

// The bodies below follow what SDKs sent before and after an upgrade, as
// observed (docs/recording.md, "After an SDK upgrade"); written here in
// our own words.
const (
	// driftAsked is the conversation every version asks about.
	driftAsked = `"model":"gpt-4.1-mini","messages":[{"role":"system","content":"You tell the time zone of cities."},{"role":"user","content":"What is the time zone of Oslo?"}]`
	// sampledDefaults is a request as an older LangChain.js sent it: every
	// sampling parameter written out at the API's default.
	sampledDefaults = `{` + driftAsked + `,"temperature":1,"top_p":1,"n":1,"presence_penalty":0,"frequency_penalty":0}`
	// bare is the same request as a newer version sends it.
	bare = `{` + driftAsked + `}`
	// streamFalse is it as a newer go-openai sends it.
	streamFalse = `{` + driftAsked + `,"stream":false}`
	// coldAsked is it as an older Vercel AI SDK sent it: temperature 0.
	coldAsked = `{` + driftAsked + `,"temperature":0}`
)

var _ = Describe("a miss after an SDK upgrade changed the request", func() {
	var srv *upstream

	BeforeEach(func() {
		srv = newUpstream(`{"answer":"one"}`)
	})

	// recorded records body to path under srv and returns the cassette's
	// path.
	recorded := func(path, body string) string {
		GinkgoHelper()
		file := filepath.Join(GinkgoT().TempDir(), "s", "v", "a.yaml")
		tr, err := cassette.Open(cassette.ModeRecord, file, cassette.Options{Real: http.DefaultTransport})
		Expect(err).NotTo(HaveOccurred())
		mustPost(tr, srv.URL+path, body)
		Expect(tr.Close()).To(Succeed())
		return file
	}
	// missOf replays body to path against a cassette of recordedBody and
	// returns the miss.
	missOf := func(path, recordedBody, body string, opts cassette.Options) *cassette.MissError {
		GinkgoHelper()
		rp, err := cassette.Open(cassette.ModeReplay, recorded("/v1/chat/completions", recordedBody), opts)
		Expect(err).NotTo(HaveOccurred())
		_, err = post(rp, srv.URL+path, body)
		var miss *cassette.MissError
		Expect(errors.As(err, &miss)).To(BeTrue(), "%v", err)
		return miss
	}
	// ignoring is the rules that leave the body members at pointers out.
	ignoring := func(pointers ...string) *match.Rules {
		GinkgoHelper()
		r := &match.Rules{}
		for _, p := range pointers {
			r.List = append(r.List, match.Rule{Ignore: true, Where: match.WhereBody, Target: p})
		}
		Expect(r.Compile()).To(BeEmpty())
		return r
	}

	It("names the members an SDK no longer sends, says they were the APIs' defaults, and offers one ignore rule for all", func() {
		miss := missOf("/v1/chat/completions", sampledDefaults, bare, cassette.Options{Rerecord: "testbed record --suite s --variant v --scenario a"})
		Expect(miss.Diff).To(ConsistOf(
			"/frequency_penalty: member removed (was 0, the APIs' default: the model is asked the same)",
			"/n: member removed (was 1, the APIs' default: the model is asked the same)",
			"/presence_penalty: member removed (was 0, the APIs' default: the model is asked the same)",
			"/temperature: member removed (was 1, the APIs' default: the model is asked the same)",
			"/top_p: member removed (was 1, the APIs' default: the model is asked the same)",
		))
		Expect(miss.Ignorable).To(Equal([]string{"/frequency_penalty", "/n", "/presence_penalty", "/temperature", "/top_p"}))
		want, err := os.ReadFile(filepath.Join("testdata", "drift", "defaults-dropped.txt"))
		Expect(err).NotTo(HaveOccurred())
		got := strings.ReplaceAll(miss.Error(), srv.URL, "http://upstream")
		got = strings.ReplaceAll(got, miss.Cassette, "cassettes/s/v/a.yaml")
		Expect(got + "\n").To(Equal(string(want)))
	})

	It("replays under the rule it offers, which covers those members only", func() {
		file := recorded("/v1/chat/completions", sampledDefaults)
		rp, err := cassette.Open(cassette.ModeReplay, file, cassette.Options{})
		Expect(err).NotTo(HaveOccurred())
		_, err = post(rp, srv.URL+"/v1/chat/completions", bare)
		var miss *cassette.MissError
		Expect(errors.As(err, &miss)).To(BeTrue())
		rules := ignoring(miss.Ignorable...)
		rp, err = cassette.Open(cassette.ModeReplay, file, cassette.Options{Match: rules})
		Expect(err).NotTo(HaveOccurred())
		Expect(mustPost(rp, srv.URL+"/v1/chat/completions", bare)).To(Equal(`{"answer":"one"}`))

		// What the model is asked still misses under it.
		rp, err = cassette.Open(cassette.ModeReplay, file, cassette.Options{Match: rules})
		Expect(err).NotTo(HaveOccurred())
		_, err = post(rp, srv.URL+"/v1/chat/completions", strings.Replace(bare, "Oslo", "Lima", 1))
		Expect(err).To(MatchError(cassette.ErrStale))
	})

	It("names a member an SDK now sends at its default", func() {
		miss := missOf("/v1/chat/completions", bare, streamFalse, cassette.Options{})
		Expect(miss.Diff).To(Equal([]string{"/stream: member added: false (the APIs' default: the model is asked the same)"}))
		Expect(miss.Ignorable).To(Equal([]string{"/stream"}))
		Expect(miss.Error()).To(ContainSubstring("it differs at /stream: member added: false"))
		Expect(miss.Error()).To(ContainSubstring("leave it out of matching: match: {ignore: [{body: /stream}]}"))
	})

	It("says nothing of defaults, and offers no rule, for such a member of an API that takes another default", func() {
		rp, err := cassette.Open(cassette.ModeReplay, recorded("/api/chat", `{"model":"qwen3:14b","messages":[]}`), cassette.Options{})
		Expect(err).NotTo(HaveOccurred())
		_, err = post(rp, srv.URL+"/api/chat", `{"model":"qwen3:14b","messages":[],"stream":false}`)
		var miss *cassette.MissError
		Expect(errors.As(err, &miss)).To(BeTrue())
		Expect(miss.Diff).To(Equal([]string{"/stream: member added: false"}), "Ollama streams unless told not to")
		Expect(miss.Ignorable).To(BeEmpty())
	})

	It("offers no ignore rule for a member whose absence asks the model something else", func() {
		miss := missOf("/v1/chat/completions", coldAsked, bare, cassette.Options{})
		Expect(miss.Diff).To(Equal([]string{"/temperature: member removed (was 0, without it the APIs take temperature as 1: the model is asked something else)"}))
		Expect(miss.Ignorable).To(BeEmpty())
		Expect(miss.Error()).NotTo(ContainSubstring("match: {ignore"))
	})

	It("offers an ignore rule, on a condition, for a member it knows nothing of, and none for what the model is asked", func() {
		withTools := `{` + driftAsked + `,"store":false,"tools":[{"type":"function","function":{"name":"get_time_zone","parameters":{"type":"object"}}}]}`
		miss := missOf("/v1/chat/completions", bare, withTools, cassette.Options{})
		Expect(miss.Diff).To(ConsistOf(`tool added: get_time_zone`, `/store: member added: false`))
		Expect(miss.Ignorable).To(Equal([]string{"/store"}))
		Expect(miss.Error()).To(ContainSubstring("if the SDK now sends (or leaves out) /store on every call and the answer does not depend on it, leave it out of matching: match: {ignore: [{body: /store}]}"))
		Expect(miss.Error()).To(ContainSubstring("it does not cover the 1 other difference"))
	})

	DescribeTable("offers no ignore rule for a setting of how the model answers that an SDK now sends, whatever its value",
		func(member string) {
			miss := missOf("/v1/chat/completions", bare, `{`+driftAsked+`,`+member+`}`, cassette.Options{})
			Expect(miss.Diff).To(HaveLen(1))
			Expect(miss.Ignorable).To(BeEmpty())
			Expect(miss.Error()).NotTo(ContainSubstring("match: {ignore"))
		},
		Entry("a length limit (the AI SDK's default max_tokens)", `"max_tokens":4096`),
		Entry("the newer length limit", `"max_completion_tokens":4096`),
		Entry("a reasoning effort", `"reasoning_effort":"low"`),
		Entry("stop sequences", `"stop":["END"]`),
		Entry("a seed", `"seed":7`),
		Entry("usage in the stream", `"stream_options":{"include_usage":true}`),
		Entry("Anthropic's thinking", `"thinking":{"type":"enabled","budget_tokens":1024}`),
	)

	It("says an element added to an array is an element", func() {
		miss := missOf("/v1/chat/completions", `{`+driftAsked+`,"stop":["END"]}`, `{`+driftAsked+`,"stop":["END","STOP"]}`, cassette.Options{})
		Expect(miss.Diff).To(Equal([]string{`/stop: element added at the end: "STOP"`}))
		Expect(miss.Ignorable).To(BeEmpty())
	})

	// callTurn is a Chat Completions request whose assistant message
	// calls a tool, its content member written as content says (none
	// when content is "").
	callTurn := func(content string) string {
		return `{"model":"gpt-4.1-mini","messages":[{"role":"user","content":"What is the time zone of Oslo?"},` +
			`{"role":"assistant",` + content + `"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_time_zone","arguments":"{\"city\":\"Oslo\"}"}}]},` +
			`{"role":"tool","tool_call_id":"call_1","content":"Europe/Oslo"}]}`
	}

	DescribeTable("says an assistant message that only calls tools writes its empty content another way, and offers the rule that compares them as one, under which it replays",
		func(recordedContent, liveContent, want string) {
			file := recorded("/v1/chat/completions", callTurn(recordedContent))
			rp, err := cassette.Open(cassette.ModeReplay, file, cassette.Options{})
			Expect(err).NotTo(HaveOccurred())
			_, err = post(rp, srv.URL+"/v1/chat/completions", callTurn(liveContent))
			var miss *cassette.MissError
			Expect(errors.As(err, &miss)).To(BeTrue(), "%v", err)
			Expect(miss.Ignorable).To(BeEmpty(), "ignoring every message's content would ignore what is said")
			Expect(miss.Diff).To(Equal([]string{want + " (an assistant message that only calls tools, its empty content written another way: SDK versions differ in null, \"\" or none, and the model is asked the same; compare them as one with match: {empty_content: any_form} (docs/recording.md))"}))

			rp, err = cassette.Open(cassette.ModeReplay, file, cassette.Options{Match: &match.Rules{AnyFormEmptyContent: true}})
			Expect(err).NotTo(HaveOccurred())
			Expect(mustPost(rp, srv.URL+"/v1/chat/completions", callTurn(liveContent))).To(Equal(`{"answer":"one"}`))
		},
		Entry("null, then \"\" (@langchain/openai 0.3.17, then 1.6.0)", `"content":null,`, `"content":"",`, `/messages/1/content: null → ""`),
		Entry("\"\", then none (go-openai 1.20.0, then 1.43.0)", `"content":"",`, ``, `/messages/1/content: member removed (was "")`),
		Entry("none, then []", ``, `"content":[],`, `/messages/1/content: member added: []`),
	)

	DescribeTable("under empty_content: any_form, still misses where a message says something or calls nothing",
		func(recordedBody, liveBody, want string) {
			miss := missOf("/v1/chat/completions", recordedBody, liveBody, cassette.Options{Match: &match.Rules{AnyFormEmptyContent: true}})
			Expect(miss.Diff).To(Equal([]string{want}))
			Expect(miss.Error()).To(ContainSubstring("empty content of a message that only calls tools in any form"))
		},
		Entry("the assistant now says something beside its call", callTurn(`"content":"",`), callTurn(`"content":"Let me look.",`), `/messages/1/content: member added: "Let me look."`),
		Entry("a message without tool calls, null then \"\"",
			`{"model":"gpt-4.1-mini","messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":null}]}`,
			`{"model":"gpt-4.1-mini","messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":""}]}`,
			`/messages/1/content: null → ""`),
	)

	It("says nothing of the kind when the assistant said something", func() {
		said := func(content string) string {
			return `{"model":"gpt-4.1-mini","messages":[{"role":"user","content":"Oslo?"},{"role":"assistant","content":` + content +
				`,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_time_zone","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":"x"}]}`
		}
		miss := missOf("/v1/chat/completions", said(`""`), said(`"Let me look."`), cassette.Options{})
		Expect(miss.Diff).To(Equal([]string{`/messages/1/content: "" → "Let me look."`}))
	})

	It("offers to ignore, in every message, a member an SDK now echoes from an answer that says nothing", func() {
		// anthropic-sdk-go 1.0.0, then 1.84.0: the newer one's ToParam
		// sends a tool_use block back with the caller the answer gave it.
		turn := func(caller string) string {
			return `{"model":"claude-haiku-4-5","max_tokens":512,"messages":[{"role":"user","content":[{"type":"text","text":"What is the time zone of Oslo?"}]},` +
				`{"role":"assistant","content":[{` + caller + `"id":"toolu_1","input":{"city":"Oslo"},"name":"get_time_zone","type":"tool_use"}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"Europe/Oslo"}]}]}`
		}
		file := recorded("/v1/messages", turn(``))
		rp, err := cassette.Open(cassette.ModeReplay, file, cassette.Options{})
		Expect(err).NotTo(HaveOccurred())
		_, err = post(rp, srv.URL+"/v1/messages", turn(`"caller":{"type":"direct"},`))
		var miss *cassette.MissError
		Expect(errors.As(err, &miss)).To(BeTrue())
		Expect(miss.Diff).To(Equal([]string{`/messages/1/content/0/caller: member added: {"type":"direct"}`}))
		Expect(miss.Ignorable).To(Equal([]string{"/messages/*/content/*/caller"}))
		Expect(miss.Error()).To(ContainSubstring(`leave it out of matching: match: {ignore: [{body: "/messages/*/content/*/caller"}]}`))

		rules := ignoring(miss.Ignorable...)
		rp, err = cassette.Open(cassette.ModeReplay, file, cassette.Options{Match: rules})
		Expect(err).NotTo(HaveOccurred())
		Expect(mustPost(rp, srv.URL+"/v1/messages", turn(`"caller":{"type":"direct"},`))).To(Equal(`{"answer":"one"}`))

		// An argument the call now has says something.
		rp, err = cassette.Open(cassette.ModeReplay, file, cassette.Options{})
		Expect(err).NotTo(HaveOccurred())
		_, err = post(rp, srv.URL+"/v1/messages", strings.Replace(turn(``), `{"city":"Oslo"}`, `{"city":"Oslo","units":"utc"}`, 1))
		Expect(errors.As(err, &miss)).To(BeTrue())
		Expect(miss.Diff).To(Equal([]string{`/messages/1/content/0/input/units: member added: "utc"`}))
		Expect(miss.Ignorable).To(BeEmpty())
	})

	It("says the agent now calls another model API, which no rule bridges, and lists no body differences between the two", func() {
		responses := `{"model":"gpt-4.1-mini","input":[{"role":"system","content":"You tell the time zone of cities."},{"role":"user","content":[{"type":"input_text","text":"What is the time zone of Oslo?"}]}]}`
		miss := missOf("/v1/responses", bare, responses, cassette.Options{})
		Expect(miss.Diff).To(Equal([]string{"path: /v1/chat/completions → /v1/responses"}))
		Expect(miss.Note).To(HavePrefix("the request is a call of OpenAI's Responses API where the cassette has calls of OpenAI's Chat Completions API"))
		Expect(miss.Ignorable).To(BeEmpty())
		Expect(miss.Error()).To(ContainSubstring("no match rule makes one API's answer another's; re-record"))
	})

	It("says when only the API version in the path changed, with the rule that compares the two as one, and replays under it", func() {
		const v1beta, v1 = "/v1beta/models/gemini-2.5-flash:generateContent", "/v1/models/gemini-2.5-flash:generateContent"
		file := recorded(v1beta, `{"contents":[]}`)
		rp, err := cassette.Open(cassette.ModeReplay, file, cassette.Options{})
		Expect(err).NotTo(HaveOccurred())
		_, err = post(rp, srv.URL+v1, `{"contents":[]}`)
		var miss *cassette.MissError
		Expect(errors.As(err, &miss)).To(BeTrue())
		Expect(miss.Diff).To(Equal([]string{"path: " + v1beta + " → " + v1 + " (only the API version changed, v1beta → v1: if the SDK now calls this version and the answers it was given read the same to it, compare the two as one with match: {normalise: [{regex: '^/(?:v1beta|v1)/', as: /v1/}]}; else re-record; docs/recording.md)"}))
		Expect(miss.Note).To(BeEmpty())

		rules := &match.Rules{List: []match.Rule{{Where: match.WhereAnywhere, Regex: `^/(?:v1beta|v1)/`, Token: "/v1/"}}}
		Expect(rules.Compile()).To(BeEmpty())
		rp, err = cassette.Open(cassette.ModeReplay, file, cassette.Options{Match: rules})
		Expect(err).NotTo(HaveOccurred())
		Expect(mustPost(rp, srv.URL+v1, `{"contents":[]}`)).To(Equal(`{"answer":"one"}`))
	})

	DescribeTable("says nothing of API versions when a path changed otherwise",
		func(recordedPath, livePath string) {
			rp, err := cassette.Open(cassette.ModeReplay, recorded(recordedPath, `{"contents":[]}`), cassette.Options{})
			Expect(err).NotTo(HaveOccurred())
			_, err = post(rp, srv.URL+livePath, `{"contents":[]}`)
			var miss *cassette.MissError
			Expect(errors.As(err, &miss)).To(BeTrue())
			Expect(miss.Diff).To(Equal([]string{"path: " + recordedPath + " → " + livePath}))
		},
		Entry("the model too", "/v1beta/models/gemini-2.5-flash:generateContent", "/v1/models/gemini-2.5-pro:generateContent"),
		Entry("another major version", "/v1/models/gemini-2.5-flash:generateContent", "/v2/models/gemini-2.5-flash:generateContent"),
	)
})
