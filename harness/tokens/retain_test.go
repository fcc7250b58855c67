package tokens_test

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/memtest"
	"github.com/agentreplay/testbed/harness/tokens"
)

var _ = Describe("counting", Serial, func() {
	It("keeps none of the texts it counted alive", func() {
		// Each 1 MB text is a line of made-up words, which merge into
		// several tokens and are remembered by the encoding: what it keeps
		// must be the words, not the text around them.
		const n, size = 8, 1 << 20
		text := func(i int) string {
			var b strings.Builder
			letters := func(n int) string { return strings.Map(func(r rune) rune { return 'a' + r - '0' }, fmt.Sprint(n)) }
			for k := 0; b.Len() < size; k++ {
				fmt.Fprintf(&b, "zqx%svwj%sk ", letters(i), letters(k%50))
			}
			return b.String()
		}
		c := mustNew(tokens.EncodingO200K)
		Expect(c.Count(text(0))).To(BeNumerically(">", 0))
		before := memtest.Live()
		for i := 1; i < n; i++ {
			Expect(c.Count(text(i))).To(BeNumerically(">", 0))
		}
		grown := int64(memtest.Live()) - int64(before)
		Expect(grown).To(BeNumerically("<", size),
			"the live heap grew by %d bytes over %d counted texts of %d bytes", grown, n-1, size)
	})
})
