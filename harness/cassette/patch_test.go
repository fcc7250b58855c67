package cassette_test

import (
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
)

var _ = Describe("record-missing mode", func() {
	const (
		changed = `{"model":"m","messages":[{"role":"user","content":"roll two dice"}],"temperature":0}`
		// chat is the logical URL the cassette records; the servers are
		// reached through routeTo.
		chat = "http://model.test/v1/chat/completions"
	)
	var (
		path string
		up   *upstream
	)

	// The cassette holds greet → one, roll → two, roll → three.
	BeforeEach(func() {
		path = filepath.Join(GinkgoT().TempDir(), "s", "v", "sc.yaml")
		rec := newUpstream(`{"answer":"one"}`, `{"answer":"two"}`, `{"answer":"three"}`)
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: routeTo(rec.URL), Provenance: prov})
		Expect(err).NotTo(HaveOccurred())
		for _, b := range []string{greet, roll, roll} {
			mustPost(tr, chat, b)
		}
		Expect(tr.Close()).To(Succeed())
		rec.Close()
		up = newUpstream(`{"answer":"fresh"}`, `{"answer":"fresher"}`)
	})

	open := func(opts cassette.Options) *cassette.Session {
		GinkgoHelper()
		if opts.Real == nil {
			opts.Real = routeTo(up.URL)
		}
		if opts.Provenance == (cassette.Provenance{}) {
			opts.Provenance = prov
		}
		tr, err := cassette.Open(cassette.ModeRecordMissing, path, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(tr.Recording()).To(BeTrue())
		return tr
	}

	It("replays what matches without a request, records what misses, and rewrites the cassette in call order", func() {
		var obs observed
		p := open(cassette.Options{Observe: obs.add})
		Expect(mustPost(p, chat, greet)).To(Equal(`{"answer":"one"}`))
		Expect(mustPost(p, chat, changed)).To(Equal(`{"answer":"fresh"}`))
		Expect(mustPost(p, chat, roll)).To(Equal(`{"answer":"two"}`))
		Expect(up.bodies()).To(Equal([]string{changed}), "only the call the cassette lacks reaches the server")
		for _, x := range obs.all() {
			Expect(x.Err).NotTo(HaveOccurred(), "a miss that was recorded is not reported as a miss")
		}
		Expect(obs.all()).To(HaveLen(3))
		Expect(p.Recorded()).To(Equal(1))
		Expect(p.Unplayed()).To(BeEmpty())
		Expect(p.Dropped()).To(ConsistOf(ContainSubstring("interaction 2:")))
		Expect(p.Close()).To(Succeed())

		f := readOnDisk(path)
		var bodies, answers []string
		for _, in := range f.Interactions {
			bodies = append(bodies, in.Request.Body)
			answers = append(answers, in.Response.Body)
		}
		Expect(bodies).To(Equal([]string{greet, changed, roll}))
		Expect(answers).To(Equal([]string{`{"answer":"one"}`, `{"answer":"fresh"}`, `{"answer":"two"}`}))

		By("replaying the rewritten cassette whole, with nothing left unplayed")
		r, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{})
		Expect(err).NotTo(HaveOccurred())
		for _, b := range []string{greet, changed, roll} {
			mustPost(r, chat, b)
		}
		Expect(r.Unplayed()).To(BeEmpty())
	})

	It("leaves a cassette that missed nothing as it was, and still reports what the agent did not call", func() {
		before, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		p := open(cassette.Options{})
		mustPost(p, chat, greet)
		Expect(p.Close()).To(Succeed())
		Expect(up.requests()).To(BeZero())
		Expect(p.Unplayed()).To(HaveLen(2), "fewer calls than recorded still fail, as in a replay")
		Expect(p.Dropped()).To(BeEmpty())
		after, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(after).To(Equal(before))
	})

	It("keeps the cassette as it was when the recording is aborted", func() {
		before, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		p := open(cassette.Options{})
		mustPost(p, chat, changed)
		p.Abort()
		Expect(p.Close()).To(Succeed())
		after, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(after).To(Equal(before))
		Expect(filepath.Glob(filepath.Join(filepath.Dir(path), ".*"))).To(BeEmpty(), "no temporary is left")
	})

	It("records a cassette that does not exist whole", func() {
		path = filepath.Join(filepath.Dir(path), "new.yaml")
		p := open(cassette.Options{})
		Expect(mustPost(p, chat, greet)).To(Equal(`{"answer":"fresh"}`))
		Expect(p.Close()).To(Succeed())
		Expect(readOnDisk(path).Interactions).To(HaveLen(1))
		Expect(readOnDisk(path).Provenance).To(HaveKeyWithValue("model", prov.Model))
	})

	It("redacts what it records as a recording does", func() {
		p := open(cassette.Options{Secrets: []string{"sk-live-0123456789abcdef"}})
		mustPost(p, chat, changed, "Authorization", "Bearer sk-live-0123456789abcdef")
		Expect(p.Close()).To(Succeed())
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).NotTo(ContainSubstring("sk-live-0123456789abcdef"))
		Expect(readOnDisk(path).Interactions[0].Request.Headers).To(HaveKeyWithValue("Authorization", []string{cassette.Redacted}))
	})

	It("refuses to mix a cassette's model with another", func() {
		other := prov
		other.Model, other.StandIn = "gpt-4.1-mini", false
		_, err := cassette.Open(cassette.ModeRecordMissing, path, cassette.Options{Real: routeTo(up.URL), Provenance: other})
		Expect(errors.Is(err, cassette.ErrMixed)).To(BeTrue(), "got %v", err)
		Expect(err.Error()).To(ContainSubstring("re-record it whole"))
	})

	DescribeTable("tells the stand-in the calls it replays that keep server-side state, so that a call it records may continue them",
		func(recordedFrom cassette.Provenance, want []string) {
			const (
				responses = "http://model.test/v1/responses"
				first     = `{"model":"m","input":"call get_sst","store":true}`
				next      = `{"model":"m","previous_response_id":"resp_1","input":[{"type":"function_call_output","call_id":"c1","output":"26.4"}]}`
			)
			stateful := filepath.Join(GinkgoT().TempDir(), "s", "v", "state.yaml")
			rec := newUpstream(`{"id":"resp_1"}`, `{"answer":"one"}`)
			tr, err := cassette.Open(cassette.ModeRecord, stateful, cassette.Options{Real: routeTo(rec.URL), Provenance: recordedFrom})
			Expect(err).NotTo(HaveOccurred())
			mustPost(tr, responses, first)
			mustPost(tr, chat, greet)
			Expect(tr.Close()).To(Succeed())

			live := newUpstream(`{"id":"resp_1"}`, `{"id":"resp_2"}`)
			p, err := cassette.Open(cassette.ModeRecordMissing, stateful, cassette.Options{Real: routeTo(live.URL), Provenance: recordedFrom})
			Expect(err).NotTo(HaveOccurred())
			Expect(mustPost(p, responses, first)).To(Equal(`{"id":"resp_1"}`), "the cassette's answer")
			Expect(mustPost(p, chat, greet)).To(Equal(`{"answer":"one"}`))
			mustPost(p, responses, next)
			Expect(p.Close()).To(Succeed())
			Expect(live.bodies()).To(Equal(want))
			Expect(readOnDisk(stateful).Interactions).To(HaveLen(3), "what it was told is not recorded")
		},
		Entry("recorded from the stand-in: the Responses call it replayed, not the Chat Completions one", prov,
			[]string{`{"model":"m","input":"call get_sst","store":true}`, `{"model":"m","previous_response_id":"resp_1","input":[{"type":"function_call_output","call_id":"c1","output":"26.4"}]}`}),
		Entry("recorded from a real model, which keeps its own state: nothing", cassette.Provenance{Provider: "openai", Endpoint: "https://api.openai.com/v1", Model: "gpt-4.1-mini", Upstream: "fixtures"},
			[]string{`{"model":"m","previous_response_id":"resp_1","input":[{"type":"function_call_output","call_id":"c1","output":"26.4"}]}`}),
	)

	DescribeTable("tells the stand-in what it replays that a later call may name, so that a call it records may name it",
		func(made, make, madeAnswer, naming, name string) {
			stateful := filepath.Join(GinkgoT().TempDir(), "s", "v", "state.yaml")
			rec := newUpstream(madeAnswer)
			tr, err := cassette.Open(cassette.ModeRecord, stateful, cassette.Options{Real: routeTo(rec.URL), Provenance: prov})
			Expect(err).NotTo(HaveOccurred())
			mustPost(tr, made, make)
			Expect(tr.Close()).To(Succeed())

			live := newUpstream(madeAnswer, `{}`)
			p, err := cassette.Open(cassette.ModeRecordMissing, stateful, cassette.Options{Real: routeTo(live.URL), Provenance: prov})
			Expect(err).NotTo(HaveOccurred())
			Expect(mustPost(p, made, make)).To(Equal(madeAnswer), "the cassette's answer")
			mustPost(p, naming, name)
			Expect(p.Close()).To(Succeed())
			Expect(live.bodies()).To(Equal([]string{make, name}))
		},
		Entry("an interaction (Gemini's Interactions API)", "http://model.test/v1beta/interactions", `{"model":"gemini-3.5-flash","input":"call get_sst"}`, `{"id":"v1_1"}`,
			"http://model.test/v1beta/interactions", `{"model":"gemini-3.5-flash","previous_interaction_id":"v1_1","input":[{"type":"function_result","call_id":"c1","name":"get_sst","result":"26.4"}]}`),
		Entry("a Gemini cached content", "http://model.test/v1beta/cachedContents", `{"model":"models/gemini-2.5-flash","contents":[{"role":"user","parts":[{"text":"the report"}]}]}`, `{"name":"cachedContents/k1"}`,
			"http://model.test/v1beta/models/gemini-2.5-flash:generateContent", `{"cachedContent":"cachedContents/k1","contents":[{"role":"user","parts":[{"text":"and?"}]}]}`),
		Entry("a Responses API compaction", "http://model.test/v1/responses/compact", `{"model":"m","input":"the report"}`, `{"object":"response.compaction","output":[{"type":"compaction","encrypted_content":"e1"}]}`,
			"http://model.test/v1/responses", `{"model":"m","input":[{"type":"compaction","encrypted_content":"e1"},{"role":"user","content":"and?"}]}`),
	)

	It("is named record-missing", func() {
		Expect(cassette.ModeRecordMissing.String()).To(Equal("record-missing"))
	})
})

// routeTo sends every request to the server at base, as the runner's
// routing transport sends logical hosts to loopback stand-ins.
func routeTo(base string) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		u, err := url.Parse(base)
		if err != nil {
			return nil, err
		}
		out := req.Clone(req.Context())
		out.URL.Scheme, out.URL.Host, out.Host = u.Scheme, u.Host, u.Host
		return http.DefaultTransport.RoundTrip(out)
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
