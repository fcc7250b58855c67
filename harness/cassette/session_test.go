package cassette_test

import (
	"net/http"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
)

var _ = Describe("a Session", func() {
	DescribeTable("answers every mode's questions, with nothing where the mode has nothing",
		func(mode cassette.Mode, recording, hasProvenance bool) {
			prov := cassette.Provenance{Model: "m", StandIn: true}
			s, err := cassette.Open(mode, filepath.Join(GinkgoT().TempDir(), "ac1.yaml"),
				cassette.Options{Real: http.DefaultTransport, Provenance: prov})
			Expect(err).NotTo(HaveOccurred())
			Expect(s.Mode()).To(Equal(mode))
			Expect(s.Recording()).To(Equal(recording))
			p, ok := s.Provenance()
			Expect(ok).To(Equal(hasProvenance))
			if ok {
				Expect(p.Model).To(Equal("m"))
			}
			Expect(s.Unplayed()).To(BeEmpty())
			Expect(s.Recorded()).To(BeZero())
			Expect(s.Dropped()).To(BeEmpty())
			s.Abort()
			Expect(s.Close()).To(Succeed())
		},
		Entry("record", cassette.ModeRecord, true, true),
		Entry("record missing, no cassette yet", cassette.ModeRecordMissing, true, true),
		Entry("live", cassette.ModeLive, false, false),
	)
})
