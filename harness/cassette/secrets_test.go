package cassette_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
)

// Fake credentials shaped like real ones, so that Scan's patterns apply.
const (
	bearerKey = "sk-live-0123456789abcdefghijKLMN"
	googleKey = "AIzaSyD-0123456789abcdefghijklmnopqrs"
	urlKey    = "SECRETVALUE123456"
)

var _ = Describe("secrets", func() {
	var (
		dir, path string
		up        *upstream
	)

	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		path = filepath.Join(dir, "ac1.yaml")
		up = newUpstream(`{"answer":"keyed"}`)
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport, Provenance: prov})
		Expect(err).NotTo(HaveOccurred())
		got := mustPost(tr, up.URL+"/v1beta/models/m:generateContent?alt=json&key="+urlKey, greet,
			"Authorization", "Bearer "+bearerKey, "X-Goog-Api-Key", googleKey)
		Expect(got).To(Equal(`{"answer":"keyed"}`))
		Expect(tr.Close()).To(Succeed())
	})

	It("reach the server but not the saved cassette", func() {
		sent, _ := up.request(0)
		Expect(sent.Header.Get("Authorization")).To(Equal("Bearer " + bearerKey))
		Expect(sent.Header.Get("X-Goog-Api-Key")).To(Equal(googleKey))
		Expect(sent.URL.Query().Get("key")).To(Equal(urlKey))

		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).NotTo(ContainSubstring(bearerKey))
		Expect(string(data)).NotTo(ContainSubstring(googleKey))
		Expect(string(data)).NotTo(ContainSubstring(urlKey))
		Expect(string(data)).NotTo(ContainSubstring("Bearer"))

		in := readOnDisk(path).Interactions[0].Request
		Expect(in.Headers).To(HaveKeyWithValue("Authorization", []string{cassette.Redacted}))
		Expect(in.Headers).To(HaveKeyWithValue("X-Goog-Api-Key", []string{cassette.Redacted}))
		Expect(in.Headers).To(HaveKeyWithValue("Content-Type", []string{"application/json"}))
		Expect(in.URL).To(Equal(up.URL + "/v1beta/models/m:generateContent?alt=json&key=" + cassette.Placeholder(urlKey)))
	})

	It("keep only allowlisted request headers; credential-named ones are REDACTED, the rest dropped", func() {
		other := filepath.Join(dir, "headers.yaml")
		tr, err := cassette.Open(cassette.ModeRecord, other, cassette.Options{Real: http.DefaultTransport, Provenance: prov})
		Expect(err).NotTo(HaveOccurred())
		// What OPENAI_CUSTOM_HEADERS, OPENAI_ORG_ID and OPENAI_PROJECT_ID make the SDK send.
		mustPost(tr, up.URL+"/v1/chat/completions", greet,
			"X-Portkey-Api-Key", "pk-live-abcdef0123456789", "Cf-Access-Client-Secret", "cf-secret-0123456789abcdef",
			"X-Api-Token", "tok-0123456789abcdef", "OpenAI-Organization", "org-0123456789abcdef",
			"OpenAI-Project", "proj_0123456789abcdef", "X-Team-Routing", "blue-0123456789",
			"Cookie", "session=0123456789abcdef", "X-Stainless-Lang", "go", "User-Agent", "OpenAI/Go 3.9")
		Expect(tr.Close()).To(Succeed())

		in := readOnDisk(other).Interactions[0].Request.Headers
		Expect(in).To(Equal(map[string][]string{
			"X-Portkey-Api-Key": {cassette.Redacted}, "Cf-Access-Client-Secret": {cassette.Redacted},
			"X-Api-Token": {cassette.Redacted}, "Cookie": {cassette.Redacted},
			"X-Stainless-Lang": {"go"}, "User-Agent": {"OpenAI/Go 3.9"}, "Content-Type": {"application/json"},
		}))
	})

	It("keep Anthropic's anthropic-version and anthropic-beta, and redact its x-api-key", func() {
		other := filepath.Join(dir, "anthropic.yaml")
		tr, err := cassette.Open(cassette.ModeRecord, other, cassette.Options{Real: http.DefaultTransport, Provenance: prov})
		Expect(err).NotTo(HaveOccurred())
		// What the official Anthropic SDKs send.
		const anthropicKey = "sk-ant-api03-0123456789abcdefWXYZ"
		mustPost(tr, up.URL+"/v1/messages", greet, "X-Api-Key", anthropicKey, "Anthropic-Version", "2023-06-01",
			"Anthropic-Beta", "prompt-caching-2024-07-31", "X-Stainless-Package-Version", "1.84.0")
		Expect(tr.Close()).To(Succeed())

		sent, _ := up.request(1)
		Expect(sent.Header.Get("X-Api-Key")).To(Equal(anthropicKey), "the key reaches the server")
		data, err := os.ReadFile(other)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).NotTo(ContainSubstring(anthropicKey))
		Expect(readOnDisk(other).Interactions[0].Request.Headers).To(Equal(map[string][]string{
			"X-Api-Key": {cassette.Redacted}, "Anthropic-Version": {"2023-06-01"}, "Anthropic-Beta": {"prompt-caching-2024-07-31"},
			"X-Stainless-Package-Version": {"1.84.0"}, "Content-Type": {"application/json"},
		}))
	})

	It("keep an MCP request's Mcp-Protocol-Version and redact its Mcp-Session-Id, which matching does not need", func() {
		other := filepath.Join(dir, "mcp.yaml")
		tr, err := cassette.Open(cassette.ModeRecord, other, cassette.Options{Real: http.DefaultTransport, Provenance: prov})
		Expect(err).NotTo(HaveOccurred())
		call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ghrsst.point_value","arguments":{}}}`
		// What the MCP Go SDK's streamable HTTP client sends after initialize.
		mustPost(tr, up.URL+"/mcp/ghrsst", call, "Mcp-Session-Id", "ghrsst-1", "Mcp-Protocol-Version", "2025-06-18",
			"Accept", "application/json, text/event-stream")
		Expect(tr.Close()).To(Succeed())
		Expect(readOnDisk(other).Interactions[0].Request.Headers).To(Equal(map[string][]string{
			"Mcp-Session-Id": {cassette.Redacted}, "Mcp-Protocol-Version": {"2025-06-18"},
			"Accept": {"application/json, text/event-stream"}, "Content-Type": {"application/json"},
		}))

		rp, err := cassette.Open(cassette.ModeReplay, other, cassette.Options{})
		Expect(err).NotTo(HaveOccurred())
		mustPost(rp, up.URL+"/mcp/ghrsst", call, "Mcp-Session-Id", "another-session", "Mcp-Protocol-Version", "2025-06-18")
	})

	It("never get in the way of matching: another key replays the same answer", func() {
		up.Close()
		rp, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{})
		Expect(err).NotTo(HaveOccurred())
		got := mustPost(rp, up.URL+"/v1beta/models/m:generateContent?key=ANOTHERKEY999888&alt=json", greet,
			"Authorization", "Bearer sk-other-key", "X-Goog-Api-Key", "AIza-other")
		Expect(got).To(Equal(`{"answer":"keyed"}`))
	})

	It("are not quoted in what replay reports about a request", func() {
		up.Close()
		var obs observed
		rp, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{Observe: obs.add})
		Expect(err).NotTo(HaveOccurred())
		const live = "LIVEKEYVALUE7777777"
		mustPost(rp, up.URL+"/v1beta/models/m:generateContent?alt=json&key="+live, greet)
		_, err = post(rp, up.URL+"/v1beta/models/m:generateContent?alt=json&key="+live, roll)
		var miss *cassette.MissError
		Expect(errors.As(err, &miss)).To(BeTrue())
		// The *url.Error that http.Client wraps around it quotes the URL as
		// sent; the harness reports the MissError itself.
		Expect(miss.Error()).NotTo(ContainSubstring(live))
		Expect(miss.URL).To(ContainSubstring("key=REDACTED"))
		Expect(obs.all()).To(HaveLen(2))
		for _, e := range obs.all() {
			Expect(e.URL).NotTo(ContainSubstring(live))
			Expect(e.URL).To(ContainSubstring("/v1beta/models/m:generateContent"))
		}
	})

	It("are not quoted in what recording and live mode report", func() {
		for _, mode := range []cassette.Mode{cassette.ModeRecord, cassette.ModeLive} {
			var obs observed
			tr, err := cassette.Open(mode, filepath.Join(GinkgoT().TempDir(), "ac1.yaml"), cassette.Options{Real: http.DefaultTransport, Observe: obs.add})
			Expect(err).NotTo(HaveOccurred())
			mustPost(tr, up.URL+"/v1beta/models/m:generateContent?key="+urlKey, greet)
			Expect(tr.Close()).To(Succeed())
			Expect(obs.all()).To(HaveLen(1), "mode %s", mode)
			Expect(obs.all()[0].URL).NotTo(ContainSubstring(urlKey), "mode %s", mode)
		}
	})

	Describe("Scan", func() {
		It("finds nothing in a recorded cassette", func() {
			findings, err := cassette.Scan(dir, []string{bearerKey, googleKey, urlKey})
			Expect(err).NotTo(HaveOccurred())
			Expect(findings).To(BeEmpty())
		})

		It("finds each planted secret on its line, and nothing that is REDACTED", func() {
			// Planted here rather than under testdata so that the repository
			// itself holds nothing a secret scanner would flag.
			// Lines 3 to 8 hold one secret each; the rest must not be findings.
			planted := strings.Join([]string{
				"---",
				"version: 1",
				"openai: sk-proj0123456789abcdefXYZ",
				"google: AIzaSyB0123456789abcdefghijklmnopqrstu",
				"header: Bearer abcdefghijklmnopqrstuvwxyz012345",
				"url: https://example.test/v1?alt=json&key=ABCDEF1234567890",
				`body: '{"api_key": "abcdef0123456789xyz"}'`,
				"note: the literal my-own-secret-value appears here",
				"headers: {Authorization: [REDACTED], X-Goog-Api-Key: [REDACTED]}",
				"url: https://example.test/v1?key=REDACTED",
				"header: Bearer REDACTED-REDACTED-REDACTED",
				`body: '{"api_key": "REDACTED"}'`,
				"short: the literal short appears here", // under 8 bytes: too short to be a secret
			}, "\n") + "\n"
			scanDir := GinkgoT().TempDir()
			file := filepath.Join(scanDir, "suite", "variant", "planted.yaml")
			Expect(os.MkdirAll(filepath.Dir(file), 0o755)).To(Succeed())
			Expect(os.WriteFile(file, []byte(planted), 0o644)).To(Succeed())
			// Only .yaml files are cassettes.
			Expect(os.WriteFile(filepath.Join(scanDir, "notes.txt"), []byte("sk-proj0123456789abcdefXYZ\n"), 0o644)).To(Succeed())

			findings, err := cassette.Scan(scanDir, []string{"my-own-secret-value", "short"})
			Expect(err).NotTo(HaveOccurred())

			var got []string
			for _, f := range findings {
				Expect(f.Path).To(Equal(file))
				Expect(f.String()).To(HavePrefix(fmt.Sprintf("%s:%d: ", file, f.Line)))
				got = append(got, fmt.Sprintf("%d %s", f.Line, f.What))
			}
			Expect(got).To(ConsistOf(
				"3 OpenAI-style key",
				"4 Google API key",
				"5 bearer token",
				"6 key query parameter",
				"7 key in JSON",
				"8 value of a key variable",
			))
			for _, f := range findings {
				for _, secret := range []string{"sk-proj0123456789abcdefXYZ", "AIzaSyB0123456789abcdefghijklmnopqrstu", "abcdefghijklmnopqrstuvwxyz012345", "ABCDEF1234567890", "abcdef0123456789xyz", "my-own-secret-value"} {
					Expect(f.Text).NotTo(ContainSubstring(secret), "findings are masked")
				}
			}
		})
	})
})

