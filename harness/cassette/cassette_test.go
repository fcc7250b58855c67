package cassette_test

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
)

const (
	greet = `{"model":"m","messages":[{"role":"user","content":"say hello to the user"}],"temperature":0}`
	roll  = `{"model":"m","messages":[{"role":"user","content":"roll a die"}],"temperature":0}`

	// greetShuffled is greet with its keys reordered and white space added.
	greetShuffled = "{\n  \"temperature\": 0,\n  \"messages\": [ { \"content\": \"say hello to the user\",\n \"role\": \"user\" } ],\n  \"model\" : \"m\"\n}\n"
	rollShuffled  = `{"temperature":0, "model":"m", "messages":[{"content":"roll a die","role":"user"}]}`

	rerecord = "testbed record --suite odbchat --variant single-pass --scenario ac1"
)

var prov = cassette.Provenance{
	Provider: "openai", Endpoint: "http://localhost:11434/v1", Model: "qwen3:4b", StandIn: true, Upstream: "fixtures",
}

var _ = Describe("a recorded cassette", func() {
	var (
		dir, path string
		up        *upstream
	)

	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		path = filepath.Join(dir, "odbchat", "single-pass", "ac1.yaml")
		up = newUpstream(`{"answer":"one"}`, `{"answer":"two"}`, `{"answer":"three"}`)
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport, Provenance: prov})
		Expect(err).NotTo(HaveOccurred())
		Expect(mustPost(tr, up.URL+"/v1/chat/completions", greet)).To(Equal(`{"answer":"one"}`))
		Expect(mustPost(tr, up.URL+"/v1/chat/completions", roll)).To(Equal(`{"answer":"two"}`))
		Expect(mustPost(tr, up.URL+"/v1/chat/completions", roll)).To(Equal(`{"answer":"three"}`))
		Expect(tr.Close()).To(Succeed())
		Expect(up.requests()).To(Equal(3))
		// Nothing below may reach the server.
		up.Close()
	})

	replayer := func(opts cassette.Options) *cassette.Session {
		GinkgoHelper()
		tr, err := cassette.Open(cassette.ModeReplay, path, opts)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(tr.Close)
		Expect(tr.Mode()).To(Equal(cassette.ModeReplay))
		return tr
	}

	provenance := func(s *cassette.Session) cassette.Provenance {
		GinkgoHelper()
		p, ok := s.Provenance()
		Expect(ok).To(BeTrue())
		return p
	}

	It("is saved with format version 1, its provenance and every interaction", func() {
		f := readOnDisk(path)
		Expect(f.Version).To(Equal(1))
		Expect(f.Provenance).To(HaveKeyWithValue("model", "qwen3:4b"))
		Expect(f.Provenance).To(HaveKeyWithValue("standin", true))
		Expect(f.Interactions).To(HaveLen(3))
		Expect(f.Interactions[0].Request.Method).To(Equal(http.MethodPost))
		Expect(f.Interactions[0].Request.URL).To(Equal(up.URL + "/v1/chat/completions"))
		Expect(f.Interactions[0].Request.Body).To(Equal(greet))
		Expect(f.Interactions[2].Response.Body).To(Equal(`{"answer":"three"}`))
		Expect(names(filepath.Dir(path))).To(ConsistOf("ac1.yaml"), "no working files are left beside the cassette")

		p, err := cassette.ReadProvenance(path)
		Expect(err).NotTo(HaveOccurred())
		want := prov
		want.Recorder = "testbed"
		Expect(p).To(Equal(want))
	})

	It("replays the responses in recorded order, matching canonical JSON bodies", func() {
		r := replayer(cassette.Options{})
		Expect(provenance(r).Model).To(Equal("qwen3:4b"))
		Expect(r.Unplayed()).To(HaveLen(3))

		Expect(mustPost(r, up.URL+"/v1/chat/completions", greetShuffled)).To(Equal(`{"answer":"one"}`))
		Expect(mustPost(r, up.URL+"/v1/chat/completions", rollShuffled)).To(Equal(`{"answer":"two"}`))
		Expect(mustPost(r, up.URL+"/v1/chat/completions", roll)).To(Equal(`{"answer":"three"}`))
		Expect(r.Unplayed()).To(BeEmpty())
	})

	It("serves identical requests in recorded order even when others come between", func() {
		r := replayer(cassette.Options{})
		Expect(mustPost(r, up.URL+"/v1/chat/completions", roll)).To(Equal(`{"answer":"two"}`))
		Expect(r.Unplayed()).To(Equal([]string{
			"interaction 0: POST " + up.URL + "/v1/chat/completions",
			"interaction 2: POST " + up.URL + "/v1/chat/completions",
		}))
		Expect(mustPost(r, up.URL+"/v1/chat/completions", greet)).To(Equal(`{"answer":"one"}`))
		Expect(mustPost(r, up.URL+"/v1/chat/completions", roll)).To(Equal(`{"answer":"three"}`))
	})

	It("serves canonically equal requests in recorded order, whichever one's bytes the live request has", func() {
		// Replay compares raw bodies before canonical ones; that shortcut
		// must not serve a later interaction before an earlier equal one.
		other := filepath.Join(dir, "odbchat", "single-pass", "twins.yaml")
		srv := newUpstream(`{"answer":"shuffled"}`, `{"answer":"plain"}`)
		tr, err := cassette.Open(cassette.ModeRecord, other, cassette.Options{Real: http.DefaultTransport})
		Expect(err).NotTo(HaveOccurred())
		mustPost(tr, srv.URL+"/v1/chat/completions", greetShuffled)
		mustPost(tr, srv.URL+"/v1/chat/completions", greet)
		Expect(tr.Close()).To(Succeed())

		rp, err := cassette.Open(cassette.ModeReplay, other, cassette.Options{})
		Expect(err).NotTo(HaveOccurred())
		Expect(mustPost(rp, srv.URL+"/v1/chat/completions", greet)).To(Equal(`{"answer":"shuffled"}`))
		Expect(mustPost(rp, srv.URL+"/v1/chat/completions", greet)).To(Equal(`{"answer":"plain"}`))
	})

	It("refuses a request beyond the recorded ones, saying it was already replayed", func() {
		r := replayer(cassette.Options{Rerecord: rerecord})
		mustPost(r, up.URL+"/v1/chat/completions", greet)
		mustPost(r, up.URL+"/v1/chat/completions", roll)
		mustPost(r, up.URL+"/v1/chat/completions", roll)

		_, err := post(r, up.URL+"/v1/chat/completions", roll)
		Expect(err).To(MatchError(cassette.ErrStale))
		var miss *cassette.MissError
		Expect(errors.As(err, &miss)).To(BeTrue())
		Expect(miss.Nearest).To(BeElementOf(1, 2))
		Expect(miss.Diff).To(BeEmpty())
		Expect(miss.Error()).To(ContainSubstring("already replayed"))
		Expect(miss.Error()).To(ContainSubstring("re-record with: " + rerecord))
	})

	Describe("a request that was not recorded", func() {
		It("is stale, names the nearest interaction, the changed field, both values and the fix", func() {
			r := replayer(cassette.Options{Rerecord: rerecord})
			changed := `{"model":"m","messages":[{"role":"user","content":"say goodbye to the user"}],"temperature":0}`
			_, err := post(r, up.URL+"/v1/chat/completions", changed)

			Expect(errors.Is(err, cassette.ErrStale)).To(BeTrue())
			var miss *cassette.MissError
			Expect(errors.As(err, &miss)).To(BeTrue())
			Expect(miss.Cassette).To(Equal(path))
			Expect(miss.Method).To(Equal(http.MethodPost))
			Expect(miss.Nearest).To(Equal(0))
			Expect(miss.Diff).To(HaveLen(1))
			msg := miss.Error()
			Expect(msg).To(ContainSubstring(path))
			Expect(msg).To(ContainSubstring("nearest is interaction 0"))
			Expect(msg).To(ContainSubstring("/messages/0/content"))
			Expect(msg).To(ContainSubstring(`"say hello to the user"`))
			Expect(msg).To(ContainSubstring(`"say goodbye to the user"`))
			Expect(msg).To(ContainSubstring("re-record with: " + rerecord))
		})

		It("shows the part of a long prompt that differs, never two identical truncations", func() {
			other := filepath.Join(dir, "odbchat", "single-pass", "long.yaml")
			persona := strings.Repeat("You are a careful assistant for ocean data. ", 8) // 352 characters
			long := func(tone string) string {
				return `{"model":"m","messages":[{"role":"system","content":"` + persona + `Answer ` + tone + ` and cite sources."}]}`
			}
			srv := newUpstream(`{"answer":"ok"}`)
			tr, err := cassette.Open(cassette.ModeRecord, other, cassette.Options{Real: http.DefaultTransport})
			Expect(err).NotTo(HaveOccurred())
			mustPost(tr, srv.URL+"/v1/chat/completions", long("briefly"))
			Expect(tr.Close()).To(Succeed())
			rp, err := cassette.Open(cassette.ModeReplay, other, cassette.Options{})
			Expect(err).NotTo(HaveOccurred())

			_, err = post(rp, srv.URL+"/v1/chat/completions", long("at length"))
			var miss *cassette.MissError
			Expect(errors.As(err, &miss)).To(BeTrue())
			Expect(miss.Diff).To(HaveLen(1))
			path, values, _ := strings.Cut(miss.Diff[0], ": ")
			Expect(path).To(Equal("/messages/0/content"))
			recorded, live, _ := strings.Cut(values, " → ")
			Expect(recorded).NotTo(Equal(live))
			Expect(recorded).To(HavePrefix("…"))
			Expect(recorded).To(ContainSubstring("ocean data. Answer briefly and cite sources."))
			Expect(live).To(ContainSubstring("ocean data. Answer at length and cite sources."))
			Expect(len([]rune(live))).To(BeNumerically("<=", 122))
		})

		It("is nearest to an interaction not yet replayed when two are equally near", func() {
			r := replayer(cassette.Options{})
			// One field away from interactions 1 and 2, two from interaction 0.
			changed := `{"model":"m","messages":[{"role":"user","content":"roll a die"}],"temperature":1}`

			var miss *cassette.MissError
			_, err := post(r, up.URL+"/v1/chat/completions", changed)
			Expect(errors.As(err, &miss)).To(BeTrue())
			Expect(miss.Nearest).To(Equal(1))

			mustPost(r, up.URL+"/v1/chat/completions", roll) // consumes interaction 1
			_, err = post(r, up.URL+"/v1/chat/completions", changed)
			Expect(errors.As(err, &miss)).To(BeTrue())
			Expect(miss.Nearest).To(Equal(2))
		})

		It("reports a field the live request adds", func() {
			r := replayer(cassette.Options{})
			added := `{"model":"m","messages":[{"role":"user","content":"say hello to the user"}],"temperature":0,"seed":7}`
			_, err := post(r, up.URL+"/v1/chat/completions", added)
			Expect(err).To(MatchError(ContainSubstring("/seed: member added: 7")))
		})

		It("is ignored when the field that differs is volatile", func() {
			r := replayer(cassette.Options{Volatile: []string{"seed"}})
			added := `{"model":"m","messages":[{"role":"user","content":"say hello to the user"}],"temperature":0,"seed":7}`
			Expect(mustPost(r, up.URL+"/v1/chat/completions", added)).To(Equal(`{"answer":"one"}`))
		})

		DescribeTable("to another method or URL names the nearest recorded request, with the same host or path, and how it differs",
			func(method, suffix, body string, nearest int, want string) {
				r := replayer(cassette.Options{Rerecord: rerecord})
				req, err := http.NewRequest(method, up.URL+suffix, strings.NewReader(body))
				Expect(err).NotTo(HaveOccurred())
				_, err = r.RoundTrip(req)
				Expect(err).To(MatchError(cassette.ErrStale))
				var miss *cassette.MissError
				Expect(errors.As(err, &miss)).To(BeTrue())
				Expect(miss.Nearest).To(Equal(nearest))
				Expect(miss.NearestURL).To(Equal("POST " + up.URL + "/v1/chat/completions"))
				Expect(miss.Error()).To(ContainSubstring(fmt.Sprintf("%s %s%s (no recorded request to this method and URL; nearest is interaction %d, POST %s/v1/chat/completions; it differs", method, up.URL, suffix, nearest, up.URL)))
				Expect(miss.Diff).To(ContainElement(want))
				Expect(miss.Error()).To(ContainSubstring(want))
				Expect(miss.Error()).To(ContainSubstring("re-record with: " + rerecord))
			},
			Entry("another path", http.MethodPost, "/v1/embeddings", greet, 0, "path: /v1/chat/completions → /v1/embeddings"),
			Entry("another method", http.MethodPut, "/v1/chat/completions", greet, 0, "method: POST → PUT"),
			Entry("another query", http.MethodPost, "/v1/chat/completions?stream=true", greet, 0, "query key added: stream=true"),
			Entry("another path, nearest by its body too", http.MethodPost, "/v2/chat/completions", roll, 1, "path: /v1/chat/completions → /v2/chat/completions"),
		)

		It("has no nearest interaction when nothing was recorded for its host or path", func() {
			r := replayer(cassette.Options{Rerecord: rerecord})
			req, err := http.NewRequest(http.MethodGet, "http://127.0.0.2:9/elsewhere", nil)
			Expect(err).NotTo(HaveOccurred())
			_, err = r.RoundTrip(req)
			var miss *cassette.MissError
			Expect(errors.As(err, &miss)).To(BeTrue())
			Expect(miss.Nearest).To(Equal(-1))
			Expect(miss.Error()).To(ContainSubstring("GET http://127.0.0.2:9/elsewhere (no recorded request to this method and URL, nor to its host or path)"))
		})
	})

	It("reports every exchange to Observe, a miss with its error", func() {
		var obs observed
		r := replayer(cassette.Options{Observe: obs.add})
		mustPost(r, up.URL+"/v1/chat/completions", greet)
		_, err := post(r, up.URL+"/v1/other", greet)
		Expect(err).To(HaveOccurred())

		xs := obs.all()
		Expect(xs).To(HaveLen(2))
		Expect(xs[0].Method).To(Equal(http.MethodPost))
		Expect(xs[0].URL).To(Equal(up.URL + "/v1/chat/completions"))
		Expect(xs[0].Status).To(Equal(http.StatusOK))
		Expect(xs[0].Err).NotTo(HaveOccurred())
		Expect(xs[1].Err).To(MatchError(cassette.ErrStale))
	})
})

