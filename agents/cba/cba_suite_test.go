package cba_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestCBA(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "CBA Suite")
}