var _ = Describe("redaction of keys in bodies and of literal secrets", func() {
	// A request that carries a key in each place a client may put one: a
	// header, a ?key= parameter, JSON fields (top level and nested) and,
	// as a literal known to the recorder, inside an ordinary field.
	const (
		headerKey = "sk-proj-HEADERKEY0123456789abcd"
		paramKey  = "PARAMKEY0123456789"
		bodyKey   = "BODYKEY0123456789abcdef"
		nestedPw  = "nested-password-value"
		literal   = "LITERALSECRET-0123456789"
		tokenResp = "RESPONSETOKEN0123456789"
	)
	body := func(key, pw, lit string) string {
		return `{"api_key":"` + key + `","q":"sea surface temperature","auth":{"password":"` + pw + `"},"note":"sent with ` + lit + `"}`
	}

	var (
		path string
		up   *upstream
		seen string // what the caller got back while recording
	)

	BeforeEach(func() {
		path = filepath.Join(GinkgoT().TempDir(), "keyed.yaml")
		up = newUpstream(`{"access_token":"` + tokenResp + `","answer":"warm"}`)
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{
			Real: http.DefaultTransport, Provenance: prov, Secrets: []string{literal},
		})
		Expect(err).NotTo(HaveOccurred())
		seen = mustPost(tr, up.URL+"/v1/search?alt=json&key="+paramKey, body(bodyKey, nestedPw, literal),
			"Authorization", "Bearer "+headerKey)
		Expect(tr.Close()).To(Succeed())
	})

	It("sends every key and hands the caller the real response while recording", func() {
		sent, sentBody := up.request(0)
		Expect(sent.Header.Get("Authorization")).To(Equal("Bearer " + headerKey))
		Expect(sent.URL.Query().Get("key")).To(Equal(paramKey))
		Expect(sentBody).To(Equal(body(bodyKey, nestedPw, literal)))
		Expect(seen).To(ContainSubstring(tokenResp))
	})

	It("writes none of them, and the scan finds nothing", func() {
		data := string(mustReadFile(path))
		for _, k := range []string{headerKey, paramKey, bodyKey, nestedPw, literal, tokenResp} {
			Expect(data).NotTo(ContainSubstring(k))
		}
		in := readOnDisk(path).Interactions[0]
		Expect(in.Request.Body).To(MatchJSON(body(cassette.Placeholder(bodyKey), cassette.Placeholder(nestedPw), cassette.Placeholder(literal))))
		Expect(in.Request.URL).To(HaveSuffix("/v1/search?alt=json&key=" + cassette.Placeholder(paramKey)))
		Expect(in.Response.Body).To(MatchJSON(`{"access_token":"` + cassette.Placeholder(tokenResp) + `","answer":"warm"}`))

		findings, err := cassette.Scan(filepath.Dir(path), []string{headerKey, paramKey, bodyKey, nestedPw, literal, tokenResp})
		Expect(err).NotTo(HaveOccurred())
		Expect(findings).To(BeEmpty())
	})

	It("replays whatever keys the live request carries", func() {
		up.Close()
		rp, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{Secrets: []string{"OTHERLITERAL-99999999"}})
		Expect(err).NotTo(HaveOccurred())
		got := mustPost(rp, up.URL+"/v1/search?key=OTHERKEY999888777&alt=json", body("OTHERBODYKEY98765432100", "other-password", "OTHERLITERAL-99999999"),
			"Authorization", "Bearer sk-other")
		Expect(got).To(MatchJSON(`{"access_token":"` + cassette.Placeholder(tokenResp) + `","answer":"warm"}`))
	})

	It("still tells requests apart by everything else", func() {
		up.Close()
		rp, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{})
		Expect(err).NotTo(HaveOccurred())
		_, err = post(rp, up.URL+"/v1/search?alt=json&key="+paramKey, strings.Replace(body(bodyKey, nestedPw, literal), "sea surface", "air", 1))
		var miss *cassette.MissError
		Expect(errors.As(err, &miss)).To(BeTrue())
		Expect(miss.Error()).To(ContainSubstring("/q"))
		Expect(miss.Error()).NotTo(ContainSubstring(bodyKey))
	})
})