var _ = Describe("durations", func() {
	It("records a stand-in's stated latency and replays every recorded duration in order", func() {
		dir := GinkgoT().TempDir()
		path := filepath.Join(dir, "ac1.yaml")
		up := newUpstream(`{"n":1}`, `{"n":2}`, `{"n":3}`)
		up.latency = []string{"250ms", "1.5s", ""} // the third is measured

		var rec observed
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport, Observe: rec.add})
		Expect(err).NotTo(HaveOccurred())
		mustPost(tr, up.URL+"/v1/chat/completions", `{"q":1}`)
		mustPost(tr, up.URL+"/v1/chat/completions", `{"q":2}`)
		mustPost(tr, up.URL+"/v1/chat/completions", `{"q":3}`)
		Expect(tr.Close()).To(Succeed())

		recorded := rec.durations()
		Expect(recorded).To(HaveLen(3))
		Expect(recorded[:2]).To(Equal([]time.Duration{250 * time.Millisecond, 1500 * time.Millisecond}))
		Expect(rec.all()[0].Status).To(Equal(http.StatusOK))

		var inFile []time.Duration
		var fileSum time.Duration
		for _, in := range readOnDisk(path).Interactions {
			inFile = append(inFile, in.Response.Duration)
			fileSum += in.Response.Duration
		}
		Expect(inFile[:2]).To(Equal([]time.Duration{250 * time.Millisecond, 1500 * time.Millisecond}))
		Expect(inFile[2]).To(Equal(recorded[2]), "Observe saw the measured duration that was saved")

		var play observed
		rp, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{Observe: play.add})
		Expect(err).NotTo(HaveOccurred())
		mustPost(rp, up.URL+"/v1/chat/completions", `{"q":1}`)
		mustPost(rp, up.URL+"/v1/chat/completions", `{"q":2}`)
		mustPost(rp, up.URL+"/v1/chat/completions", `{"q":3}`)

		Expect(play.durations()).To(Equal(inFile))
		var playSum time.Duration
		for _, d := range play.durations() {
			playSum += d
		}
		Expect(playSum).To(Equal(fileSum))
	})

	// The stand-in does not sleep; its latency travels in a header. The
	// recorder must not wait it out either (go-vcr does unless told to skip
	// request latency). A modelled latency of a thousand hours makes the
	// difference a hang, caught by the node timeout, not a measured time.
	It("does not wait out the modelled latency while recording", NodeTimeout(30*time.Second), GracePeriod(time.Second), func(ctx SpecContext) {
		up := newUpstream(`{"n":1}`)
		up.latency = []string{"1000h"}
		var rec observed
		tr, err := cassette.Open(cassette.ModeRecord, filepath.Join(GinkgoT().TempDir(), "ac1.yaml"),
			cassette.Options{Real: http.DefaultTransport, Observe: rec.add})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(tr.Close)
		Expect(mustPost(tr, up.URL, `{}`)).To(Equal(`{"n":1}`))
		Expect(rec.durations()).To(Equal([]time.Duration{1000 * time.Hour}))
	})
})

