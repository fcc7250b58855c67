package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// planted are the secrets the leaky agent (testdata/leaky) sends, by kind:
// generated in the formats of their issuers, so that nothing but testbed's
// detector stands between them and every file testbed writes.
func planted() map[string]string {
	r := rand.New(rand.NewPCG(26, 1))
	from := func(alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	pem := "-----BEGIN RSA PRIVATE KEY-----\n" + from(alnum, 64) + "\n" + from(alnum, 64) + "\n" + from(alnum, 40) + "==\n-----END RSA PRIVATE KEY-----"
	return map[string]string{
		"openai":         "sk-proj-" + from(alnum, 48),
		"anthropic":      "sk-ant-api03-" + from(alnum, 60),
		"google":         "AIza" + from(alnum, 35),
		"aws_id":         "AKIA" + from("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16),
		"aws_secret":     from(alnum, 20) + "/" + from(alnum, 19),
		"github_pat":     "github_pat_" + from(alnum+"_", 82),
		"ghp":            "ghp_" + from(alnum, 36),
		"slack":          "xoxb-" + from("0123456789", 13) + "-" + from("0123456789", 13) + "-" + from(alnum, 24),
		"jwt":            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUgRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ." + from(alnum, 43),
		"pem":            pem,
		"stripe":         "sk_live_" + from(alnum, 24),
		"base64":         base64.StdEncoding.EncodeToString([]byte("OPENAI_API_KEY=sk-proj-" + from(alnum, 48))),
		"bearer":         "tok" + from(alnum, 29),
		"url_credential": "postgres://admin:" + from(alnum, 18) + "@db.internal:5432/app",
		"query_param":    "qk" + from(alnum, 22),
		"sig":            "sg" + from(alnum, 30),
		"pointer":        "northwind-" + from(alnum, 16),
		"account":        "acct-" + from("0123456789", 8),
		"env":            "tenant-" + from("0123456789abcdef", 20),
	}
}

// needles are what must not appear of a planted secret: the secret, and
// for those with a part that alone is the secret, that part (a URL's
// password, a PEM key's body, a bearer token without its scheme).
func needles(kind, v string) []string {
	switch kind {
	case "url_credential":
		pw := strings.TrimPrefix(v, "postgres://admin:")
		return []string{pw[:strings.Index(pw, "@")]}
	case "pem":
		return []string{strings.Split(v, "\n")[1], strings.Split(v, "\n")[2]}
	}
	return []string{v}
}

// leakyProject writes a project whose suite runs the leaky agent (built
// from testdata/leaky) with the planted secrets, its vault upstream's
// fixtures and a suite with env: and redact: rules; it returns the root.
func leakyProject(secrets map[string]string) string {
	GinkgoHelper()
	root := GinkgoT().TempDir()
	bin := filepath.Join(root, "bin", "leaky")
	out, err := exec.Command("go", "build", "-o", bin, "./testdata/leaky").CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), string(out))
	data, err := json.Marshal(secrets)
	Expect(err).NotTo(HaveOccurred())
	write := func(rel, text string) {
		GinkgoHelper()
		Expect(os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(root, rel), []byte(text), 0o644)).To(Succeed())
	}
	write("secrets.json", string(data))
	write("fixtures/leaky/routes.yaml", `routes:
  - {method: POST, path: /v1/lookup, file: lookup.json, latency: 40ms}
  - {path: /v1/archive, file: archive.json.gz, headers: {Content-Type: application/json, Content-Encoding: gzip}}
`)
	write("fixtures/leaky/lookup.json", fmt.Sprintf(`{"status": "ok", "session": {"refresh_token": %q}, "note": "rotated to %s"}`+"\n", secrets["slack"], secrets["ghp"]))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	fmt.Fprintf(zw, `{"archived": "the old key was %s"}`, secrets["openai"])
	Expect(zw.Close()).To(Succeed())
	write("fixtures/leaky/archive.json.gz", gz.String())
	write("scenarios/leaky.yaml", fmt.Sprintf(`suite: leaky
agent:
  name: leaky
  command: [%s, %s]
  env: {TENANT_SECRET: %q}
  model: {provider: openai, base_url: "https://api.openai.com/v1", model: gpt-4.1-mini}
  upstreams:
    vault: {base_url: "https://vault.example.com"}
clock: 2026-03-02T08:00:00Z
baseline: default
redact:
  - regex: 'acct-[0-9]{8}'
  - pointer: /metadata/tenant
  - query: sig
  - header: X-Tenant-Token
variants:
  default: {description: the agent as written}
scenarios:
  - id: keys
    input: "status of the vault"
    expect:
      answer: {contains: "You said"}
`, bin, filepath.Join(root, "secrets.json"), secrets["env"]))
	return root
}

