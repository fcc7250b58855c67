package cassette_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	. "github.com/onsi/gomega/gstruct"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/codings/codingstest"
	"github.com/agentreplay/testbed/harness/files"
)

// j joins its parts: the fake secrets below are assembled at run time so
// that the repository itself holds nothing a secret scanner flags.
func j(parts ...string) string { return strings.Join(parts, "") }

// compressed is s encoded with coding as a server sends a body with that
// Content-Encoding, in base64 as a cassette keeps it.
func compressed(coding, s string) string {
	b, err := codingstest.Encode(coding, []byte(s))
	if err != nil {
		panic(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func unicodeEscaped(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteString(`\u00`)
		b.WriteString(strings.ToLower(string("0123456789ABCDEF"[r>>4]) + string("0123456789ABCDEF"[r&15])))
	}
	return b.String()
}

var (
	ghToken    = j("gh", "p_", "Zq8tR2mVx7LpK4nW9sJd3FhY6cBe1AuG0oTi")
	slackToken = j("xo", "xb-", "2837461920-3948571029384-", "qR7tYu2IoP9aS4dF6gH1jK3l")
	awsKey     = j("AK", "IA", "QX7RZT4MWN2PLK5V")
	stripeKey  = j("sk", "_live_", "51HqT7sKb2N9xVwQ4mLr8PzYc3Jd")
	hfToken    = j("hf", "_", "QwErTyUiOpAsDfGhJkLzXcVbNmQwErTyUi")
	googleOA   = j("ya", "29.", "a0AfH6SMBx7Qk2Lm9Np4Rs8Tv1Wx3Yz5Bc7De9Fg")
	jwt        = j("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", ".", "eyJzdWIiOiI4NzY1NDMyMSIsIm5hbWUiOiJBZGEgTG92ZWxhY2UiLCJpYXQiOjE3MDAwMDAwMDB9", ".", "Xk3P9qL2vR7tW1yZ5bN8mC4dF6hJ0sA2gE9uI3oK7pQ")
	pemKey     = j("-----BEGIN ", "RSA PRIVATE KEY-----\\n", "MIIEowIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2dZ7uDkXdZ8mK6YlQ4Tq9b1sN3wE\\n",
		"h5Jk7LmP2qR8sT4uV6wX0yZ1aB3cD5eF7gH9iJ1kL3mN5oP7qR9sT1uV3wX5yZ7a\\n", "B9cD1eF3gH5iJ7kL9mN1oP3qR5sT7uV9wX1yZ3aB5cD7eF9gH1iJ3kL5mN7oP9q\\n",
		"-----END ", "RSA PRIVATE KEY-----")
	cookieVal = j("session", "id=", "8f2a9c4e7b1d6f3a0e5c8b2d9f4a7e1c")
	openAIKey = j("sk", "-proj-", "Tq4Vn8Rz2Lx6Wp0Ys3Kd7Hf1Jb5Mc9Ga")
)

var _ = Describe("Scan's rule set", func() {
	var dir string

	BeforeEach(func() { dir = GinkgoT().TempDir() })

	write := func(name string, lines ...string) string {
		GinkgoHelper()
		path := filepath.Join(dir, name)
		Expect(os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)).To(Succeed())
		return path
	}

	// Each planted secret is alone on its line of a cassette-shaped file;
	// the spec fails if any one of them is missed, or found on another line.
	DescribeTable("finds every kind of secret on its line",
		func(line string, want string) {
			path := write("ac1.yaml", "---", "version: 1", "interactions:", "    - request:", line, "      response: {}")
			found, err := cassette.Scan(dir, nil, "HA_TOKEN")
			Expect(err).NotTo(HaveOccurred())
			Expect(found).To(HaveLen(1), "%v", found)
			Expect(found[0].Path).To(Equal(path))
			Expect(found[0].Line).To(Equal(5))
			Expect(found[0].What).To(ContainSubstring(want))
			Expect(found[0].String()).NotTo(ContainSubstring(line[len(line)-12:]))
		},
		Entry("a JWT", `        body: '{"id_token_hint":"`+jwt+`"}'`, "jwt"),
		Entry("an AWS access key", `        body: 'aws_access_key_id=`+awsKey+`'`, "aws"),
		Entry("a GitHub token", `        body: '{"note":"`+ghToken+`"}'`, "github"),
		Entry("a Slack bot token", `        body: '{"note":"`+slackToken+`"}'`, "slack"),
		Entry("a PEM private key", `        body: '{"pem":"`+pemKey+`"}'`, "private-key"),
		Entry("a Stripe key", `        body: '{"note":"`+stripeKey+`"}'`, "stripe"),
		Entry("a Hugging Face token", `        body: '{"note":"`+hfToken+`"}'`, "huggingface"),
		Entry("a Google OAuth token", `        body: '{"note":"`+googleOA+`"}'`, "Google OAuth"),
		Entry("a cookie header", `        headers: {Cookie: [`+cookieVal+`]}`, "Cookie header"),
		Entry("an unknown auth header", `        headers: {X-Portkey-Api-Key: [pk-0123456789abcdef]}`, "X-Portkey-Api-Key header"),
		Entry("a unicode-escaped key", `        body: '{"note":"`+unicodeEscaped(openAIKey)+`"}'`, "unicode-escaped"),
		Entry("a base64-wrapped key", `        body: '{"blob":"`+base64.StdEncoding.EncodeToString([]byte("Authorization: Bearer "+openAIKey))+`"}'`, "base64"),
		Entry("a gzipped key", `        body: !!binary `+compressed("gzip", `{"api_key":"`+openAIKey+`"}`), "base64"),
		Entry("a key in a brotli body, as a cassette writes it", "        body: !!binary |\n          "+compressed("br", `{"api_key":"`+openAIKey+`"}`), "binary body"),
		Entry("a zstd-compressed key", `        body: !!binary `+compressed("zstd", `{"api_key":"`+openAIKey+`"}`), "base64"),
		Entry("a declared variable's value", `        body: 'HA_TOKEN=Xy7Qp2Lm9Nv4Rs8T'`, "value of HA_TOKEN"),
	)

	It("finds a secret at the end of a 64 MiB line, and what follows it", func() {
		long := `        body: '{"text":"` + strings.Repeat("a", 64<<20) + ` ` + ghToken + `"}'`
		path := write("big.yaml", "---", "version: 1", long, `        note: '`+slackToken+`'`)
		found, err := cassette.Scan(dir, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(found).To(HaveLen(2))
		Expect(found[0]).To(MatchFields(IgnoreExtras, Fields{"Path": Equal(path), "Line": Equal(3)}))
		Expect(found[1]).To(MatchFields(IgnoreExtras, Fields{"Path": Equal(path), "Line": Equal(4)}))
	})

	It("does not flag code that reads a key, or redacted values", func() {
		write("ac1.yaml", "---", "version: 1",
			`        body: '{"content":"client = OpenAI(api_key=os.getenv(\"OPENAI_API_KEY\"))"}'`,
			`        body: 'api_key={api_key}&token=${TOKEN}'`,
			`        headers: {Authorization: [REDACTED], X-Api-Token: [REDACTED]}`,
			`        headers: {X-Ratelimit-Remaining-Tokens: ["149000"]}`,
			`        body: 'HA_TOKEN=REDACTED'`)
		found, err := cassette.Scan(dir, nil, "HA_TOKEN")
		Expect(err).NotTo(HaveOccurred())
		Expect(found).To(BeEmpty())
	})

	It("names a file it cannot read, and still scans the others", func() {
		path := write("ac1.yaml", "---", `        note: '`+ghToken+`'`)
		Expect(os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml"))).To(Succeed())
		Expect(syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644)).To(Succeed())
		found, err := cassette.Scan(dir, nil)
		Expect(err).To(MatchError(files.ErrNotRegular))
		Expect(err.Error()).To(ContainSubstring(filepath.Join(dir, "zero.yaml")))
		Expect(err.Error()).To(ContainSubstring(filepath.Join(dir, "pipe.yaml") + ": not a regular file (a named pipe)"))
		Expect(found).To(HaveLen(1))
		Expect(found[0].Path).To(Equal(path))
	})
})
