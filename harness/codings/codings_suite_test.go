package codings_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestCodings(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Codings Suite")
}
