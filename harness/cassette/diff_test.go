package cassette_test

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
)

// missFor records recorded at the upstream's path and returns the miss of
// replaying live there instead.
func missFor(path, recorded, live string) *cassette.MissError {
	GinkgoHelper()
	return missAt(path, recorded, path, live)
}

// missAt records recorded at the upstream's path recPath and returns the
// miss of replaying live at livePath.
func missAt(recPath, recorded, livePath, live string) *cassette.MissError {
	GinkgoHelper()
	file := filepath.Join(GinkgoT().TempDir(), "c.yaml")
	srv := newUpstream(`{"ok":true}`)
	tr, err := cassette.Open(cassette.ModeRecord, file, cassette.Options{Real: http.DefaultTransport})
	Expect(err).NotTo(HaveOccurred())
	mustPost(tr, srv.URL+recPath, recorded)
	Expect(tr.Close()).To(Succeed())
	rp, err := cassette.Open(cassette.ModeReplay, file, cassette.Options{})
	Expect(err).NotTo(HaveOccurred())
	_, err = post(rp, srv.URL+livePath, live)
	var miss *cassette.MissError
	Expect(errors.As(err, &miss)).To(BeTrue(), "%v", err)
	return miss
}

// wire builds a request body of one wire format from its tools (name,
// description, and the type of its one parameter) and its user messages.
type wire struct {
	path  string
	build func(tools [][3]string, messages []string) string
}

var wires = map[string]wire{
	"OpenAI Chat Completions": {"/v1/chat/completions", func(tools [][3]string, messages []string) string {
		var ts, ms []string
		for _, t := range tools {
			ts = append(ts, fmt.Sprintf(`{"type":"function","function":{"name":%q,"description":%q,"parameters":{"type":"object","properties":{"p":{"type":%q,"description":"the p"}},"required":["p"]}}}`, t[0], t[1], t[2]))
		}
		for _, m := range messages {
			ms = append(ms, fmt.Sprintf(`{"role":"user","content":%q}`, m))
		}
		return fmt.Sprintf(`{"model":"m","messages":[%s],"tools":[%s]}`, strings.Join(ms, ","), strings.Join(ts, ","))
	}},
	"OpenAI Responses": {"/v1/responses", func(tools [][3]string, messages []string) string {
		var ts, ms []string
		for _, t := range tools {
			ts = append(ts, fmt.Sprintf(`{"type":"function","name":%q,"description":%q,"parameters":{"type":"object","properties":{"p":{"type":%q,"description":"the p"}},"required":["p"]}}`, t[0], t[1], t[2]))
		}
		for _, m := range messages {
			ms = append(ms, fmt.Sprintf(`{"role":"user","content":%q}`, m))
		}
		return fmt.Sprintf(`{"model":"m","input":[%s],"tools":[%s]}`, strings.Join(ms, ","), strings.Join(ts, ","))
	}},
	"Anthropic Messages": {"/v1/messages", func(tools [][3]string, messages []string) string {
		var ts, ms []string
		for _, t := range tools {
			ts = append(ts, fmt.Sprintf(`{"name":%q,"description":%q,"input_schema":{"type":"object","properties":{"p":{"type":%q,"description":"the p"}},"required":["p"]}}`, t[0], t[1], t[2]))
		}
		for _, m := range messages {
			ms = append(ms, fmt.Sprintf(`{"role":"user","content":%q}`, m))
		}
		return fmt.Sprintf(`{"model":"m","max_tokens":100,"messages":[%s],"tools":[%s]}`, strings.Join(ms, ","), strings.Join(ts, ","))
	}},
	"Gemini generateContent":             {"/v1beta/models/g:generateContent", geminiBody("functionDeclarations")},
	"Gemini generateContent, snake_case": {"/v1beta/models/g:generateContent", geminiBody("function_declarations")},
}

// geminiBody builds generateContent requests whose tools' list is under
// key (the API's camelCase name or its snake_case proto name).
func geminiBody(key string) func(tools [][3]string, messages []string) string {
	return func(tools [][3]string, messages []string) string {
		var ts, ms []string
		for _, t := range tools {
			ts = append(ts, fmt.Sprintf(`{"name":%q,"description":%q,"parameters":{"type":"object","properties":{"p":{"type":%q,"description":"the p"}},"required":["p"]}}`, t[0], t[1], t[2]))
		}
		for _, m := range messages {
			ms = append(ms, fmt.Sprintf(`{"role":"user","parts":[{"text":%q}]}`, m))
		}
		return fmt.Sprintf(`{"contents":[%s],"tools":[{%q:[%s]}]}`, strings.Join(ms, ","), key, strings.Join(ts, ","))
	}
}

