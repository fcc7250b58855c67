package external_test

// The conformance of traffic reading to the providers' wire formats as
// they document them: each entry is a model call an outside agent makes
// through the proxy, answered in the provider's real shape (whole,
// streamed or refused), and what testbed must read of it. The examples
// are written here, in the shapes of the providers' API references and
// official SDKs; none is a provider's own fixture.

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
)

// reply answers every request with its status, content type and body.
type reply struct {
	status int
	ct     string
	body   string
}

func (a reply) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: a.status, Header: http.Header{"Content-Type": {a.ct}}, Body: io.NopCloser(strings.NewReader(a.body)), Request: r}, nil
}

// whole is a 200 answer given whole.
func whole(body string) reply { return reply{status: 200, ct: "application/json", body: body} }

// refused is an error answer of status code.
func refused(code int, body string) reply {
	return reply{status: code, ct: "application/json", body: body}
}

// chunks is a 200 event stream of data-only events (Chat Completions,
// Gemini's alt=sse), each chunk an event; end is added as it is
// ("data: [DONE]" for Chat Completions, "" for none).
func chunks(end string, data ...string) reply {
	var b strings.Builder
	for _, d := range data {
		b.WriteString("data: " + oneLine(d) + "\n\n")
	}
	if end != "" {
		b.WriteString(end + "\n\n")
	}
	return reply{status: 200, ct: "text/event-stream", body: b.String()}
}

// events is a 200 event stream of named events (Anthropic Messages, the
// Responses API), each named by its data's type.
func events(data ...string) reply {
	var b strings.Builder
	for _, d := range data {
		var e struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal([]byte(d), &e); err != nil {
			panic("an example event is not JSON: " + d) // the table's own mistake, at its construction
		}
		b.WriteString("event: " + e.Type + "\ndata: " + oneLine(d) + "\n\n")
	}
	return reply{status: 200, ct: "text/event-stream", body: b.String()}
}

// oneLine is the JSON d on one line, as an event's data line carries it.
func oneLine(d string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(d)); err != nil {
		panic("an example event is not JSON: " + d) // the table's own mistake, at its construction
	}
	return b.String()
}

// read is what testbed must read of one model call.
type read struct {
	text   string
	calls  []string // each "name arguments", arguments compacted
	usage  llm.Usage
	finish string
	raw    string
	err    string // what the call's error says, "" when it succeeded
}

// The endpoints of the providers' own APIs, and the variable each base
// URL is given to the program in.
var (
	openAIEndpoint    = llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "gpt-5-mini"}
	anthropicEndpoint = llm.Endpoint{Provider: llm.ProviderAnthropic, BaseURL: "https://api.anthropic.com", Model: "claude-sonnet-4-5"}
	geminiEndpoint    = llm.Endpoint{Provider: llm.ProviderGemini, BaseURL: "https://generativelanguage.googleapis.com", Model: "gemini-2.5-flash"}
)

// conform runs one model call of a program posting request to url (a
// base URL variable and a path) over endpoint, answered by answer, and
// checks what testbed read of it.
func conform(endpoint llm.Endpoint, url, request string, answer reply, want read) {
	GinkgoHelper()
	Expect(request).NotTo(ContainSubstring("'"), "the request is quoted for the shell")
	tr := runOver(answer, endpoint, nil, `curl -s -X POST "`+url+`" -H 'Content-Type: application/json' -d '`+request+`' >/dev/null`)
	Expect(tr.calls).To(HaveLen(1), "one model call read")
	if want.err != "" {
		Expect(tr.errs[0]).To(MatchError(ContainSubstring(want.err)))
		return
	}
	Expect(tr.errs[0]).NotTo(HaveOccurred())
	got := tr.resps[0]
	Expect(got.Message.Content).To(Equal(want.text), "the answer's text")
	var calls []string
	for _, c := range got.Message.ToolCalls {
		var args any
		Expect(json.Unmarshal(c.Arguments, &args)).To(Succeed(), "the arguments of %s are JSON: %s", c.Name, c.Arguments)
		compact, _ := json.Marshal(args)
		calls = append(calls, c.Name+" "+string(compact))
	}
	Expect(calls).To(Equal(want.calls), "the tool calls")
	Expect(got.Usage).To(Equal(want.usage), "the usage")
	Expect(got.FinishReason).To(Equal(want.finish), "the finish reason")
	Expect(got.RawFinishReason).To(Equal(want.raw), "the provider's finish reason")
}
