package cassette_test

import (
	"errors"
	"net/http"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/match"
)

var _ = Describe("match rules", func() {
	// A request as a real agent sends it: a fresh request id in a header,
	// the body and a query parameter, and the wall-clock time in the prompt.
	request := func(id, now string) (url, body string, header []string) {
		return "/v1/chat/completions?request_id=" + id + "&ts=" + now,
			`{"metadata":{"request_id":"` + id + `"},"messages":[{"role":"system","content":"Now: ` + now + `"},{"role":"user","content":"hi"}]}`,
			[]string{"X-Request-Id", id, "X-Tenant", "acme"}
	}
	const (
		id1, now1 = "3f2b8c1e-9d4a-4e6b-8f00-1a2b3c4d5e6f", "2026-03-02T08:00:00Z"
		id2, now2 = "0d9e8f7a-1111-2222-3333-444455556666", "2026-11-26T13:55:02.5Z"
	)
	var rules *match.Rules
	var path string
	var srv *upstream

	BeforeEach(func() {
		rules = &match.Rules{Headers: []string{"X-Tenant"}, List: []match.Rule{
			{Where: match.WhereAnywhere, Pattern: "uuid"},
			{Where: match.WhereBody, Target: "/messages/0/content", Pattern: "iso8601"},
			{Ignore: true, Where: match.WhereQuery, Target: "ts"},
			{Where: match.WhereHeader, Target: "X-Request-Id", Pattern: "uuid"},
		}}
		Expect(rules.Compile()).To(BeEmpty())
		path = filepath.Join(GinkgoT().TempDir(), "s", "v", "a.yaml")
		srv = newUpstream(`{"answer":"one"}`)
		tr, err := cassette.Open(cassette.ModeRecord, path, cassette.Options{Real: http.DefaultTransport, Match: rules})
		Expect(err).NotTo(HaveOccurred())
		u, body, h := request(id1, now1)
		mustPost(tr, srv.URL+u, body, h...)
		Expect(tr.Close()).To(Succeed())
	})

	It("records the headers they compare, which a recording otherwise drops", func() {
		f := readOnDisk(path)
		Expect(f.Interactions[0].Request.Headers).To(HaveKeyWithValue("X-Tenant", []string{"acme"}))
		Expect(f.Interactions[0].Request.Headers).To(HaveKeyWithValue("X-Request-Id", []string{id1}))
	})

	It("replay matches a request with another id and another time under them, and misses without them", func() {
		u, body, h := request(id2, now2)
		rp, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{Match: rules})
		Expect(err).NotTo(HaveOccurred())
		Expect(mustPost(rp, srv.URL+u, body, h...)).To(Equal(`{"answer":"one"}`))
		Expect(rp.Unplayed()).To(BeEmpty())

		plain, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{})
		Expect(err).NotTo(HaveOccurred())
		_, err = post(plain, srv.URL+u, body, h...)
		Expect(err).To(MatchError(cassette.ErrStale))
	})

	It("replay misses when what they compare differs, and the diagnosis names the rules and the header", func() {
		u, body, _ := request(id2, now2)
		rp, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{Match: rules, Rerecord: "testbed record"})
		Expect(err).NotTo(HaveOccurred())
		_, err = post(rp, srv.URL+u, body, "X-Request-Id", id2, "X-Tenant", "globex")
		var miss *cassette.MissError
		Expect(errors.As(err, &miss)).To(BeTrue())
		Expect(miss.Nearest).To(Equal(0))
		Expect(miss.Diff).To(Equal([]string{"header X-Tenant: acme → globex"}))
		Expect(miss.Rules).To(Equal(rules.Describe()))
		Expect(miss.Error()).To(ContainSubstring("compared after the suite's match rules: compare headers X-Tenant; normalise uuid anywhere → <uuid>; " +
			"normalise iso8601 in body /messages/0/content → <iso8601>; ignore query ts; normalise uuid in header X-Request-Id → <uuid>"))
		Expect(miss.Error()).To(ContainSubstring("none of them covers where it differs"))

		// A body field no rule covers is named as it differs.
		other := `{"metadata":{"request_id":"` + id2 + `"},"messages":[{"role":"system","content":"Now: ` + now2 + `"},{"role":"user","content":"bye"}]}`
		_, err = post(rp, srv.URL+u, other, "X-Request-Id", id2, "X-Tenant", "acme")
		Expect(errors.As(err, &miss)).To(BeTrue())
		Expect(miss.Diff).To(Equal([]string{`/messages/1/content: "hi" → "bye"`}))
	})

	It("names a query parameter no rule covers when the URL differs", func() {
		u, body, h := request(id2, now2)
		rp, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{Match: rules})
		Expect(err).NotTo(HaveOccurred())
		_, err = post(rp, srv.URL+u+"&page=2", body, h...)
		var miss *cassette.MissError
		Expect(errors.As(err, &miss)).To(BeTrue())
		Expect(miss.Nearest).To(Equal(0))
		Expect(miss.Diff).To(Equal([]string{"query key added: page=2"}))
	})

	It("a missing compared header is a miss", func() {
		u, body, _ := request(id2, now2)
		rp, err := cassette.Open(cassette.ModeReplay, path, cassette.Options{Match: rules})
		Expect(err).NotTo(HaveOccurred())
		_, err = post(rp, srv.URL+u, body, "X-Tenant", "acme")
		var miss *cassette.MissError
		Expect(errors.As(err, &miss)).To(BeTrue())
		Expect(miss.Diff).To(Equal([]string{"header X-Request-Id: <uuid> → (absent)"}))
	})

	It("record-missing replays under them and records nothing new", func() {
		u, body, h := request(id2, now2)
		tr, err := cassette.Open(cassette.ModeRecordMissing, path, cassette.Options{Real: http.DefaultTransport, Match: rules})
		Expect(err).NotTo(HaveOccurred())
		Expect(mustPost(tr, srv.URL+u, body, h...)).To(Equal(`{"answer":"one"}`))
		Expect(tr.Close()).To(Succeed())
		Expect(tr.Recorded()).To(Equal(0))
		Expect(srv.requests()).To(Equal(1))
	})
})
