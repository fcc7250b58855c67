package agents_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
)

// probe has every kind of field VariantKeys meets.
type probe struct {
	Router   string          `json:"router"`
	TopK     int             `json:"top_k,omitempty"`
	Timeout  agents.Duration `json:"upstream_timeout"`
	Untagged bool
	Skipped  string `json:"-"`
	hidden   string //lint:ignore U1000 an unexported field is no key: VariantKeys must skip it
}

var _ = Describe("VariantKeys", func() {
	It("names exactly the keys DecodeVariant accepts", func() {
		keys := agents.VariantKeys(probe{})
		Expect(keys).To(Equal([]string{"router", "top_k", "upstream_timeout", "Untagged"}))
		Expect(agents.VariantKeys(&probe{})).To(Equal(keys), "a pointer too")
		for _, k := range keys {
			err := agents.DecodeVariant(map[string]any{k: "x"}, &probe{})
			if err != nil {
				Expect(err.Error()).NotTo(ContainSubstring("unknown field"), k)
			}
		}
		Expect(agents.DecodeVariant(map[string]any{"Skipped": "x"}, &probe{})).To(MatchError(ContainSubstring("unknown field")))
	})
})
