package odbchat_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestODBchat(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "ODBchat Suite")
}
