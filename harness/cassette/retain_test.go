package cassette_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/memtest"
)

var _ = Describe("what a replay hands out", Serial, func() {
	It("keeps none of the cassette's text alive: status, headers, fault and provenance are copies", func() {
		// A 2 MB response body makes each file's text 2 MB; whatever a
		// caller keeps of a replay must not keep that text.
		const n, pad = 10, 2 << 20
		body := "|\n            " + strings.Repeat("x", pad) + "\n"
		text := strings.Replace(recorded, "body: |\n            {\"a\":1}\n\n            {\"b\":2}\n", "body: "+body, 1)
		text = strings.Replace(text, "headers: {}", "headers:\n            X-Testbed-Fault:\n                - server-error", 1)
		Expect(text).To(ContainSubstring("server-error"))
		dir := GinkgoT().TempDir()
		type kept struct {
			status string
			header http.Header
			fault  string
			prov   cassette.Provenance
		}
		var keep []kept
		replay := func(i int) {
			path := filepath.Join(dir, string(rune('a'+i))+".yaml")
			Expect(os.WriteFile(path, []byte(text), 0o644)).To(Succeed())
			var k kept
			tp, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{Observe: func(e cassette.Exchange) { k.fault = e.Fault }})
			Expect(err).NotTo(HaveOccurred())
			req, err := http.NewRequest(http.MethodPost, "http://localhost:11434/v1/chat/completions", strings.NewReader(`{"q":"it's"}`))
			Expect(err).NotTo(HaveOccurred())
			req.Header.Set("Content-Type", "application/json")
			resp, err := tp.RoundTrip(req)
			Expect(err).NotTo(HaveOccurred())
			b, err := io.ReadAll(resp.Body)
			Expect(err).NotTo(HaveOccurred())
			Expect(b).To(HaveLen(pad + 1))
			k.status, k.header = resp.Status, resp.Header
			k.prov, _ = tp.Provenance()
			Expect(k.fault).To(Equal("server-error"))
			Expect(k.prov.Model).To(Equal("m"))
			keep = append(keep, k)
		}
		replay(0)
		before := memtest.Live()
		for i := 1; i < n; i++ {
			replay(i)
		}
		grown := int64(memtest.Live()) - int64(before)
		Expect(keep).To(HaveLen(n))
		Expect(grown).To(BeNumerically("<", pad),
			"the live heap grew by %d bytes over %d replays of %d-byte cassettes", grown, n-1, pad)
	})
})
