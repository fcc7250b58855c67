package anyjson_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestAnyJSON(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "AnyJSON Suite")
}
