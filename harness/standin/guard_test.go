package standin_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/scenario"
)

// guardMinRun is the shortest stretch of a committed scenario input that
// may not appear in the stand-in's code.
const guardMinRun = 20

var guardSpace = regexp.MustCompile(`\s+`)

// guardFold lowercases s and collapses its whitespace, so that a phrase
// matches however it is wrapped or capitalised.
func guardFold(s string) string {
	return strings.TrimSpace(guardSpace.ReplaceAllString(strings.ToLower(s), " "))
}

// committedInputs returns every user input of every committed suite under
// dir, by "suite/scenario".
func committedInputs(dir string) map[string][]string {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	Expect(err).NotTo(HaveOccurred())
	Expect(files).NotTo(BeEmpty())
	out := map[string][]string{}
	for _, f := range files {
		s, err := scenario.Load(f, scenario.LoadOptions{})
		Expect(err).NotTo(HaveOccurred(), f)
		for _, sc := range s.Scenarios {
			for _, t := range sc.Turns {
				if in := guardFold(t.Input); in != "" {
					out[s.Name+"/"+sc.ID] = append(out[s.Name+"/"+sc.ID], in)
				}
			}
		}
	}
	return out
}

// standinSource returns the stand-in's non-test Go source, every
// subpackage's at any depth (policy, lexicon, seeds/..., generic, judge,
// instruct) included, folded, by file.
func standinSource() map[string]string {
	out := map[string]string{}
	err := filepath.WalkDir(".", func(f string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") {
			return err
		}
		b, err := os.ReadFile(f)
		out[f] = guardFold(string(b))
		return err
	})
	Expect(err).NotTo(HaveOccurred())
	Expect(out).NotTo(BeEmpty())
	return out
}

// leaks returns, for one input, each file that holds the whole input or a
// stretch of guardMinRun characters or more of it, with the longest such
// stretch. An input shorter than guardMinRun counts whole, when it has more
// than one word: a one-word input ("hi") is in any code.
func leaks(input string, src map[string]string) []string {
	runes := []rune(input)
	var found []string
	for _, f := range slices.Sorted(func(yield func(string) bool) {
		for k := range src {
			if !yield(k) {
				return
			}
		}
	}) {
		code := src[f]
		if len(runes) < guardMinRun {
			if strings.Contains(code, input) && strings.ContainsAny(input, " ") {
				found = append(found, fmt.Sprintf("%s holds the whole input %q", f, input))
			}
			continue
		}
		// Any stretch of guardMinRun runes that appears: report the longest
		// run of such windows.
		best := ""
		for i := 0; i+guardMinRun <= len(runes); i++ {
			if !strings.Contains(code, string(runes[i:i+guardMinRun])) {
				continue
			}
			j := i + guardMinRun
			for j < len(runes) && strings.Contains(code, string(runes[i:j+1])) {
				j++
			}
			if j-i > len([]rune(best)) {
				best = string(runes[i:j])
			}
		}
		if best != "" {
			found = append(found, fmt.Sprintf("%s holds %q", f, best))
		}
	}
	return found
}

// A stand-in tuned to its test set makes every routing figure look better
// than it is: no committed scenario's input, nor any 20-character stretch
// of one, may appear in the stand-in's code.
var _ = Describe("the stand-in's code", func() {
	It("holds no committed scenario input nor a 20-character stretch of one", func() {
		src := standinSource()
		var violations []string
		inputs := committedInputs(filepath.Join("..", "..", "scenarios"))
		for _, id := range slices.Sorted(func(yield func(string) bool) {
			for k := range inputs {
				if !yield(k) {
					return
				}
			}
		}) {
			for _, in := range inputs[id] {
				for _, l := range leaks(in, src) {
					violations = append(violations, id+": "+l)
				}
			}
		}
		Expect(violations).To(BeEmpty(), "%d violations:\n%s", len(violations), strings.Join(violations, "\n"))
	})

	It("finds a planted stretch", func() {
		src := map[string]string{"x.go": guardFold(`cue := "Where Am I   right now, please?"`)}
		Expect(leaks(guardFold("so, where am i right now, please? thanks"), src)).To(ConsistOf(ContainSubstring(`"where am i right now, please?"`)))
		Expect(leaks(guardFold("where am i"), map[string]string{"x.go": "where am i"})).To(HaveLen(1))
		Expect(leaks(guardFold("nothing like it at all in the code"), src)).To(BeEmpty())
	})
})
