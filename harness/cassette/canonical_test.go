package cassette_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
)

var _ = DescribeTable("CanonicalBody",
	func(body string, volatile []string, want string) {
		Expect(string(cassette.CanonicalBody([]byte(body), volatile))).To(Equal(want))
	},
	Entry("sorts keys", `{"model":"m","messages":[],"temperature":0}`, nil,
		`{"messages":[],"model":"m","temperature":0}`),
	Entry("drops insignificant white space", "\n  { \"a\" :\t[ 1 , 2 ] ,\n \"b\" : \"x y\" }\n", nil,
		`{"a":[1,2],"b":"x y"}`),
	Entry("sorts nested objects", `{"z":{"y":1,"x":{"w":2,"v":3}},"a":[{"d":1,"c":2}]}`, nil,
		`{"a":[{"c":2,"d":1}],"z":{"x":{"v":3,"w":2},"y":1}}`),
	Entry("keeps arrays in order", `{"messages":[{"role":"user"},{"role":"system"}],"n":[3,1,2]}`, nil,
		`{"messages":[{"role":"user"},{"role":"system"}],"n":[3,1,2]}`),
	Entry("canonicalizes a top-level array", ` [ {"b":1,"a":2}, 3 ] `, nil,
		`[{"a":2,"b":1},3]`),
	Entry("removes volatile top-level fields", `{"model":"m","seed":42,"user":"u-1","stream":false}`, []string{"seed", "user"},
		`{"model":"m","stream":false}`),
	Entry("keeps a volatile name below the top level", `{"seed":1,"options":{"seed":2}}`, []string{"seed"},
		`{"options":{"seed":2}}`),
	Entry("ignores volatile names that are absent", `{"model":"m"}`, []string{"seed"},
		`{"model":"m"}`),
	Entry("keeps number text exactly", `{"t":1.10,"u":1.1,"big":12345678901234567890,"e":1e3,"neg":-0.0}`, nil,
		`{"big":12345678901234567890,"e":1e3,"neg":-0.0,"t":1.10,"u":1.1}`),
	Entry("does not escape HTML characters", `{"p":"a<b && c>d"}`, nil,
		`{"p":"a<b && c>d"}`),
	Entry("keeps unicode and escapes meaningfully", `{"p":"caf\u00e9 \"q\" ☕"}`, nil,
		`{"p":"café \"q\" ☕"}`),
	Entry("leaves text unchanged", "hello world\n", nil, "hello world\n"),
	Entry("leaves broken JSON unchanged", `{"a":1`, nil, `{"a":1`),
	Entry("leaves JSON with trailing data unchanged", `{"a":1} {"b":2}`, nil, `{"a":1} {"b":2}`),
	Entry("leaves JSON with a stray closing bracket unchanged", `{"a":1}]`, nil, `{"a":1}]`),
	Entry("leaves JSON with a stray closing brace unchanged", `{"a":1} }`, nil, `{"a":1} }`),
	Entry("leaves a form body unchanged", "b=2&a=1", nil, "b=2&a=1"),
	Entry("leaves an empty body empty", "", nil, ""),
)

var _ = It("CanonicalBody tells 1.10 from 1.1: numbers are compared as written", func() {
	Expect(cassette.CanonicalBody([]byte(`{"t":1.10}`), nil)).NotTo(Equal(cassette.CanonicalBody([]byte(`{"t":1.1}`), nil)))
})

var _ = DescribeTable("CanonicalURL",
	func(raw, want string) {
		Expect(cassette.CanonicalURL(raw)).To(Equal(want))
	},
	Entry("drops the key parameter",
		"https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent?key=AIzaXYZ&alt=json",
		"https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent?alt=json"),
	Entry("drops every secret parameter",
		"http://127.0.0.1:8080/api?api_key=a&apikey=b&access_token=c&token=d&q=sst",
		"http://127.0.0.1:8080/api?q=sst"),
	Entry("drops a redacted key the same way", "http://h/p?key=REDACTED&q=1", "http://h/p?q=1"),
	Entry("sorts parameters", "http://h/p?lon0=118&lat0=20&start=2025-11-06", "http://h/p?lat0=20&lon0=118&start=2025-11-06"),
	Entry("keeps repeated parameters in order", "http://h/p?b=2&a=1&b=1", "http://h/p?a=1&b=2&b=1"),
	Entry("drops the fragment", "http://h/p?a=1#part", "http://h/p?a=1"),
	Entry("leaves a URL without a query alone", "http://localhost:11434/v1/chat/completions", "http://localhost:11434/v1/chat/completions"),
	Entry("leaves no query mark when only a key was there", "http://h/p?key=abc", "http://h/p"),
	Entry("returns an unparsable URL unchanged", "http://h/%zz?key=abc", "http://h/%zz?key=abc"),
)
