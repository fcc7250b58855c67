package memtest_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestMemtest(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Memtest Suite")
}