// leaks returns, for every file under dir, the planted secrets it holds
// (as written, HTML-unescaped or JSON-unescaped), as "file: kind".
func leaks(dir string, secrets map[string]string) []string {
	GinkgoHelper()
	var out []string
	Expect(filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out = append(out, leaksIn(path, string(data), secrets)...)
		return nil
	})).To(Succeed())
	return out
}

// leaksIn is leaks for one text, named name.
func leaksIn(name, text string, secrets map[string]string) []string {
	views := []string{text, html.UnescapeString(text), strings.ReplaceAll(text, `\/`, "/")}
	var out []string
	for kind, v := range secrets {
		for _, n := range needles(kind, v) {
			for _, view := range views {
				if strings.Contains(view, n) {
					out = append(out, name+": "+kind)
					break
				}
			}
		}
	}
	return out
}

var _ = Describe("one redaction funnel", Label("redact"), func() {
	It("keeps 19 kinds of secrets an outside agent sends and receives out of every file and output testbed writes", func() {
		secrets := planted()
		root := leakyProject(secrets)
		rec := testbed("record", "--root", root, "--suite", "leaky")
		Expect(rec.code).To(Equal(0), rec.String())
		// The agent did send them (a spec that cannot fail is worse than none).
		stream := mustRead(filepath.Join(root, "cassettes", "leaky", "default", "keys.yaml"))
		Expect(stream).To(ContainSubstring("text/event-stream"))
		Expect(stream).To(MatchRegexp(`REDACTED-[0-9a-f]{8}`))

		out := filepath.Join(root, "out")
		runs := []result{rec,
			testbed("run", "--root", root, "--suite", "leaky", "--prompts", "--json", "--baseline", "", "--quiet",
				"--junit", filepath.Join(out, "junit.xml"), "--otlp-file", filepath.Join(out, "traces.jsonl"), "--otlp-content"),
			testbed("report", "--html", filepath.Join(out, "page.html"), filepath.Join(root, "reports", "latest.json")),
			testbed("show", "leaky/default/keys", "--root", root, "--prompt", "--all"),
			testbed("show", "leaky/default/keys", "--root", root, "--json"),
			testbed("cassettes", "check", "--root", root),
		}
		for _, r := range runs {
			Expect(r.code).To(Equal(0), r.String())
		}
		Expect(runs[1].stdout).To(ContainSubstring(`"prompt"`), "--prompts kept what the model was sent")
		var found []string
		for i, r := range runs {
			found = append(found, leaksIn(fmt.Sprintf("command %d stdout", i), r.stdout, secrets)...)
			found = append(found, leaksIn(fmt.Sprintf("command %d stderr", i), r.stderr, secrets)...)
		}
		for _, dir := range []string{"cassettes", "reports", "out"} {
			found = append(found, leaks(filepath.Join(root, dir), secrets)...)
		}
		Expect(found).To(BeEmpty())
		Expect(runs[3].stdout).To(ContainSubstring("redacted besides the maintained rules: regex: acct-[0-9]{8}; pointer: /metadata/tenant; query: sig; header: X-Tenant-Token"))
	})

	It("redacts the grader's cassettes with the suite's env: values and redact: rules, as the agent's", func() {
		root := GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(root, "scenarios"), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(root, "agent.sh"), []byte(`while read -r line; do
  printf '{"text": "Oslo is fine. tenant=%s account acct-48151623"}\n' "$TENANT_TOKEN"
done
`), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(root, "scenarios", "j.yaml"), []byte(`suite: j
judge: {provider: openai, model: gpt-4.1-mini}
agent:
  name: teller
  command: [sh, agent.sh]
  env: {TENANT_TOKEN: "tenant-PGzR1Iv8bh4qlL9qcgMBwUYu"}
  model: {provider: openai, base_url: "https://api.openai.com/v1", model: gpt-4.1-mini}
clock: 2026-03-02T08:00:00Z
baseline: default
redact:
  - regex: 'acct-[0-9]{8}'
variants:
  default:
scenarios:
  - id: one
    input: "How is Oslo?"
    expect:
      answer: {contains: "Oslo"}
      rubric: "It answers about Oslo"
`), 0o644)).To(Succeed())
		r := testbed("record", "--root", root)
		Expect(r.code).To(Or(Equal(exitOK), Equal(exitFailed)), r.String())
		files := yamlFiles(filepath.Join(root, "cassettes"))
		Expect(files).To(HaveKey(filepath.Join("j", "default", "one.judge.yaml")), r.String())
		for name, data := range files {
			Expect(string(data)).NotTo(ContainSubstring("PGzR1Iv8bh4qlL9qcgMBwUYu"), name)
			Expect(string(data)).NotTo(ContainSubstring("acct-48151623"), name)
		}
		check := testbed("cassettes", "check", "--root", root)
		Expect(check.code).To(Equal(exitOK), check.String())
	})

	It("writes an env: value the suite says is no secret as it is, and still redacts the others", func() {
		root := GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(root, "scenarios"), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(root, "agent.sh"), []byte(`while read -r line; do
  printf '{"text": "Oslo is fine, says %s. tenant=%s"}\n' "$ANSWER_MODEL" "$TENANT_TOKEN"
done
`), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(root, "scenarios", "p.yaml"), []byte(`suite: p
agent:
  name: teller
  command: [sh, agent.sh]
  env: {TENANT_TOKEN: "tenant-PGzR1Iv8bh4qlL9qcgMBwUYu", ANSWER_MODEL: "gpt-4.1-mini-2025-04-14"}
  not_secret: [ANSWER_MODEL]
  model: {provider: openai, base_url: "https://api.openai.com/v1", model: gpt-4.1-mini}
clock: 2026-03-02T08:00:00Z
baseline: default
variants:
  default:
scenarios:
  - id: one
    input: "How is Oslo?"
    expect:
      answer: {contains: "gpt-4.1-mini-2025-04-14"}
`), 0o644)).To(Succeed())
		r := testbed("record", "--root", root)
		Expect(r.code).To(Equal(exitOK), r.String())
		r = testbed("run", "--root", root, "--no-baseline")
		Expect(r.code).To(Equal(exitOK), r.String())
		report, err := os.ReadFile(filepath.Join(root, "reports", "latest.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(report)).To(ContainSubstring("says gpt-4.1-mini-2025-04-14."), "not_secret: written as it is")
		Expect(string(report)).NotTo(ContainSubstring("PGzR1Iv8bh4qlL9qcgMBwUYu"), "the other env: value is still a secret")
	})

	It("keeps a key out of an error that quotes a suite file's value", func() {
		secrets := planted()
		root := GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(root, "scenarios"), 0o755)).To(Succeed())
		key := secrets["anthropic"]
		Expect(key).To(HavePrefix("sk-ant-"))
		Expect(os.WriteFile(filepath.Join(root, "scenarios", "s.yaml"), []byte("suite: s\nclock: \""+key+"\"\n"), 0o644)).To(Succeed())
		r := testbed("lint", "--root", root)
		Expect(r.code).To(Equal(exitUsage), r.String())
		Expect(r.stderr).To(MatchRegexp(`s\.yaml:2: clock: "REDACTED-[0-9a-f]+" is not an RFC 3339 time`))
		Expect(leaksIn("stderr", r.stderr, secrets)).To(BeEmpty())
	})

	It("fails a recording whose cassette still scans dirty, naming file and line, and writes nothing", func() {
		secrets := planted()
		root := leakyProject(secrets)
		replace(filepath.Join(root, "scenarios", "leaky.yaml"), `input: "status of the vault"`, `input: "archive of the vault"`, 1)
		r := testbed("record", "--root", root, "--suite", "leaky")
		Expect(r.code).To(Equal(exitLeak), r.String())
		Expect(r.stderr).To(MatchRegexp(`the secret scan found secrets that redaction left in cassette \S+keys\.yaml; nothing was written`))
		Expect(r.stderr).To(MatchRegexp(`keys\.yaml:\d+: [^\n]*\(binary body, decoded\)`))
		Expect(r.stderr).To(ContainSubstring("Accept-Encoding: identity"))
		Expect(filepath.Join(root, "cassettes", "leaky", "default", "keys.yaml")).NotTo(BeAnExistingFile())
		Expect(leaksIn("stderr", r.stderr, secrets)).To(BeEmpty())
		Expect(regexp.MustCompile(`sk-proj-…\w{4}`).MatchString(r.stderr)).To(BeTrue(), "the finding is masked")
	})

	It("keeps the grader's previous cassette when the secret scan refuses the agent's, so the scenario writes neither", func() {
		secrets := planted()
		root := leakyProject(secrets)
		suite := filepath.Join(root, "scenarios", "leaky.yaml")
		replace(suite, `input: "status of the vault"`, `input: "archive of the vault"`, 1)
		replace(suite, "baseline: default\n", "baseline: default\njudge: {provider: openai, model: gpt-4.1-mini}\n", 1)
		replace(suite, `answer: {contains: "You said"}`, `answer: {contains: "You said"}
      rubric: "It answers about the vault"`, 1)
		grades := filepath.Join(root, "cassettes", "leaky", "default", "keys.judge.yaml")
		Expect(os.MkdirAll(filepath.Dir(grades), 0o755)).To(Succeed())
		Expect(os.WriteFile(grades, []byte("# the grades before\n"), 0o644)).To(Succeed())
		r := testbed("record", "--root", root, "--suite", "leaky")
		Expect(r.code).To(Equal(exitLeak), r.String())
		Expect(r.stderr).To(MatchRegexp(`the secret scan found secrets that redaction left in cassette \S+keys\.yaml; nothing was written`))
		Expect(mustRead(grades)).To(Equal("# the grades before\n"), "the grader's cassette is the one it had")
		Expect(filepath.Join(root, "cassettes", "leaky", "default", "keys.yaml")).NotTo(BeAnExistingFile())
	})
})
