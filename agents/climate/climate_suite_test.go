package climate_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestClimate(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Climate Suite")
}