var _ = DescribeTable("Detector.Body",
	func(in, want string) {
		d, err := cassette.NewDetector([]string{"LITERAL-SECRET-42"}, nil, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Body(nil, in)).To(Equal(want))
	},
	Entry("leaves a body without secrets byte for byte", `{ "b": 1,  "a": "x" }`, `{ "b": 1,  "a": "x" }`),
	Entry("redacts credential fields at any depth", `{"x":[{"apiKey":"k1"}],"client_secret":"s"}`+"\n",
		`{"client_secret":"`+cassette.Placeholder("s")+`","x":[{"apiKey":"`+cassette.Placeholder("k1")+`"}]}`+"\n"),
	Entry("redacts the token an MCP server is called with (Anthropic's mcp_servers, the Responses API's mcp tool), whatever it looks like",
		`{"mcp_servers":[{"authorization_token":"tickets-oauth-5521","name":"tickets","type":"url"}],"tools":[{"authorization":"crm-oauth-7730","server_label":"crm","type":"mcp"}]}`,
		`{"mcp_servers":[{"authorization_token":"`+cassette.Placeholder("tickets-oauth-5521")+`","name":"tickets","type":"url"}],"tools":[{"authorization":"`+cassette.Placeholder("crm-oauth-7730")+`","server_label":"crm","type":"mcp"}]}`),
	Entry("redacts generic fields only when they hold a key", `{"key":"country","token":"tk0123456789abcdefgh"}`,
		`{"key":"country","token":"`+cassette.Placeholder("tk0123456789abcdefgh")+`"}`),
	Entry("keeps the marker and the placeholder", `{"api_key":"REDACTED","password":"testbed-placeholder-key"}`, `{"api_key":"REDACTED","password":"testbed-placeholder-key"}`),
	Entry("redacts parameters of a form body", "alt=json&api_key=abc123&q=sst", "alt=json&api_key="+cassette.Placeholder("abc123")+"&q=sst"),
	Entry("gives a secret the same placeholder wherever it is", "say LITERAL-SECRET-42 twice: LITERAL-SECRET-42",
		"say "+cassette.Placeholder("LITERAL-SECRET-42")+" twice: "+cassette.Placeholder("LITERAL-SECRET-42")),
)

