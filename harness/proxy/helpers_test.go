package proxy_test

import (
	"net/url"
	"os"

	. "github.com/onsi/gomega"
)

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }

func must[T any](v T, err error) T {
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return v
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}
