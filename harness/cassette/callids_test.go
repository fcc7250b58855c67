package cassette_test

import (
	"net/http"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
)

// madeUp is a model API whose tool calls carry no id, so that clients make
// one up: the path of its calls and a second call's request, whose earlier
// call has callID and whose result answers resultID.
type madeUp struct {
	path    string
	request func(callID, resultID string) string
}

// geminiMadeUp is a second model call as the Vercel AI SDK's Google
// provider sends it: the model gave its call no id, so the client made one
// up, and echoes it in the call and in the function's response.
var geminiMadeUp = madeUp{"/v1beta/models/gemini-2.5-flash:generateContent", func(callID, resultID string) string {
	return `{"contents":[{"role":"user","parts":[{"text":"Who wrote the book The Lantern Orchard?"}]},` +
		`{"role":"model","parts":[{"functionCall":{"id":"` + callID + `","name":"search_books","args":{"query":"The Lantern Orchard"}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"id":"` + resultID + `","name":"search_books","response":{"numFound":1}}}]}]}`
}}

// ollamaMadeUp is a second call to Ollama's /api/chat as LangChain.js's
// ChatOllama sends it: Ollama gave the tool call no id, so the client made
// up a UUID for it; here the tool's result names it too.
var ollamaMadeUp = madeUp{"/api/chat", func(callID, resultID string) string {
	return `{"model":"qwen3:14b","messages":[{"role":"user","content":"Who wrote the book The Lantern Orchard?"},` +
		`{"role":"assistant","content":"","tool_calls":[{"id":"` + callID + `","type":"function","function":{"name":"search_books","arguments":{"query":"The Lantern Orchard"}}}]},` +
		`{"role":"tool","tool_call_id":"` + resultID + `","content":"numFound 1"}]}`
}}

var _ = Describe("the tool call ids of a Gemini call and an Ollama chat, which clients make up", func() {
	var srv *upstream

	BeforeEach(func() {
		srv = newUpstream(`{"candidates":[]}`)
	})

	// recorded records one call of api to path with the ids first and
	// first, and returns the cassette's path.
	recorded := func(api madeUp, first string) string {
		path := filepath.Join(GinkgoT().TempDir(), "s", "v", "a.yaml")
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport})
		Expect(err).NotTo(HaveOccurred())
		mustPost(tr, srv.URL+api.path, api.request(first, first))
		Expect(tr.Close()).To(Succeed())
		return path
	}

	DescribeTable("replay matches the same conversation with other ids",
		func(api madeUp, first, second string) {
			rp, err := cassette.Open(cassette.ModeReplay, recorded(api, first), cassette.Options{})
			Expect(err).NotTo(HaveOccurred())
			Expect(mustPost(rp, srv.URL+api.path, api.request(second, second))).To(Equal(`{"candidates":[]}`))
		},
		Entry("Gemini", geminiMadeUp, "APpNHg7OGFrXHhQP", "EnxbhK58HiiKErvY"),
		Entry("Ollama", ollamaMadeUp, "54288eb0-44ab-4fcb-b6f4-66324f6cfad7", "0eb68a15-4c41-4620-9e9f-991c9f3c80e3"),
	)

	DescribeTable("replay misses a result that answers another id than its call, as it was not recorded",
		func(api madeUp, first, second string) {
			rp, err := cassette.Open(cassette.ModeReplay, recorded(api, first), cassette.Options{})
			Expect(err).NotTo(HaveOccurred())
			_, err = post(rp, srv.URL+api.path, api.request(second, "somethingElse01"))
			Expect(err).To(MatchError(cassette.ErrStale))
		},
		Entry("Gemini", geminiMadeUp, "APpNHg7OGFrXHhQP", "EnxbhK58HiiKErvY"),
		Entry("Ollama", ollamaMadeUp, "54288eb0-44ab-4fcb-b6f4-66324f6cfad7", "0eb68a15-4c41-4620-9e9f-991c9f3c80e3"),
	)

	DescribeTable("leaves the ids of a body sent elsewhere compared as they are",
		func(api madeUp, first, second string) {
			other := filepath.Join(GinkgoT().TempDir(), "s", "v", "b.yaml")
			tr, err := cassette.Open(cassette.ModeRecord, other, cassette.Options{Real: http.DefaultTransport})
			Expect(err).NotTo(HaveOccurred())
			mustPost(tr, srv.URL+"/v1/chat/completions", api.request(first, first))
			Expect(tr.Close()).To(Succeed())
			rp, err := cassette.Open(cassette.ModeReplay, other, cassette.Options{})
			Expect(err).NotTo(HaveOccurred())
			_, err = post(rp, srv.URL+"/v1/chat/completions", api.request(second, second))
			Expect(err).To(MatchError(cassette.ErrStale))
		},
		Entry("Gemini's body", geminiMadeUp, "APpNHg7OGFrXHhQP", "EnxbhK58HiiKErvY"),
		Entry("Ollama's body", ollamaMadeUp, "54288eb0-44ab-4fcb-b6f4-66324f6cfad7", "0eb68a15-4c41-4620-9e9f-991c9f3c80e3"),
	)
})