func mustReadFile(path string) []byte {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	return data
}

var _ = DescribeTable("a secret in a text held in a JSON body's string, escaped once or more (a tool's result sent back, quoted again), is replaced by the redaction, found by the scan, and the body stays JSON",
	func(inner string, depth int, secrets ...string) {
		content := inner
		for range depth {
			content = jsonString(content)
		}
		body := `{"messages": [{"role": "tool", "content": ` + content + `}, {"role": "user", "content": "go on"}]}`

		d, err := cassette.NewDetector(nil, nil, nil)
		Expect(err).NotTo(HaveOccurred())
		out := d.Body(http.Header{"Content-Type": {"application/json"}}, body)
		Expect(json.Valid([]byte(out))).To(BeTrue(), out)
		for _, s := range secrets {
			Expect(out).NotTo(ContainSubstring(s), "redacted: %s", out)
		}
		Expect(out).To(ContainSubstring(`"go on"`), "the rest is kept")

		dir := GinkgoT().TempDir()
		raw := "---\nversion: 1\ninteractions:\n    - request:\n        body: '" + body + "'\n        url: https://api.example.com/v1/x\n        method: POST\n"
		Expect(os.WriteFile(filepath.Join(dir, "raw.yaml"), []byte(raw), 0o644)).To(Succeed())
		found, err := d.Scan(dir)
		Expect(err).NotTo(HaveOccurred())
		var masked []string
		for _, f := range found {
			masked = append(masked, f.Text)
		}
		for _, s := range secrets {
			Expect(masked).To(ContainElement(HaveSuffix(s[len(s)-4:])), "the scan finds …%s", s[len(s)-4:])
		}
	},
	Entry("an AWS secret assigned beside its key id, in a JSON text", `{"note": "creds: aws_access_key_id=`+awsID+` aws_secret_access_key=`+awsSecret+`"}`, 1, awsID, awsSecret),
	Entry("an AWS secret assigned beside its key id, quoted twice", `Tool results: {"raw": "creds: aws_access_key_id=`+awsID+` aws_secret_access_key=`+awsSecret+`"}`, 2, awsID, awsSecret),
	Entry("an AWS secret assigned beside its key id, quoted three times", `aws_access_key_id=`+awsID+` aws_secret_access_key=`+awsSecret, 3, awsID, awsSecret),
	Entry("a key on a line of its own", "the key:\n"+streamedKey+"\nkeep it", 1, streamedKey),
	Entry("a key on a line of its own, quoted twice", "the key:\n"+streamedKey+"\nkeep it", 2, streamedKey),
	Entry("a key after a tab in a JSON text, quoted twice", `{"out": "key:`+"\t"+streamedKey+`"}`, 2, streamedKey),
	Entry("a key in a JSON text's credential field, quoted twice", `{"api_key": "kq7Zp2Lm9Nv4Rs8TxW3y"}`, 2, "kq7Zp2Lm9Nv4Rs8TxW3y"),
)

