package match_test

import (
	"bytes"
	"encoding/json"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/match"
)

// rules compiles rs, failing the spec on any error.
func rules(headers []string, rs ...match.Rule) *match.Rules {
	r := &match.Rules{Headers: headers, List: rs}
	Expect(r.Compile()).To(BeEmpty())
	return r
}

// applyJSON applies r to the JSON text doc and returns it as compact JSON.
func applyJSON(r *match.Rules, doc string) string {
	dec := json.NewDecoder(bytes.NewReader([]byte(doc)))
	dec.UseNumber()
	var v any
	Expect(dec.Decode(&v)).To(Succeed())
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	Expect(enc.Encode(r.JSON(v))).To(Succeed())
	return string(bytes.TrimSpace(out.Bytes()))
}

var _ = Describe("Rules", func() {
	DescribeTable("JSON",
		func(doc string, want string, rs ...match.Rule) {
			Expect(applyJSON(rules(nil, rs...), doc)).To(Equal(want))
		},
		Entry("ignore removes a member",
			`{"id":"a","metadata":{"request_id":"r1","user":"u"}}`, `{"id":"a","metadata":{"user":"u"}}`,
			match.Rule{Ignore: true, Where: match.WhereBody, Target: "/metadata/request_id"}),
		Entry("ignore puts a token in place of an element, so the others keep their index",
			`{"a":[1,2,3]}`, `{"a":[1,"<ignored>",3]}`,
			match.Rule{Ignore: true, Where: match.WhereBody, Target: "/a/1"}),
		Entry("a normalise rule after an ignore leaves the ignored element's token as it is",
			`{"a":["x",{}]}`, `{"a":["#","<ignored>"]}`,
			match.Rule{Ignore: true, Where: match.WhereBody, Target: "/a/1"},
			match.Rule{Where: match.WhereAnywhere, Regex: ".", Token: "#"}),
		Entry("ignore through * reaches every member or element",
			`{"messages":[{"id":"x","c":"hi"},{"id":"y","c":"yo"}]}`, `{"messages":[{"c":"hi"},{"c":"yo"}]}`,
			match.Rule{Ignore: true, Where: match.WhereBody, Target: "/messages/*/id"}),
		Entry("ignore of a path that is not there changes nothing",
			`{"a":{"b":1}}`, `{"a":{"b":1}}`,
			match.Rule{Ignore: true, Where: match.WhereBody, Target: "/a/c/d"}),
		Entry("an escaped pointer names a key with / and ~",
			`{"a/b":1,"c~d":2,"e":3}`, `{"e":3}`,
			match.Rule{Ignore: true, Where: match.WhereBody, Target: "/a~1b"},
			match.Rule{Ignore: true, Where: match.WhereBody, Target: "/c~0d"}),
		Entry("normalise anywhere replaces the pattern in every string, at any depth",
			`{"id":"3f2b8c1e-9d4a-4e6b-8f00-1a2b3c4d5e6f","m":[{"c":"run 0d9e8f7a-1111-2222-3333-444455556666 now"}]}`,
			`{"id":"<uuid>","m":[{"c":"run <uuid> now"}]}`,
			match.Rule{Where: match.WhereAnywhere, Pattern: "uuid"}),
		Entry("normalise at a pointer leaves the rest alone",
			`{"system":"Now: 2026-11-26T13:55:02.123Z","user":"on 2026-11-26T13:55:02Z"}`,
			`{"system":"Now: <iso8601>","user":"on 2026-11-26T13:55:02Z"}`,
			match.Rule{Where: match.WhereBody, Target: "/system", Pattern: "iso8601"}),
		Entry("a number the pattern matches becomes the token",
			`{"ts":1764165302123,"n":42}`, `{"n":42,"ts":"<unix_ms>"}`,
			match.Rule{Where: match.WhereAnywhere, Pattern: "unix_ms"}),
		Entry("a regex with its own token",
			`{"q":"nonce-00ff and nonce-abc1"}`, `{"q":"N and N"}`,
			match.Rule{Where: match.WhereAnywhere, Regex: `nonce-[0-9a-f]+`, Token: "N"}),
	)

	It("URL drops ignored query keys, normalises values and the path, and sorts the query", func() {
		r := rules(nil,
			match.Rule{Ignore: true, Where: match.WhereQuery, Target: "ts"},
			match.Rule{Where: match.WhereQuery, Target: "state", Regex: `s-\d+`, Token: "S"},
			match.Rule{Where: match.WhereAnywhere, Pattern: "uuid"})
		Expect(r.URL("https://api.example.com/items/3f2b8c1e-9d4a-4e6b-8f00-1a2b3c4d5e6f?z=1&ts=1764165302&state=s-42&rid=0d9e8f7a-1111-2222-3333-444455556666")).
			To(Equal("https://api.example.com/items/%3Cuuid%3E?rid=%3Cuuid%3E&state=S&z=1"))
	})

	It("Header shows the compared headers, sorted: as sent, normalised, present or absent", func() {
		r := rules([]string{"x-tenant"},
			match.Rule{Ignore: true, Where: match.WhereHeader, Target: "x-trace"},
			match.Rule{Where: match.WhereHeader, Target: "X-Request-Id", Pattern: "uuid"})
		h := http.Header{"X-Tenant": {"acme"}, "X-Trace": {"t-1"}, "X-Request-Id": {"req-3f2b8c1e-9d4a-4e6b-8f00-1a2b3c4d5e6f"}, "Other": {"x"}}
		Expect(r.Header(h)).To(Equal([]string{"X-Request-Id: req-<uuid>", "X-Tenant: acme", "X-Trace: (present)"}))
		Expect(r.Header(http.Header{})).To(Equal([]string{"X-Request-Id: (absent)", "X-Tenant: (absent)", "X-Trace: (absent)"}))
	})

	It("Text normalises a body that is not JSON with the rules that apply anywhere", func() {
		r := rules(nil, match.Rule{Where: match.WhereAnywhere, Pattern: "date"},
			match.Rule{Where: match.WhereBody, Target: "/x", Pattern: "uuid"})
		Expect(r.Text("from=2026-11-26&id=3f2b8c1e-9d4a-4e6b-8f00-1a2b3c4d5e6f")).To(Equal("from=<date>&id=3f2b8c1e-9d4a-4e6b-8f00-1a2b3c4d5e6f"))
	})

	It("a nil Rules changes nothing and is empty", func() {
		var r *match.Rules
		Expect(r.Empty()).To(BeTrue())
		Expect(r.URL("http://h/p?b=2&a=1")).To(Equal("http://h/p?b=2&a=1"))
		Expect(r.Header(http.Header{"A": {"1"}})).To(BeNil())
		Expect(r.Describe()).To(BeNil())
	})

	DescribeTable("the built-in patterns",
		func(name, text string, whole bool) {
			r := rules(nil, match.Rule{Where: match.WhereAnywhere, Pattern: name})
			if whole {
				Expect(r.Text(text)).To(Equal("<" + name + ">"))
			} else {
				Expect(r.Text(text)).To(Equal(text))
			}
		},
		Entry(nil, "uuid", "3F2B8C1E-9D4A-4E6B-8F00-1A2B3C4D5E6F", true),
		Entry(nil, "uuid", "3f2b8c1e9d4a4e6b8f001a2b3c4d5e6f", false),
		Entry(nil, "iso8601", "2026-11-26T13:55:02Z", true),
		Entry(nil, "iso8601", "2026-11-26 13:55:02.123456+01:00", true),
		Entry(nil, "iso8601", "2026-11-26T13:55+0100", true),
		Entry(nil, "iso8601", "2026-11-26", false),
		Entry(nil, "date", "2026-11-26", true),
		Entry(nil, "unix_ms", "1764165302123", true),
		Entry(nil, "unix_ms", "17641653021234", false),
		Entry(nil, "unix_s", "1764165302", true),
		Entry(nil, "unix_s", "12345", false),
	)

	DescribeTable("Compile refuses a rule that cannot work, saying why",
		func(r match.Rule, want string) {
			Expect(r.Compile()).To(MatchError(ContainSubstring(want)))
		},
		Entry("bad regex", match.Rule{Regex: `(`}, "invalid regex"),
		Entry("empty match", match.Rule{Regex: `a?`}, "matches the empty string"),
		Entry("unknown pattern", match.Rule{Pattern: "guid"}, `unknown pattern "guid" (known: date, iso8601, unix_ms, unix_s, uuid`),
		Entry("no pattern", match.Rule{}, "needs a pattern"),
		Entry("both", match.Rule{Pattern: "uuid", Regex: "x"}, "not both"),
		Entry("pointer without /", match.Rule{Ignore: true, Where: match.WhereBody, Target: "a/b"}, "does not start with /"),
		Entry("bad ~", match.Rule{Ignore: true, Where: match.WhereBody, Target: "/a~"}, "~ not followed by 0 or 1"),
		Entry("ignore anywhere", match.Rule{Ignore: true}, "needs a body pointer"),
		Entry("ignore with a pattern", match.Rule{Ignore: true, Where: match.WhereQuery, Target: "ts", Pattern: "uuid"}, "takes no pattern"),
		Entry("bad header", match.Rule{Ignore: true, Where: match.WhereHeader, Target: "a b"}, "not a header name"),
		Entry("empty query key", match.Rule{Ignore: true, Where: match.WhereQuery}, "empty query key"),
	)
})

var _ = DescribeTable("Volatile names the built-in pattern under which two values are one",
	func(a, b, want string) {
		Expect(match.Volatile(a, b)).To(Equal(want))
	},
	Entry("a UUID in an id", "req-3f2a9c1e-7b4d-4e8a-9c0f-1a2b3c4d5e6f", "req-9b8c7d6e-5f4a-4b3c-8d2e-1f0a9b8c7d6e", "uuid"),
	Entry("a time, not the date alone", "Now: 2026-03-02T08:00:00Z.", "Now: 2026-11-29T06:30:12Z.", "iso8601"),
	Entry("milliseconds", "s-1764400000123", "s-1764409123456", "unix_ms"),
	Entry("a date", "report for 2026-03-02", "report for 2026-11-29", "date"),
	Entry("none when the rest differs too", "Now: 2026-03-02T08:00:00Z. Be brief.", "Now: 2026-11-29T06:30:12Z. Be verbose.", ""),
	Entry("none when only one side holds it", "s-1764400000123", "s-latest", ""),
)