var (
	weather  = [3]string{"get_weather", "Current weather", "string"}
	forecast = [3]string{"get_forecast", "Daily forecast", "integer"}
	alerts   = [3]string{"get_alerts", "Weather alerts", "string"}
)

var _ = Describe("a miss's diagnosis of a model request", func() {
	for name, w := range wires {
		messages := map[string]string{"OpenAI Chat Completions": "/messages", "OpenAI Responses": "/input", "Anthropic Messages": "/messages",
			"Gemini generateContent": "/contents", "Gemini generateContent, snake_case": "/contents"}[name]
		gemini := strings.HasPrefix(name, "Gemini")
		DescribeTable("says what changed, by meaning, in "+name,
			func(tools [][3]string, msgs []string, want ...string) {
				before := w.build([][3]string{weather, forecast}, []string{"Oslo now?"})
				miss := missFor(w.path, before, w.build(tools, msgs))
				Expect(miss.Diff).To(Equal(want))
				for _, line := range want {
					Expect(miss.Error()).To(ContainSubstring(line))
				}
			},
			Entry("tools reordered", [][3]string{forecast, weather}, []string{"Oslo now?"},
				"tools reordered: get_weather, get_forecast → get_forecast, get_weather"),
			Entry("a parameter's type changed", [][3]string{weather, {"get_forecast", "Daily forecast", "string"}}, []string{"Oslo now?"},
				`tool get_forecast: parameter p: type changed: "integer" → "string"`),
			Entry("a tool's description changed", [][3]string{{"get_weather", "Weather now", "string"}, forecast}, []string{"Oslo now?"},
				`tool get_weather: description changed: "Current weather" → "Weather now"`),
			Entry("a tool added", [][3]string{weather, forecast, alerts}, []string{"Oslo now?"},
				`tool added: get_alerts ("Weather alerts")`),
			Entry("a tool removed", [][3]string{forecast}, []string{"Oslo now?"},
				"tool removed: get_weather"),
			Entry("a message added", [][3]string{weather, forecast}, []string{"Oslo now?", "And Lima?"},
				"message added: "+messages+"/1 (user) "+map[bool]string{true: `{"parts":[{"text":"And Lima?"}],"role":"user"}`, false: `"And Lima?"`}[gemini]),
			Entry("a message removed", [][3]string{weather, forecast}, nil,
				"message removed: "+messages+"/0 (user) "+map[bool]string{true: `{"parts":[{"text":"Oslo now?"}],"role":"user"}`, false: `"Oslo now?"`}[gemini]),
			Entry("several things at once, every one", [][3]string{alerts, {"get_forecast", "Daily forecast", "number"}}, []string{"Oslo now?"},
				"tool removed: get_weather", `tool added: get_alerts ("Weather alerts")`, `tool get_forecast: parameter p: type changed: "integer" → "number"`),
		)
	}

	DescribeTable("names an OpenAI custom tool (type custom) that changed by its name, in either API",
		func(path, recorded, live string, want ...string) {
			Expect(missFor(path, recorded, live).Diff).To(Equal(want))
		},
		Entry("Chat Completions: a description changed", "/v1/chat/completions",
			`{"model":"m","messages":[],"tools":[{"type":"custom","custom":{"name":"apply_patch","description":"Edit files."}},{"type":"custom","custom":{"name":"run_sql","description":"Run a query."}}]}`,
			`{"model":"m","messages":[],"tools":[{"type":"custom","custom":{"name":"apply_patch","description":"Edit files with a patch."}},{"type":"custom","custom":{"name":"run_sql","description":"Run a query."}}]}`,
			`tool apply_patch: description changed: "Edit files." → "Edit files with a patch."`),
		Entry("Chat Completions: a grammar changed", "/v1/chat/completions",
			`{"model":"m","messages":[],"tools":[{"type":"custom","custom":{"name":"apply_patch","format":{"type":"grammar","grammar":{"syntax":"lark","definition":"start: /.+/"}}}},{"type":"custom","custom":{"name":"run_sql"}}]}`,
			`{"model":"m","messages":[],"tools":[{"type":"custom","custom":{"name":"apply_patch","format":{"type":"grammar","grammar":{"syntax":"regex","definition":".+"}}}},{"type":"custom","custom":{"name":"run_sql"}}]}`,
			`tool apply_patch: /format/grammar/definition: "start: /.+/" → ".+"`, `tool apply_patch: /format/grammar/syntax: "lark" → "regex"`),
		Entry("Chat Completions: one added beside a function", "/v1/chat/completions",
			`{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"get_sst"}},{"type":"custom","custom":{"name":"apply_patch"}}]}`,
			`{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"get_sst"}},{"type":"custom","custom":{"name":"apply_patch"}},{"type":"custom","custom":{"name":"run_sql","description":"Run a query."}}]}`,
			`tool added: run_sql ("Run a query.")`),
		Entry("Responses: a description changed", "/v1/responses",
			`{"model":"m","input":"hi","tools":[{"type":"custom","name":"apply_patch","description":"Edit files."},{"type":"custom","name":"run_sql"}]}`,
			`{"model":"m","input":"hi","tools":[{"type":"custom","name":"apply_patch","description":"Edit files with a patch."},{"type":"custom","name":"run_sql"}]}`,
			`tool apply_patch: description changed: "Edit files." → "Edit files with a patch."`),
	)

	DescribeTable("says, of a value that differs only in a timestamp or id an agent makes anew on every run, the match rule that compares it as one",
		func(path, recorded, live, want string) {
			Expect(missFor(path, recorded, live).Diff).To(Equal([]string{want}))
		},
		Entry("a session id of milliseconds in the body", "/v1/responses",
			`{"model":"m","input":"hi","metadata":{"session":"s-1764400000123"}}`, `{"model":"m","input":"hi","metadata":{"session":"s-1764409123456"}}`,
			`/metadata/session: "s-1764400000123" → "s-1764409123456" (they differ only in a value of pattern unix_ms: if it changes on every run, compare it as one with match: {normalise: [{pattern: unix_ms, body: /metadata/session}]}; docs/recording.md)`),
		Entry("the time in a system prompt", "/v1/chat/completions",
			`{"model":"m","messages":[{"role":"system","content":"Now: 2026-03-02T08:00:00Z. Be brief."}]}`, `{"model":"m","messages":[{"role":"system","content":"Now: 2026-11-29T06:30:12Z. Be brief."}]}`,
			`/messages/0/content: "Now: 2026-03-02T08:00:00Z. Be brief." → "Now: 2026-11-29T06:30:12Z. Be brief." (they differ only in a value of pattern iso8601: if it changes on every run, compare it as one with match: {normalise: [{pattern: iso8601, body: /messages/0/content}]}; docs/recording.md)`),
		Entry("not a value that differs otherwise too", "/v1/chat/completions",
			`{"model":"m","messages":[{"role":"system","content":"Now: 2026-03-02T08:00:00Z. Be brief."}]}`, `{"model":"m","messages":[{"role":"system","content":"Now: 2026-11-29T06:30:12Z. Be verbose."}]}`,
			`/messages/0/content: "Now: 2026-03-02T08:00:00Z. Be brief." → "Now: 2026-11-29T06:30:12Z. Be verbose."`),
	)

	It("says it of a query parameter of seconds too", func() {
		body := `{"model":"m","messages":[]}`
		Expect(missAt("/v1/chat/completions?ts=1764400000", body, "/v1/chat/completions?ts=1764409999", body).Diff).To(Equal([]string{
			"query ts: 1764400000 → 1764409999 (they differ only in a value of pattern unix_s: if it changes on every run, compare it as one with match: {normalise: [{pattern: unix_s, query: ts}]}; docs/recording.md)"}))
	})

	It("names a message changed in place by its JSON pointer", func() {
		w := wires["OpenAI Chat Completions"]
		miss := missFor(w.path, w.build(nil, []string{"Oslo now?", "thanks"}), w.build(nil, []string{"Lima now?", "thanks"}))
		Expect(miss.Diff).To(Equal([]string{`/messages/0/content: "Oslo now?" → "Lima now?"`}))
		Expect(miss.Error()).To(ContainSubstring(`(nearest is interaction 0; it differs at /messages/0/content: "Oslo now?" → "Lima now?")`))
	})

	It("says a parameter is now required, and a parameter added", func() {
		rec := `{"tools":[{"name":"t","input_schema":{"type":"object","properties":{"a":{"type":"string"}}}}]}`
		live := `{"tools":[{"name":"t","input_schema":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"]}}]}`
		Expect(missFor("/v1/messages", rec, live).Diff).To(Equal([]string{
			`tool t: parameter added: b {"type":"integer"}`,
			"tool t: parameter a is now required",
		}))
	})

	It("shows the first ten differences and counts the rest", func() {
		var rec, live []string
		for i := range 14 {
			rec = append(rec, fmt.Sprintf(`"k%02d":%d`, i, i))
			live = append(live, fmt.Sprintf(`"k%02d":%d`, i, i+1))
		}
		miss := missFor("/v1/x", "{"+strings.Join(rec, ",")+"}", "{"+strings.Join(live, ",")+"}")
		Expect(miss.Diff).To(HaveLen(14))
		msg := miss.Error()
		Expect(msg).To(ContainSubstring("(nearest is interaction 0; it differs in 14 places)\n    /k00: 0 → 1\n"))
		Expect(msg).To(ContainSubstring("\n    /k09: 9 → 10\n    … and 4 more"))
		Expect(msg).NotTo(ContainSubstring("/k10"))
	})
})