var _ = DescribeTable("every rule is run on the text as it came, so a pass that replaced an AWS key id does not hide the secret access key found beside it",
	func(contentType, text string) {
		d, err := cassette.NewDetector(nil, nil, nil)
		Expect(err).NotTo(HaveOccurred())
		var out string
		if contentType == "" {
			out = d.URL(text)
		} else {
			out = d.Body(http.Header{"Content-Type": {contentType}}, text)
		}
		Expect(out).NotTo(Or(ContainSubstring(awsID), ContainSubstring(awsSecret)), out)
		Expect(out).To(ContainSubstring(cassette.Placeholder(awsSecret)))
	},
	Entry("in two strings of a JSON body with escapes", "application/json", `{"id": "`+awsID+`", "note": "a\nb", "s": "`+awsSecret+`"}`),
	Entry("in two parameters of a form", "application/x-www-form-urlencoded", "key="+awsID+"&b="+awsSecret),
	Entry("in two query parameters of a URL", "", "https://api.example.com/v1/x?key="+awsID+"&q="+awsSecret),
	Entry("in two channels of a stream", "text/event-stream",
		`data: {"choices":[{"index":0,"delta":{"content":"`+awsID+`"}}]}`+"\n\n"+`data: {"choices":[{"index":1,"delta":{"content":"`+awsSecret+`"}}]}`+"\n\n"),
)

var _ = DescribeTable("no replacement leaves the backslash of an escape whose character it took, so a JSON body stays JSON",
	func(body string) {
		d, err := cassette.NewDetector(nil, nil, []cassette.Rule{{Pattern: regexp.MustCompile(`[A-Za-z0-9]{32,}`)}})
		Expect(err).NotTo(HaveOccurred())
		for _, contentType := range []string{"application/json", "text/event-stream"} {
			out := d.Body(http.Header{"Content-Type": {contentType}}, body)
			Expect(out).NotTo(ContainSubstring("Zr8Kq2LmN5pX7vB1cT4yW9hJ3dF6gS0"))
			data := strings.TrimSpace(strings.TrimPrefix(out, "data:"))
			Expect(json.Valid([]byte(data))).To(BeTrue(), "%s: %s", contentType, out)
		}
	},
	// 31 characters after the escape: the rule matches from its n alone.
	Entry("a newline's", `{"note": "key:\nZr8Kq2LmN5pX7vB1cT4yW9hJ3dF6gS0"}`),
	Entry("a tab's, in a JSON text quoted in a string", `{"note": "{\"k\": \"\\tZr8Kq2LmN5pX7vB1cT4yW9hJ3dF6gS0\"}"}`),
)
