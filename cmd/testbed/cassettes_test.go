package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"

	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/runner"
)

var _ = Describe("testbed cassettes check", func() {
	var root, dir string

	BeforeEach(func() {
		root = project()
		dir = filepath.Join(root, "cassettes")
		// Keys in the developer's environment are looked for too; keep the
		// specs independent of them.
		for _, v := range runner.KeyVariables(all.Registry()) {
			GinkgoT().Setenv(v, "")
		}
	})

	It("finds no secret in the committed cassettes", func() {
		r := testbed("cassettes", "check", "--dir", dir)
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(MatchRegexp(`^formats: \d+ go-vcr v2 \(format version 1\)\nno secrets found in ` + regexp.QuoteMeta(dir) + "\n$"))
	})

	It("says which format each cassette is in: go-vcr v4's, written by go-vcr v4 itself, and one it cannot read", func() {
		before := testbed("cassettes", "check", "--dir", dir)
		Expect(before.code).To(Equal(exitOK), before.String())
		n, err := strconv.Atoi(regexp.MustCompile(`formats: (\d+) go-vcr v2`).FindStringSubmatch(before.stdout)[1])
		Expect(err).NotTo(HaveOccurred())

		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, `{"ok":true}`) }))
		DeferCleanup(srv.Close)
		name := filepath.Join(dir, "go-team", "weather")
		rec, err := recorder.New(name, recorder.WithMode(recorder.ModeRecordOnly))
		Expect(err).NotTo(HaveOccurred())
		resp, err := rec.GetDefaultClient().Get(srv.URL + "/v1/weather?city=Nairobi")
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Body.Close()).To(Succeed())
		Expect(rec.Stop()).To(Succeed())
		newer := filepath.Join(dir, "go-team", "newer.yaml")
		Expect(os.WriteFile(newer, []byte("---\nversion: 3\ninteractions: []\n"), 0o644)).To(Succeed())

		r := testbed("cassettes", "check", "--dir", dir)
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(Equal(fmt.Sprintf("unsupported cassette format: %s: format version 3; this testbed reads format versions 1 (go-vcr v2's, as testbed record writes it) and 2 (go-vcr v4's): a newer testbed or another tool wrote this file\n", newer) +
			fmt.Sprintf("%s: go-vcr v4 (format version 2)\n", name+".yaml") +
			fmt.Sprintf("formats: %d go-vcr v2 (format version 1), 1 go-vcr v4 (format version 2), 1 unreadable\n", n) +
			"no secrets found in " + dir + "\n"))
	})

	It("prints [] with --json when it finds nothing", func() {
		r := testbed("cassettes", "check", "--dir", dir, "--json")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(MatchJSON("[]"))
	})

	It("exits 1 on a bearer token, with file:line and the secret masked", func() {
		path := cassettePath(root, "legacy", "ac3-what-is-ghrsst")
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		text := string(data)
		// The first Authorization header's value is on the line after it.
		line := lineOf(text, "Authorization:", 1) + 1
		Expect(strings.Split(text, "\n")[line-1]).To(HaveSuffix("- REDACTED"))
		replace(path, "Authorization:\n                - REDACTED", "Authorization:\n                - Bearer sk-abcdefghijklmnopqrstuvwx", -1)

		r := testbed("cassettes", "check", "--dir", dir)

		Expect(r.code).To(Equal(exitFailed), r.String())
		Expect(r.stdout).To(HavePrefix(fmt.Sprintf("%s:%d: OpenAI-style key sk-…uvwx: %s\n", path, line, fixKey)))
		Expect(r.stdout + r.stderr).NotTo(ContainSubstring("sk-abcdefghijklmnopqrstuvwx"))
		Expect(r.stderr).To(Equal("testbed: 1 possible secrets in " + dir + "; remove them and re-record with redaction\n"))

		By("listing the same findings with --json")
		j := testbed("cassettes", "check", "--dir", dir, "--json")
		Expect(j.code).To(Equal(exitFailed), j.String())
		var found []cassette.Finding
		Expect(json.Unmarshal([]byte(j.stdout), &found)).To(Succeed())
		Expect(found).To(ConsistOf(cassette.Finding{Path: path, Line: line, What: "OpenAI-style key", Text: "sk-…uvwx", Fix: fixKey}))
	})

	// Each entry plants one secret in a copy of a committed cassette, at one
	// of four places: the first Authorization header's value, the first
	// request body, the first URL or the first response body.
	DescribeTable("finds every kind of secret, names file and line, masks it and says what to do",
		func(where, plant string, env map[string]string, want string) {
			path := cassettePath(root, "legacy", "ac3-what-is-ghrsst")
			switch where {
			case "header":
				replace(path, "Authorization:\n                - REDACTED", "Authorization:\n                - "+plant, -1)
			case "request body":
				replace(path, `"model":"gemma3:4b",`, `"model":"gemma3:4b",`+plant+`,`, -1)
			case "URL":
				replace(path, "url: http://localhost:11434/v1/chat/completions\n", "url: http://localhost:11434/v1/chat/completions"+plant+"\n", -1)
			case "host":
				replace(path, "url: http://localhost:11434/", "url: http://"+plant+"@localhost:11434/", -1)
			case "response body":
				replace(path, `"system_fingerprint":"fp_standin"`, `"system_fingerprint":"`+plant+`"`, -1)
			}
			line := lineOf(mustRead(path), plant, 1)
			for k, v := range env {
				GinkgoT().Setenv(k, v)
			}

			r := testbed("cassettes", "check", "--dir", dir)

			Expect(r.code).To(Equal(exitFailed), r.String())
			Expect(r.stdout).To(HavePrefix(fmt.Sprintf("%s:%d: %s\n", path, line, want)))
			Expect(r.stderr).To(ContainSubstring("1 possible secrets in " + dir))
		},
		Entry("an OpenAI key in an Authorization header", "header", "Bearer sk-abcdefghijklmnopqrstuvwx", nil,
			"OpenAI-style key sk-…uvwx: "+fixKey),
		Entry("an OpenAI project key in a response body", "response body", "sk-proj-AbCdEf0123456789GhIjKl", nil,
			"OpenAI-style key sk-proj-…IjKl: "+fixKey),
		Entry("an Anthropic key in a request body", "request body", `"note":"sk-ant-api03-0123456789abcdefWXYZ"`, nil,
			"Anthropic key sk-ant-…WXYZ: "+fixKey),
		Entry("a Google key in a URL", "URL", "?key=AIzaSyB0123456789abcdefghijklmnopqrstu", nil,
			"Google API key AIza…rstu: "+fixKey),
		Entry("a bearer token in a header", "header", "Bearer abcdefghijklmnopqrstuvwxyz012345", nil,
			"bearer token Bearer …2345: "+fixRedacted),
		Entry("a bearer token in a body", "request body", `"user":"Bearer abcdefghijklmnopqrstuvwxyz012345"`, nil,
			"bearer token Bearer …2345: "+fixRedacted),
		Entry("a header that should have been redacted", "header", "Basic dXNlcjpwYXNzd29yZA==", nil,
			"unredacted Authorization header …ZA==: "+fixRedacted),
		Entry("a key= parameter in a URL", "URL", "?alt=json&key=ABCDEF1234567890", nil,
			"key query parameter key=…7890: "+fixRedacted),
		Entry("an access_token= parameter in a body", "response body", "https://example.test/cb?access_token=zyxw9876543210abcd", nil,
			"key query parameter access_token=…abcd: "+fixRedacted),
		Entry("credentials in a URL", "host", "admin:s3cretpass", nil,
			"credentials in a URL //admin:…@: "+fixRedacted),
		Entry("an api_key field in a JSON body", "request body", `"api_key":"abcdef0123456789xyz"`, nil,
			`key in JSON "api_key": …9xyz: `+fixRedacted),
		Entry("an apiKey field in a JSON body", "request body", `"apiKey":"Zz0123456789abcdefQQ"`, nil,
			`key in JSON "apiKey": …efQQ: `+fixRedacted),
		Entry("a password field in a JSON body", "request body", `"password":"hunter2hunter2"`, nil,
			`key in JSON "password": …: `+fixRedacted),
		Entry("a client_secret field in a JSON body", "request body", `"client_secret":"cs-9f8e7d6c5b4a3210"`, nil,
			`key in JSON "client_secret": …3210: `+fixRedacted),
		Entry("a token field holding a key", "request body", `"token":"tk0123456789abcdefgh"`, nil,
			`key in JSON "token": …efgh: `+fixRedacted),
		Entry("the value of OPENAI_API_KEY", "response body", "planted-value-0123456789", map[string]string{"OPENAI_API_KEY": "planted-value-0123456789"},
			"value of a key variable …6789: "+fixEnv),
		Entry("the value of GOOGLE_API_KEY, the kura agent's own key", "response body", "maps-key-value-ABCDEFGH", map[string]string{"GOOGLE_API_KEY": "maps-key-value-ABCDEFGH"},
			"value of a key variable …EFGH: "+fixEnv),
	)

	DescribeTable("does not take for a secret",
		func(plant string, env map[string]string) {
			path := cassettePath(root, "legacy", "ac3-what-is-ghrsst")
			replace(path, `"model":"gemma3:4b",`, `"model":"gemma3:4b",`+plant+`,`, -1)
			for k, v := range env {
				GinkgoT().Setenv(k, v)
			}
			r := testbed("cassettes", "check", "--dir", dir)
			Expect(r.code).To(Equal(exitOK), r.String())
		},
		Entry("the redaction marker", `"api_key":"REDACTED","u":"https://x.test/?key=REDACTED","a":"Bearer REDACTED"`, nil),
		Entry("the placeholder key", `"api_key":"testbed-placeholder-key","a":"Bearer testbed-placeholder-key"`, map[string]string{"OPENAI_API_KEY": "testbed-placeholder-key"}),
		Entry("a token count", `"max_tokens":64,"prompt_tokens":95`, nil),
		Entry("a short word in a generic field", `"key":"country","token":"next-page"`, nil),
		Entry("sk- inside a word", `"task":"task-0123456789abcdefghijk"`, nil),
		Entry("a key variable shorter than 8 bytes", `"note":"short"`, map[string]string{"OPENAI_API_KEY": "short"}),
	)

	It("finds the value of a key variable set in the environment", func() {
		const value = "planted-value-0123456789"
		path := cassettePath(root, "single-pass", "ac6-land-point")
		replace(path, `"system_fingerprint":"fp_standin"`, `"system_fingerprint":"`+value+`"`, -1)
		line := lineOf(mustRead(path), value, 1)

		By("not recognising the value by its shape")
		Expect(testbed("cassettes", "check", "--dir", dir).code).To(Equal(exitOK))

		By("finding it once OPENAI_API_KEY holds it")
		GinkgoT().Setenv("OPENAI_API_KEY", value)
		r := testbed("cassettes", "check", "--dir", dir)
		Expect(r.code).To(Equal(exitFailed), r.String())
		Expect(r.stdout).To(ContainSubstring(fmt.Sprintf("%s:%d: value of a key variable …6789", path, line)))
		Expect(r.stdout).NotTo(ContainSubstring(value))
	})

	// A scan of no cassette is no all-clear: each entry makes --dir name
	// somewhere with none and says why the check finds none.
	DescribeTable("exits 3 when it finds no cassette to check, saying where it looked and how to record some",
		func(place func() string, why string) {
			where := place()
			for _, args := range [][]string{{}, {"--json"}} {
				r := testbed(append([]string{"cassettes", "check", "--dir", where}, args...)...)
				Expect(r.code).To(Equal(exitStale), r.String())
				Expect(r.stdout).NotTo(ContainSubstring("no secrets found"))
				Expect(r.stderr).To(Equal("testbed: found no cassette to check in " + where + " (" + where + "): " + why +
					", so no scan could find a secret; record some with: testbed record, or name the folder that holds them with --dir\n"))
			}
		},
		Entry("an empty folder", func() string { return GinkgoT().TempDir() }, "it holds no cassette (.yaml)"),
		Entry("a folder of other files", func() string {
			d := GinkgoT().TempDir()
			Expect(os.WriteFile(filepath.Join(d, "README.md"), []byte("cassettes go here\n"), 0o644)).To(Succeed())
			return d
		}, "it holds no cassette (.yaml)"),
		Entry("a folder whose only .yaml file is no cassette", func() string {
			d := GinkgoT().TempDir()
			Expect(os.WriteFile(filepath.Join(d, "notes.yaml"), []byte("todo: record\n"), 0o644)).To(Succeed())
			return d
		}, "none of its 1 .yaml files is a cassette testbed reads"),
		Entry("a file that is no cassette", func() string {
			path := filepath.Join(GinkgoT().TempDir(), "README.md")
			Expect(os.WriteFile(path, []byte("cassettes go here\n"), 0o644)).To(Succeed())
			return path
		}, "it is a file, not a cassette (.yaml) nor a folder of them"),
		Entry("a folder that does not exist", func() string { return filepath.Join(root, "no-such-folder") }, "it does not exist"),
	)

	It("scans one cassette named by --dir", func() {
		r := testbed("cassettes", "check", "--dir", cassettePath(root, "legacy", "ac3-what-is-ghrsst"))
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(HaveSuffix("no secrets found in " + cassettePath(root, "legacy", "ac3-what-is-ghrsst") + "\n"))
	})
})

// What testbed cassettes check tells the user to do, by kind of finding.
const (
	fixKey      = "revoke this key at its provider, then re-record the cassette (recording redacts it) or replace it with REDACTED"
	fixRedacted = "re-record the cassette (recording replaces it with REDACTED) or replace the value with REDACTED; revoke it if it is real"
	fixEnv      = "this is the value of a key variable in your environment: revoke it, then re-record the cassette or replace it with REDACTED"
)

func mustRead(path string) string {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	return string(data)
}
