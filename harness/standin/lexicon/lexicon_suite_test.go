package lexicon_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestLexicon(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Lexicon Suite")
}
