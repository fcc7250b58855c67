package instruct_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestInstruct(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Instruct Suite")
}
