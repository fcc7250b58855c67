package kura_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestKura(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Kura Suite")
}
