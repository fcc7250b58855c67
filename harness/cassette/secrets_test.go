package cassette_test

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
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
		Expect(in.URL).To(Equal(up.URL + "/v1beta/models/m:generateContent?alt=json&key=REDACTED"))
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