var _ = Describe("a scenario that makes no HTTP call", func() {
	It("still gets a cassette, which replays with nothing unplayed", func() {
		path := filepath.Join(GinkgoT().TempDir(), "odbchat", "ac2.yaml")
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Provenance: prov})
		Expect(err).NotTo(HaveOccurred())
		Expect(tr.Close()).To(Succeed())

		f := readOnDisk(path)
		Expect(f.Version).To(Equal(1))
		Expect(f.Interactions).To(BeEmpty())
		Expect(f.Provenance).To(HaveKeyWithValue("recorder", "testbed"))
		Expect(f.Provenance).To(HaveKeyWithValue("model", "qwen3:4b"))

		rp, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{})
		Expect(err).NotTo(HaveOccurred())
		Expect(rp.Unplayed()).To(BeEmpty())
		Expect(rp.Close()).To(Succeed())
	})
})

var _ = Describe("live mode", func() {
	It("forwards to the server, reports the exchange and writes no file", func() {
		dir := GinkgoT().TempDir()
		up := newUpstream(`{"answer":"live"}`)
		up.latency = []string{"40ms"}
		var obs observed
		tr, err := cassette.Open(cassette.ModeLive, filepath.Join(dir, "ac1.yaml"), cassette.Options{Real: http.DefaultTransport, Observe: obs.add})
		Expect(err).NotTo(HaveOccurred())

		Expect(mustPost(tr, up.URL+"/v1/chat/completions", greet)).To(Equal(`{"answer":"live"}`))
		Expect(mustPost(tr, up.URL+"/v1/chat/completions", greet)).To(Equal(`{"answer":"extra"}`))
		Expect(tr.Close()).To(Succeed())

		Expect(up.requests()).To(Equal(2))
		Expect(up.bodies()).To(Equal([]string{greet, greet}))
		Expect(obs.all()).To(HaveLen(2))
		Expect(obs.all()[0].Status).To(Equal(http.StatusOK))
		Expect(obs.all()[0].Duration).To(Equal(40 * time.Millisecond))
		Expect(names(dir)).To(BeEmpty())
	})
})

