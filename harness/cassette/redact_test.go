package cassette_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/stream"
)

// Keys shaped like real ones, found by the maintained rules.
const (
	streamedKey = "sk-ant-api03-Zr8Kq2LmN5pX7vB1cT4yW9hJ3dF6gS0aE2uI8oR5tY7wQ1eZ"
	awsID       = "AKIAQYLPMN5HHHFPZAM2"
	awsSecret   = "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"
)

// recordOne records one POST to /v1/chat/completions answered with body
// (as contentType) and returns the cassette's path and what the caller
// got, and the URL it posted to.
func recordOne(body, contentType string, opts cassette.Options, reqBody string) (path, got, url string) {
	GinkgoHelper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		io.WriteString(w, body)
	}))
	DeferCleanup(srv.Close)
	path = filepath.Join(GinkgoT().TempDir(), "c.yaml")
	opts.Real, opts.Provenance = http.DefaultTransport, prov
	tr, err := cassette.Open(cassette.ModeRecord, path, opts)
	Expect(err).NotTo(HaveOccurred())
	url = srv.URL + "/v1/chat/completions"
	got = mustPost(tr, url, reqBody)
	Expect(tr.Close()).To(Succeed())
	return path, got, url
}

var _ = Describe("the redaction funnel", func() {
	DescribeTable("a key streamed in 6-byte chunks is found by the scan and redacted in the chunks, which stay a valid stream",
		func(format string) {
			text := "Your key is " + streamedKey + ", keep it safe."
			body := chunked(text, 6, wireFormats[format])
			Expect(body).NotTo(ContainSubstring(streamedKey[:12]))

			// The scan reassembles the stream as its client does.
			dir := GinkgoT().TempDir()
			raw := "---\nversion: 1\ninteractions:\n    - request:\n        body: '{}'\n        url: https://api.example.com/v1/x\n        method: POST\n      response:\n        body: |+\n" +
				indent(body, "            ") + "        headers:\n            Content-Type:\n                - text/event-stream\n        status: 200 OK\n        code: 200\n        duration: 1s\n"
			Expect(os.WriteFile(filepath.Join(dir, "raw.yaml"), []byte(raw), 0o644)).To(Succeed())
			found, err := cassette.Scan(dir, nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(found).To(HaveLen(1))
			Expect(found[0].What).To(ContainSubstring("streamed, reassembled"))
			Expect(found[0].Line).To(BeNumerically(">", 9), "the line of the event where the key starts")
			Expect(strings.Split(raw, "\n")[found[0].Line-1]).To(ContainSubstring(jsonString(streamedKey[:6])[1:7]))

			// Recording redacts it inside the chunks.
			path, got, _ := recordOne(body, "text/event-stream", cassette.Options{}, greet)
			Expect(got).To(Equal(body), "the agent got the stream as it was")
			saved := readOnDisk(path).Interactions[0].Response.Body
			Expect(reassembled(saved)).To(Equal("Your key is " + cassette.Placeholder(streamedKey) + ", keep it safe."))
			Expect(stream.Parse(saved)).To(HaveLen(len(stream.Parse(body))), "no event added or dropped")
			found, err = cassette.Scan(filepath.Dir(path), nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(found).To(BeEmpty())
		},
		Entry("OpenAI Chat Completions", "chat completions"),
		Entry("OpenAI Chat Completions, reasoning_content (DeepSeek, vLLM, SGLang)", "chat completions reasoning_content"),
		Entry("OpenAI Chat Completions, reasoning (OpenRouter, newer vLLM)", "chat completions reasoning"),
		Entry("OpenAI Chat Completions, a custom tool's input", "chat completions custom tool input"),
		Entry("OpenAI Responses", "responses"),
		Entry("Anthropic Messages", "anthropic"),
		Entry("Gemini", "gemini"),
		Entry("Gemini's Interactions API", "interactions"),
	)

	DescribeTable("reassembles a stream served under a media type that does not say it is one, or says another, in the recording and in the scan",
		func(lines bool, contentType string, n int) {
			text := "Your key is " + streamedKey + ", keep it safe."
			body := chunked(text, n, wireFormats["chat completions"])
			// contents is the text the events carry, in order.
			contents := func(body string) (string, int) {
				var b strings.Builder
				events := stream.Lines(body)
				for _, e := range events {
					var v struct{ Message struct{ Content string } }
					Expect(json.Unmarshal(e.Data, &v)).To(Succeed())
					b.WriteString(v.Message.Content)
				}
				return b.String(), len(events)
			}
			if lines {
				var b strings.Builder
				for rest := text; len(rest) > 0; {
					k := min(n, len(rest))
					fmt.Fprintf(&b, `{"message":{"role":"assistant","content":%s},"done":false}`+"\n", jsonString(rest[:k]))
					rest = rest[k:]
				}
				body = b.String()
			} else {
				contents = func(body string) (string, int) { return reassembled(body), len(stream.Parse(body)) }
			}
			Expect(body).NotTo(ContainSubstring(streamedKey[:12]))

			path, got, _ := recordOne(body, contentType, cassette.Options{}, greet)
			Expect(got).To(Equal(body))
			saved := readOnDisk(path).Interactions[0].Response.Body
			savedText, savedEvents := contents(saved)
			_, events := contents(body)
			Expect(savedText).To(Equal("Your key is "+cassette.Placeholder(streamedKey)+", keep it safe."), "the key's chunks are replaced, the rest kept")
			Expect(savedEvents).To(Equal(events), "no event added or dropped")
			found, err := cassette.Scan(filepath.Dir(path), nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(found).To(BeEmpty())

			By("the scan, of the body as a literal block and as a quoted scalar")
			for _, written := range []string{"|+\n" + indent(body, "            "), jsonString(body) + "\n"} {
				dir := GinkgoT().TempDir()
				raw := "---\nversion: 1\ninteractions:\n    - request:\n        body: '{}'\n        url: https://api.example.com/v1/x\n        method: POST\n      response:\n        body: " +
					written + "        headers:\n            Content-Type:\n                - '" + contentType + "'\n        status: 200 OK\n        code: 200\n        duration: 1s\n"
				Expect(os.WriteFile(filepath.Join(dir, "raw.yaml"), []byte(raw), 0o644)).To(Succeed())
				found, err = cassette.Scan(dir, nil)
				Expect(err).NotTo(HaveOccurred())
				Expect(found).To(HaveLen(1), raw)
				Expect(found[0].What).To(ContainSubstring("streamed, reassembled"))
			}
		},
		Entry("server-sent events as text/plain, 3-byte chunks", false, "text/plain", 3),
		Entry("server-sent events as application/x-ndjson, 3-byte chunks", false, "application/x-ndjson", 3),
		Entry("server-sent events as application/octet-stream, 4-byte chunks", false, "application/octet-stream", 4),
		Entry("server-sent events with no media type, 5-byte chunks", false, "", 5),
		Entry("server-sent events as application/json, 6-byte chunks", false, "application/json", 6),
		Entry("newline-delimited JSON as application/jsonl, 3-byte chunks", true, "application/jsonl", 3),
		Entry("newline-delimited JSON as application/x-ndjson, 4-byte chunks", true, "application/x-ndjson", 4),
		Entry("newline-delimited JSON as application/ndjson, 5-byte chunks", true, "application/ndjson", 5),
		Entry("newline-delimited JSON as text/plain, 6-byte chunks", true, "text/plain; charset=utf-8", 6),
		Entry("newline-delimited JSON as text/event-stream, 4-byte chunks", true, "text/event-stream", 4),
	)

	It("finds and redacts a key streamed in 6-byte chunks of a Gemini stream sent as one JSON array (without alt=sse)", func() {
		text := "Your key is " + streamedKey + ", keep it safe."
		var chunks []string
		for rest := text; len(rest) > 0; {
			k := min(6, len(rest))
			chunks = append(chunks, wireFormats["gemini"](rest[:k]))
			rest = rest[k:]
		}
		body := "[" + strings.Join(chunks, ",\r\n") + "]"
		joined := func(body string) string {
			var arr []struct {
				Candidates []struct {
					Content struct{ Parts []struct{ Text string } }
				}
			}
			Expect(json.Unmarshal([]byte(body), &arr)).To(Succeed())
			var out strings.Builder
			for _, c := range arr {
				out.WriteString(c.Candidates[0].Content.Parts[0].Text)
			}
			return out.String()
		}
		path, got, _ := recordOne(body, "application/json", cassette.Options{}, greet)
		Expect(got).To(Equal(body))
		saved := readOnDisk(path).Interactions[0].Response.Body
		Expect(joined(saved)).To(Equal("Your key is " + cassette.Placeholder(streamedKey) + ", keep it safe."))
		found, err := cassette.Scan(filepath.Dir(path), nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(found).To(BeEmpty())

		dir := GinkgoT().TempDir()
		raw := "---\nversion: 1\ninteractions:\n    - request:\n        body: '{}'\n        url: https://generativelanguage.googleapis.com/v1beta/models/m:streamGenerateContent\n        method: POST\n      response:\n        body: |+\n" +
			indent(body+"\n", "            ") + "        headers:\n            Content-Type:\n                - application/json\n        status: 200 OK\n        code: 200\n        duration: 1s\n"
		Expect(os.WriteFile(filepath.Join(dir, "raw.yaml"), []byte(raw), 0o644)).To(Succeed())
		found, err = cassette.Scan(dir, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(found).To(HaveLen(1))
		Expect(found[0].What).To(ContainSubstring("streamed, reassembled"))

		By("leaving any other JSON array judged value by value")
		var items []string
		for rest := text; len(rest) > 0; {
			k := min(6, len(rest))
			items = append(items, `{"done":false,"response":`+jsonString(rest[:k])+`}`)
			rest = rest[k:]
		}
		plain := "[" + strings.Join(items, ",") + "]"
		d, err := cassette.NewDetector(nil, nil, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Body(http.Header{"Content-Type": {"application/json"}}, plain)).To(Equal(plain))
	})

	It("finds and redacts a key streamed in 6-byte chunks of Ollama's newline-delimited JSON, which stays a valid stream", func() {
		text := "Your key is " + streamedKey + ", keep it safe."
		var b strings.Builder
		for rest := text; len(rest) > 0; {
			k := min(6, len(rest))
			fmt.Fprintf(&b, `{"model":"qwen3:14b","message":{"role":"assistant","content":%s},"done":false}`+"\n", jsonString(rest[:k]))
			rest = rest[k:]
		}
		b.WriteString(`{"model":"qwen3:14b","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","eval_count":30}` + "\n")
		body := b.String()
		Expect(body).NotTo(ContainSubstring(streamedKey[:12]))
		joined := func(body string) string {
			var out strings.Builder
			for _, e := range stream.Lines(body) {
				var c struct{ Message struct{ Content string } }
				Expect(json.Unmarshal(e.Data, &c)).To(Succeed())
				out.WriteString(c.Message.Content)
			}
			return out.String()
		}

		path, got, _ := recordOne(body, stream.LinesType, cassette.Options{}, greet)
		Expect(got).To(Equal(body), "the agent got the stream as it was")
		saved := readOnDisk(path).Interactions[0].Response.Body
		Expect(joined(saved)).To(Equal("Your key is " + cassette.Placeholder(streamedKey) + ", keep it safe."))
		Expect(stream.Lines(saved)).To(HaveLen(len(stream.Lines(body))), "no chunk added or dropped")
		Expect(saved).NotTo(ContainSubstring("data:"))

		By("the scan finding it reassembled in a cassette written by hand")
		dir := GinkgoT().TempDir()
		raw := "---\nversion: 1\ninteractions:\n    - request:\n        body: '{}'\n        url: http://localhost:11434/api/chat\n        method: POST\n      response:\n        body: |+\n" +
			indent(body, "            ") + "        headers:\n            Content-Type:\n                - " + stream.LinesType + "\n        status: 200 OK\n        code: 200\n        duration: 1s\n"
		Expect(os.WriteFile(filepath.Join(dir, "raw.yaml"), []byte(raw), 0o644)).To(Succeed())
		found, err := cassette.Scan(dir, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(found).To(HaveLen(1))
		Expect(found[0].What).To(ContainSubstring("streamed, reassembled"))
		found, err = cassette.Scan(filepath.Dir(path), nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(found).To(BeEmpty())
	})

	It("finds an AWS secret access key with no keyword beside its key id, and leaves a lone 40-character word alone", func() {
		dir := GinkgoT().TempDir()
		write := func(name, text string) {
			Expect(os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)).To(Succeed())
		}
		write("aws.yaml", "body: 'credentials "+awsID+" "+awsSecret+"'\n")
		write("plain.yaml", "body: 'a digest "+awsSecret+" and nothing else'\n")
		found, err := cassette.Scan(dir, nil)
		Expect(err).NotTo(HaveOccurred())
		var whats []string
		for _, f := range found {
			Expect(f.Path).To(HaveSuffix("aws.yaml"))
			whats = append(whats, f.What)
		}
		Expect(whats).To(ContainElement("AWS secret access key"))
	})

	DescribeTable("judges a JSON text held in a JSON body's string (a tool's result sent back) as that text, and keeps the body valid JSON",
		func(inner string, secrets ...string) {
			quoted, err := json.Marshal(inner)
			Expect(err).NotTo(HaveOccurred())
			body := `{"messages": [{"role": "tool", "content": ` + string(quoted) + `}]}`
			d, err := cassette.NewDetector(nil, nil, nil)
			Expect(err).NotTo(HaveOccurred())
			out := d.Body(http.Header{"Content-Type": {"application/json"}}, body)
			Expect(json.Valid([]byte(out))).To(BeTrue(), out)
			for _, s := range secrets {
				Expect(out).NotTo(ContainSubstring(s))
			}
			var back struct {
				Messages []struct{ Content string } `json:"messages"`
			}
			Expect(json.Unmarshal([]byte(out), &back)).To(Succeed())
			Expect(json.Valid([]byte(back.Messages[0].Content))).To(BeTrue(), "the text inside is still JSON: %s", back.Messages[0].Content)
		},
		Entry("an AWS key id beside its secret", `{"note": "creds: aws_access_key_id=`+awsID+` aws_secret_access_key=`+awsSecret+`"}`, awsID, awsSecret),
		Entry("a JWT, which gitleaks' rule lets take backslashes", `{"token": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.RAH_Ggl2JfaQqHu42bojteVs3qfNUfTAFnT0tEuw0dw", "x": 1}`,
			"RAH_Ggl2JfaQqHu42bojteVs3qfNUfTAFnT0tEuw0dw"),
	)

	It("replaces every occurrence of a secret on a line, not only the one a rule reported", func() {
		d, err := cassette.NewDetector(nil, nil, nil)
		Expect(err).NotTo(HaveOccurred())
		const pat = "ghp_" + "R7d2kq9Zx4VbN1mT8wYc3LpA6sHj0fUe5GiQ"
		for _, line := range []string{
			"a " + pat + " b " + pat,
			`regex: "` + awsID + `(" is not valid: ` + "`" + awsID + "(`",
		} {
			Expect(d.Text(line)).NotTo(Or(ContainSubstring(pat), ContainSubstring(awsID)), line)
		}
	})

	It("replaces a base64-wrapped key's whole run", func() {
		wrapped := base64.StdEncoding.EncodeToString([]byte("OPENAI_API_KEY=sk-proj-Q7vX2mB9kLp4RtY8wZ3nHc6JfD1sGe5AuK0iOqWx"))
		d, err := cassette.NewDetector(nil, nil, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Text("config: " + wrapped + " end")).To(Equal("config: " + cassette.Placeholder(wrapped) + " end"))
	})

	It("judges a short text it saw before as it did the first time, past the texts it remembers too", func() {
		d, err := cassette.NewDetector(nil, nil, []cassette.Rule{{Pattern: regexp.MustCompile(`acct-([0-9]{8})`)}})
		Expect(err).NotTo(HaveOccurred())
		for round := range 2 {
			for i := range 5000 {
				secret := fmt.Sprintf("%08d", i)
				text := fmt.Sprintf("https://api.example.com/v1/accounts/acct-%s/usage", secret)
				Expect(d.Text(text)).To(Equal("https://api.example.com/v1/accounts/acct-"+cassette.Placeholder(secret)+"/usage"), "round %d", round)
				plain := fmt.Sprintf("https://api.example.com/v1/usage?page=%d", i)
				Expect(d.Text(plain)).To(Equal(plain), "round %d", round)
			}
		}
	})

	It("gives one secret one placeholder in a cassette, and replays a request that sends it again", func() {
		req := `{"messages":[{"role":"user","content":"use ` + streamedKey + ` then ` + awsID + ` ` + awsSecret + `"}],"metadata":{"key":"` + streamedKey + `"}}`
		path, _, url := recordOne(`{"echo":"`+streamedKey+`"}`, "application/json", cassette.Options{}, req)
		data := string(mustReadFile(path))
		Expect(data).NotTo(ContainSubstring(streamedKey))
		Expect(data).NotTo(ContainSubstring(awsSecret))
		Expect(strings.Count(data, cassette.Placeholder(streamedKey))).To(Equal(3), "prompt, field and answer")

		rp, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{})
		Expect(err).NotTo(HaveOccurred())
		Expect(mustPost(rp, url, req)).To(Equal(`{"echo":"` + cassette.Placeholder(streamedKey) + `"}`))
	})

	It("applies a suite's rules: a pattern, a JSON pointer, a header and a query key, in the scan too", func() {
		d, err := cassette.NewDetector(nil, nil, []cassette.Rule{
			{Pattern: regexp.MustCompile(`acct-([0-9]{8})`)}, {Pointer: "/meta/*/tenant"}, {Header: "X-Tenant"}, {Query: "sig"},
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Text("for acct-12345678 only")).To(Equal("for acct-" + cassette.Placeholder("12345678") + " only"))
		Expect(d.Body(nil, `{"meta":[{"tenant":"northwind"}],"tenant":"kept"}`)).To(Equal(`{"meta":[{"tenant":"` + cassette.Placeholder("northwind") + `"}],"tenant":"kept"}`))
		Expect(d.URL("https://x.example/a?sig=Zx81kq0PmRw2&q=1")).To(Equal("https://x.example/a?q=1&sig=" + cassette.Placeholder("Zx81kq0PmRw2")))
		Expect(d.ResponseHeaders(http.Header{"X-Tenant": {"northwind"}, "X-Other": {"fine"}})).To(Equal(http.Header{"X-Tenant": {cassette.Redacted}, "X-Other": {"fine"}}))

		learned, err := d.Learned()
		Expect(err).NotTo(HaveOccurred())
		Expect(learned.Text("tool args: northwind-west")).To(Equal("tool args: "+cassette.Placeholder("northwind")+"-west"), "a value found by its pointer is redacted anywhere in reports")
		Expect(learned).NotTo(BeIdenticalTo(d))

		fresh, err := cassette.NewDetector(nil, nil, []cassette.Rule{{Pointer: "/meta/*/tenant"}})
		Expect(err).NotTo(HaveOccurred())
		same, err := fresh.Learned()
		Expect(err).NotTo(HaveOccurred())
		Expect(same).To(BeIdenticalTo(fresh), "a detector that learnt nothing is its own Learned, with what it judged")
		Expect(same.Text("tool args: northwind-west")).To(Equal("tool args: northwind-west"))

		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, "c.yaml"), []byte("body: 'acct-12345678'\n"), 0o644)).To(Succeed())
		found, err := d.Scan(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(found).To(HaveLen(1))
		Expect(found[0].What).To(Equal("redact: rule acct-([0-9]{8})"))
	})

	It("leaves out the response headers that name the provider's account, and keeps the others", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Openai-Organization", "org-Zq81kLmN0pQrStUv")
			w.Header().Set("Openai-Project", "proj_Ab12Cd34Ef56Gh78")
			w.Header().Set("Anthropic-Organization-Id", "5f1e9a2c-7b3d-4e8f-9a0b-1c2d3e4f5a6b")
			w.Header().Set("Openai-Processing-Ms", "412")
			io.WriteString(w, `{"ok": true}`)
		}))
		DeferCleanup(srv.Close)
		path := filepath.Join(GinkgoT().TempDir(), "c.yaml")
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport, Provenance: prov})
		Expect(err).NotTo(HaveOccurred())
		mustPost(tr, srv.URL+"/v1/chat/completions", greet)
		Expect(tr.Close()).To(Succeed())
		h := readOnDisk(path).Interactions[0].Response.Headers
		Expect(h).NotTo(HaveKey("Openai-Organization"))
		Expect(h).NotTo(HaveKey("Openai-Project"))
		Expect(h).NotTo(HaveKey("Anthropic-Organization-Id"))
		Expect(h).To(HaveKeyWithValue("Openai-Processing-Ms", []string{"412"}))
	})

	It("keeps the credentials of a base URL (a gateway's user:password, an api-key query) out of the provenance", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"ok": true}`)
		}))
		DeferCleanup(srv.Close)
		const password, key = "Pw0rd-gateway-8841", "V7vQx2LmZp9RtY4wKe6N"
		path := filepath.Join(GinkgoT().TempDir(), "c.yaml")
		d, err := cassette.NewDetector(nil, nil, nil)
		Expect(err).NotTo(HaveOccurred())
		p := prov
		p.StandIn, p.Endpoint = false, "https://admin:"+password+"@gateway.example/v1?api-key="+key
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport, Provenance: p, Detector: d})
		Expect(err).NotTo(HaveOccurred())
		mustPost(tr, srv.URL+"/v1/chat/completions", greet)
		Expect(tr.Close()).To(Succeed())
		text, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(text)).NotTo(ContainSubstring(password))
		Expect(string(text)).NotTo(ContainSubstring(key))
		Expect(string(text)).To(ContainSubstring("gateway.example/v1"))
		found, err := cassette.Scan(filepath.Dir(path), nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(found).To(BeEmpty())
	})

	It("learns a credential header's value in a replay as in a recording, a cookie's values too, so that reports replace them", func() {
		const apiKey, sid = "hdrvalue-Qm9vYmFy-77231", "sess-9f8e7d6c5b4a"
		path, _, url := recordOne(`{"ok": true}`, "application/json", cassette.Options{}, greet)
		d, err := cassette.NewDetector(nil, nil, nil)
		Expect(err).NotTo(HaveOccurred())
		tr, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{Detector: d})
		Expect(err).NotTo(HaveOccurred())
		mustPost(tr, url, greet, "X-Api-Key", apiKey, "Cookie", "sid="+sid+"; theme=dark")
		Expect(tr.Close()).To(Succeed())
		learned, err := d.Learned()
		Expect(err).NotTo(HaveOccurred())
		Expect(learned.Text("the tool got " + apiKey + " and " + sid)).To(Equal("the tool got " + cassette.Placeholder(apiKey) + " and " + cassette.Placeholder(sid)))
		Expect(learned.Text("theme=dark")).To(Equal("theme=dark"), "values under 8 bytes are no secret")
	})

	It("redacts every string of a report-like value in place", func() {
		type call struct {
			Sent string
			Args json.RawMessage
			Tags map[string]any
		}
		v := struct {
			Calls []*call
			Note  string
		}{Calls: []*call{{Sent: "key " + streamedKey, Args: json.RawMessage(`{"k":"` + streamedKey + `"}`), Tags: map[string]any{"a": streamedKey, "b": []any{streamedKey}}}}, Note: "fine"}
		d, err := cassette.NewDetector(nil, nil, nil)
		Expect(err).NotTo(HaveOccurred())
		d.Strings(&v)
		out, err := json.Marshal(v)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(out)).NotTo(ContainSubstring(streamedKey))
		Expect(strings.Count(string(out), cassette.Placeholder(streamedKey))).To(Equal(4))
	})

	It("redacts what an interface holds by value: raw JSON, bytes, a struct, a string, nested in maps and lists", func() {
		type pair struct{ A, B string }
		v := struct {
			Values []any
			ByKey  map[string]any
		}{
			Values: []any{json.RawMessage(`{"k":"` + streamedKey + `"}`), []byte("bytes " + streamedKey), pair{A: streamedKey}, "text " + streamedKey},
			ByKey:  map[string]any{"raw": json.RawMessage(`"` + streamedKey + `"`), "deep": map[string]any{"list": []any{json.RawMessage(`["` + streamedKey + `"]`)}}},
		}
		d, err := cassette.NewDetector(nil, nil, nil)
		Expect(err).NotTo(HaveOccurred())
		d.Strings(&v)
		Expect(fmt.Sprintf("%s %s %v %v", v.Values[0], v.Values[1], v.Values[2], v.Values[3])).NotTo(ContainSubstring(streamedKey))
		out, err := json.Marshal(v)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(out)).NotTo(ContainSubstring(streamedKey))
		Expect(v.Values[0]).To(BeAssignableToTypeOf(json.RawMessage{}), "the types are kept")
		Expect(v.Values[2]).To(BeAssignableToTypeOf(pair{}))
	})

	It("redacts a key behind an escape in the raw JSON or the JSON text a report holds (an outside agent's note of lines)", func() {
		v := []any{json.RawMessage(`{"note":"key:\n` + streamedKey + `"}`), json.RawMessage(`"key:\t` + streamedKey + `"`), `{"out":"key:\n` + streamedKey + `"}`}
		d, err := cassette.NewDetector(nil, nil, nil)
		Expect(err).NotTo(HaveOccurred())
		d.Strings(&v)
		out, err := json.Marshal(v)
		Expect(err).NotTo(HaveOccurred(), "the raw JSON is still JSON")
		Expect(string(out)).NotTo(ContainSubstring(streamedKey[20:]))
		Expect(json.Valid([]byte(v[2].(string)))).To(BeTrue())
	})

	It("does not write a recording whose cassette still scans dirty: a gzip body it cannot redact", func() {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		io.WriteString(zw, `{"old_key":"`+streamedKey+`"}`)
		zw.Close()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gz.Bytes())
		}))
		DeferCleanup(srv.Close)
		path := filepath.Join(GinkgoT().TempDir(), "c.yaml")
		Expect(os.WriteFile(path, []byte("previous"), 0o644)).To(Succeed())
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport, Provenance: prov})
		Expect(err).NotTo(HaveOccurred())
		mustPost(tr, srv.URL+"/v1/archive", greet, "Accept-Encoding", "gzip")
		err = tr.Close()
		var leak *cassette.LeakError
		Expect(errors.As(err, &leak)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(HavePrefix(cassette.LeakCause))
		Expect(leak.Findings).NotTo(BeEmpty())
		Expect(leak.Findings[0].String()).To(MatchRegexp(`c\.yaml:\d+: Anthropic key \(binary body, decoded\) sk-ant-…Q1eZ`))
		Expect(err.Error()).NotTo(ContainSubstring(streamedKey))
		Expect(string(mustReadFile(path))).To(Equal("previous"), "the previous cassette is kept")
	})
})

func indent(s, pad string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l == "" {
			continue
		}
		if l == "\n" {
			b.WriteString("\n")
			continue
		}
		b.WriteString(pad + l)
	}
	return b.String()
}
