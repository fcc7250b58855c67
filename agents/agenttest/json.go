package agenttest

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// ExpectLikeJSON expects a decoder's result to be encoding/json's: the same
// value, and an error with the same text or none. The agents' fast decoders
// must give the model exactly what encoding/json would.
func ExpectLikeJSON[T any](got T, err error, want T, wantErr error) {
	ginkgo.GinkgoHelper()
	if wantErr != nil {
		gomega.Expect(err).To(gomega.MatchError(wantErr.Error()))
	} else {
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
	}
	gomega.Expect(got).To(gomega.Equal(want))
}