var _ = Describe("opening a cassette that cannot be read", func() {
	It("reports a missing file as ErrNotFound", func() {
		path := filepath.Join(GinkgoT().TempDir(), "absent.yaml")
		tr, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{})
		Expect(errors.Is(err, cassette.ErrNotFound)).To(BeTrue())
		Expect(err).To(MatchError(ContainSubstring(path)))
		Expect(tr == nil).To(BeTrue(), "no Transport, not a Transport holding a nil pointer")

		_, err = cassette.ReadProvenance(path)
		Expect(errors.Is(err, cassette.ErrNotFound)).To(BeTrue())
	})

	DescribeTable("reports a format version it does not read as ErrVersion, saying which it reads",
		func(name, why string) {
			path := filepath.Join("testdata", "corrupt", name)
			_, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{})
			Expect(err).To(MatchError(cassette.ErrVersion))
			Expect(err).To(MatchError(ContainSubstring(path + ": " + why + "; this testbed reads format versions 1 (go-vcr v2's, as testbed record writes it) and 2 (go-vcr v4's)")))
		},
		Entry("a newer format version", "version-3.yaml", "format version 3"),
		Entry("no format version", "no-version.yaml", "format version 0"),
	)

	DescribeTable("reports a broken file as ErrCorrupt, naming the file",
		func(name, why string) {
			path := filepath.Join("testdata", "corrupt", name)
			_, err := os.Stat(path)
			Expect(err).NotTo(HaveOccurred())

			tr, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{})
			Expect(errors.Is(err, cassette.ErrCorrupt)).To(BeTrue(), "got %v", err)
			Expect(errors.Is(err, cassette.ErrNotFound)).To(BeFalse())
			Expect(err).To(MatchError(ContainSubstring(path)))
			Expect(err).To(MatchError(ContainSubstring(why)))
			Expect(tr == nil).To(BeTrue())

			_, err = cassette.ReadProvenance(path)
			Expect(errors.Is(err, cassette.ErrCorrupt)).To(BeTrue())
		},
		Entry("not YAML", "not-yaml.yaml", "yaml:"),
		Entry("a mapping of the wrong shape", "wrong-shape.yaml", "yaml:"),
		Entry("an interaction without a method", "no-method.yaml", "interaction 1 has no request method or URL"),
		Entry("an interaction without a URL", "no-url.yaml", "interaction 0 has no request method or URL"),
		Entry("an empty interaction", "null-interaction.yaml", "interaction 0 has no request method or URL"),
		Entry("an empty file", "empty.yaml", "empty file"),
		Entry("a file cut off inside a string", "cut-off.yaml", "yaml: line 13: found unexpected end of stream"),
		Entry("a file cut off after a request", "cut-after-request.yaml", "interaction 1 has no response status (code 0); the file may be cut off"),
		Entry("a response body shorter than its Content-Length", "cut-body.yaml",
			"interaction 0 has a response body of 43 bytes, but its Content-Length is 58; the body was cut off or edited"),
		Entry("a negative duration", "negative-duration.yaml", "interaction 0 has a negative duration -5s"),
	)

	It("says how a body that is not a JSON object differs even when JSON calls the two equal", func() {
		path := filepath.Join(GinkgoT().TempDir(), "scalar.yaml")
		Expect(os.WriteFile(path, []byte("version: 1\ninteractions:\n"+
			"- request: {method: POST, url: 'http://h/p', body: '0'}\n  response: {code: 200, body: ok}\n"), 0o644)).To(Succeed())
		r, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{})
		Expect(err).NotTo(HaveOccurred())

		_, err = post(r, "http://h/p", " 0")
		var miss *cassette.MissError
		Expect(errors.As(err, &miss)).To(BeTrue(), "got %v", err)
		Expect(miss.Nearest).To(Equal(0))
		Expect(miss.Diff).To(Equal([]string{"the body: 0 →  0"}))
		Expect(miss.Error()).NotTo(ContainSubstring("already replayed"))
	})
})
