package trim_test

import (
	"encoding/json"
	"math"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/climate/trim"
)

// matches decodes the input.json section of testdata/vector.txtar.
func matches() []trim.Match {
	GinkgoHelper()
	var ms []trim.Match
	Expect(json.Unmarshal(section(archive("vector.txtar"), "input.json"), &ms)).To(Succeed())
	Expect(ms).To(HaveLen(5))
	return ms
}

// hit is a match with only the fields ordering looks at.
func hit(name string, score float64) trim.Match {
	return trim.Match{Filename: name, FilePath: "/kb/" + name, Score: score, Distance: 1 - score, Content: name + " text"}
}

// names lists the filenames of ms in order.
func names(ms []trim.Match) []string {
	var ns []string
	for _, m := range ms {
		ns = append(ns, m.Filename)
	}
	return ns
}

var _ = Describe("Vector", func() {
	It("matches its golden file", func() {
		golden("vector.txtar", "Vector.json", pretty(trim.Vector(matches(), 3)))
	})

	It("keeps the best three by score, ties in input order, without path and distance", func() {
		ms := matches()
		before := slices.Clone(ms)
		got := trim.Vector(ms, 3)
		Expect(ms).To(Equal(before), "the input was reordered or changed")
		Expect(got).To(Equal([]trim.Match{
			{Filename: "notation_keys.md", ChunkIndex: 0, Score: 0.83, Content: before[1].Content},
			{Filename: "gpc_scopes_primer.md", ChunkIndex: 4, Score: 0.71, Content: before[0].Content},
			{Filename: "gwp_ar5_ar6.md", ChunkIndex: 1, Score: 0.71, Content: before[3].Content},
		}))
		Expect(size(got)).To(BeNumerically("<", size(ms)))
	})

	DescribeTable("orders by score and cuts at topK",
		func(in []trim.Match, topK int, want []string) {
			got := trim.Vector(in, topK)
			Expect(names(got)).To(Equal(want))
			for _, m := range got {
				Expect(m.FilePath).To(BeEmpty())
				Expect(m.Distance).To(BeZero())
				Expect(m.Content).To(Equal(m.Filename + " text"))
			}
		},
		Entry("ties keep input order", []trim.Match{hit("a", 0.8), hit("b", 0.9), hit("c", 0.8), hit("d", 0.9)}, 3, []string{"b", "d", "a"}),
		Entry("topK above the number of matches", []trim.Match{hit("a", 0.6), hit("b", 0.7)}, 5, []string{"b", "a"}),
		Entry("topK of zero", []trim.Match{hit("a", 0.6)}, 0, nil),
		Entry("negative topK", []trim.Match{hit("a", 0.6)}, -1, nil),
		Entry("no matches", nil, 3, nil),
		Entry("a NaN score ranks last", []trim.Match{hit("nan", math.NaN()), hit("low", -1), hit("high", 0.9)}, 3, []string{"high", "low", "nan"}),
	)

	It("returns a slice that does not share memory with its input", func() {
		in := []trim.Match{hit("a", 0.9), hit("b", 0.8)}
		got := trim.Vector(in, 2)
		got[0].Content = "changed"
		got = append(got, hit("c", 0.1))
		Expect(got).To(HaveLen(3))
		Expect(in[0].Content).To(Equal("a text"))
		Expect(in).To(HaveLen(2))
	})
})
