package standin_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"gopkg.in/yaml.v3"

	"github.com/agentreplay/testbed/harness/standin"
)

// The generic policy is asked last, so it must never take a request an
// agent's own policy answered: every model request of every committed
// cassette is accepted by an agent-specific policy.
var _ = Describe("the committed cassettes", Label("cassettes"), func() {
	It("hold no model request that only the generic policy accepts", func() {
		all := standin.Policies()
		own := all[:len(all)-1]
		paths, err := filepath.Glob("../../cassettes/*/*/*.yaml")
		Expect(err).NotTo(HaveOccurred())
		Expect(len(paths)).To(BeNumerically(">", 100))
		var models int
		for _, p := range paths {
			data, err := os.ReadFile(p)
			Expect(err).NotTo(HaveOccurred())
			var f struct {
				Interactions []struct {
					Request struct {
						URL  string `yaml:"url"`
						Body string `yaml:"body"`
					} `yaml:"request"`
				} `yaml:"interactions"`
			}
			Expect(yaml.Unmarshal(data, &f)).To(Succeed(), p)
			for i, in := range f.Interactions {
				var req standin.Request
				switch u := in.Request.URL; {
				case strings.HasSuffix(u, "/chat/completions"):
					req, err = standin.DecodeChat([]byte(in.Request.Body))
				case strings.HasSuffix(u, ":generateContent"):
					req, err = standin.DecodeGemini(u[strings.Index(u, "/v1"):], []byte(in.Request.Body))
				default:
					continue
				}
				Expect(err).NotTo(HaveOccurred(), "%s interaction %d", p, i)
				models++
				accepted := false
				for _, pol := range own {
					accepted = accepted || pol.Accepts(req)
				}
				Expect(accepted).To(BeTrue(), "%s interaction %d falls to the generic policy", p, i)
			}
		}
		Expect(models).To(BeNumerically(">", 500))
	})
})
