package scenario_test

import (
	"os"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/harness/scenario"
)

var (
	heading = regexp.MustCompile("^### (?:`([^`]*)`|(.+))$")
	keyRow  = regexp.MustCompile("^\\| `([^`]+)` \\|")
)

// documented reads the reference page at path: the keys of each "### "
// section's table by the section's name (in backticks, or top for
// "### Top level"), checking that no section repeats.
func documented(path string) map[string][]string {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	out := map[string][]string{}
	section, in := "", false
	for _, line := range strings.Split(string(data), "\n") {
		if m := heading.FindStringSubmatch(line); m != nil {
			section, in = m[1], true
			if m[2] == "Top level" {
				section = ""
			}
			Expect(out).NotTo(HaveKey(section), "%s: section %q twice", path, section)
			out[section] = []string{}
			continue
		}
		if m := keyRow.FindStringSubmatch(line); m != nil && in {
			out[section] = append(out[section], m[1])
		}
	}
	return out
}

var _ = Describe("the reference pages", func() {
	It("docs/suite-format.md lists exactly the keys the loader accepts, block by block", func() {
		doc := documented("../../docs/suite-format.md")
		keys := scenario.Keys()
		Expect(keys).To(HaveKey(""))
		Expect(keys[""]).To(ContainElements("suite", "agent", "clock", "scenarios"))
		for block, allowed := range keys {
			Expect(doc).To(HaveKey(block), "docs/suite-format.md has no section ### `%s`", block)
			Expect(doc[block]).To(ConsistOf(allowed), "docs/suite-format.md, section %q: want the loader's keys", block)
		}
		for block := range doc {
			Expect(keys).To(HaveKey(block), "docs/suite-format.md documents a block %q the loader does not have", block)
		}
	})

	It("docs/agents-config.md lists exactly the config keys each built-in agent accepts", func() {
		doc := documented("../../docs/agents-config.md")
		for name, e := range all.Registry() {
			Expect(e.Info.Config).NotTo(BeEmpty(), name)
			Expect(doc).To(HaveKey(name), "docs/agents-config.md has no section ### `%s`", name)
			Expect(doc[name]).To(ConsistOf(e.Info.Config), "docs/agents-config.md, section %q: want the agent's config keys", name)
		}
		Expect(doc).To(HaveLen(len(all.Registry())), "a section for each built-in agent, no other")
	})
})
