package standintest_test

import (
	"net/http"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/standin/standintest"
)

func TestStandintest(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Standintest Suite")
}

var _ = Describe("Start", func() {
	It("serves the stand-in model and the routes' upstream stub on loopback", func() {
		s, err := standintest.Start("../../../fixtures/odbchat/routes.yaml")
		Expect(err).NotTo(HaveOccurred())
		defer s.Close()
		Expect(s.Model).To(HavePrefix("http://127.0.0.1:"))
		Expect(s.Upstream).To(HavePrefix("http://127.0.0.1:"))
		resp, err := http.Get(s.Upstream + "/no/such/route")
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		resp, err = http.Get(s.Model + "/v1/models")
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).NotTo(Equal(0))
	})

	It("names a routes file it cannot load", func() {
		_, err := standintest.Start("no/such/routes.yaml")
		Expect(err).To(MatchError(ContainSubstring("no/such/routes.yaml")))
	})
})
