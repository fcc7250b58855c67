package lexicon_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/standin/lexicon"
)

var _ = Describe("the lexicon", func() {
	It("has English, Chinese, Spanish and French words for every concept", func() {
		Expect(lexicon.ConceptNames()).NotTo(BeEmpty())
		for _, c := range lexicon.ConceptNames() {
			for _, l := range []string{"en", "zh", "es", "fr"} {
				Expect(lexicon.WordsIn(c, l)).NotTo(BeEmpty(), "%s in %s", c, l)
			}
		}
	})

	It("gives its words out as copies: a part that changes them changes no other part's reading", func() {
		words := lexicon.WordsIn("forecast", "en")
		Expect(words).NotTo(BeEmpty())
		for i := range words {
			words[i] = "zzz"
		}
		Expect(lexicon.Read("the forecast for Lima").Has("forecast")).To(BeTrue())
		Expect(lexicon.WordsIn("forecast", "en")).NotTo(ContainElement("zzz"))
	})

	DescribeTable("matches words as the docs say",
		func(text, concept string, want bool) {
			Expect(lexicon.Read(text).Has(concept)).To(Equal(want))
		},
		Entry("a whole word", "the forecast for Lima", "forecast", true),
		Entry("not inside another word", "the forecaster said", "weather", false),
		Entry(`a plural with "s"`, "two forecasts", "weather", true),
		Entry(`a word ending in "*" starts a longer one`, "prévisions pour demain", "forecast", true),
		Entry("several words in sequence", "what are the next days like", "forecast", true),
		Entry("several words out of sequence", "days next", "forecast", false),
		Entry("case does not count", "FORECAST", "weather", true),
		Entry("Han words anywhere", "明天的天氣", "forecast", true),
		Entry("a concept not named", "bonjour", "forecast", false),
	)

	DescribeTable("finds two concepts near each other",
		func(text string, window int, want bool) {
			Expect(lexicon.Read(text).Near("temperature", "sea", window)).To(Equal(want))
		},
		Entry("within the window", "la température de la mer", 3, true),
		Entry("beyond it", "température hier soir au bord de la mer", 3, false),
		Entry("Han words, anywhere", "海水溫度", 1, true),
	)
})
