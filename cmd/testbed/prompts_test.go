package main

import (
	"encoding/json"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("run --prompts and the HTML report's what the model saw", func() {
	It("keeps each model call's messages and tools in latest.json, and the page shows them", func() {
		out := GinkgoT().TempDir()
		args := []string{"run", "--root", repoRoot, "--suite", "cba", "--variant", "full", "--scenario", "weather-now-nairobi",
			"--quiet", "--no-baseline", "--out", out}
		r := testbed(append(args, "--prompts")...)
		Expect(r.code).To(Equal(exitOK), r.String())
		data, err := os.ReadFile(filepath.Join(out, "latest.json"))
		Expect(err).NotTo(HaveOccurred())
		var rep struct {
			Suites []struct {
				Variants []struct {
					Scenarios []struct {
						Events []struct {
							LLM *struct {
								Prompt *struct {
									Messages []struct{ Role, Content string }
									Tools    []struct{ Name string }
								}
							}
						}
					}
				}
			}
		}
		Expect(json.Unmarshal(data, &rep)).To(Succeed())
		var roles, tools []string
		for _, e := range rep.Suites[0].Variants[0].Scenarios[0].Events {
			if e.LLM != nil {
				Expect(e.LLM.Prompt).NotTo(BeNil())
				for _, m := range e.LLM.Prompt.Messages {
					roles = append(roles, m.Role)
				}
				for _, t := range e.LLM.Prompt.Tools {
					tools = append(tools, t.Name)
				}
			}
		}
		Expect(roles).To(HaveExactElements("system", "user", "system", "user", "assistant", "tool")) // two calls
		Expect(tools).To(ContainElement("get_current_weather"))

		page := filepath.Join(out, "report.html")
		Expect(testbed("report", "--html", page, filepath.Join(out, "latest.json")).code).To(Equal(exitOK))
		html, err := os.ReadFile(page)
		Expect(err).NotTo(HaveOccurred())
		// What the model saw is data in the page, drawn when opened.
		Expect(string(html)).To(ContainSubstring("what the model saw (2 calls)</summary>"))
		Expect(string(html)).To(ContainSubstring(`"earlier":"the first 2 messages: as call 1"`))
		Expect(string(html)).To(ContainSubstring(`"tools":[{"name":"get_current_weather"`))
		Expect(string(html)).To(MatchRegexp(`"system":"[^"]{20,}`))

		Expect(testbed(args...).code).To(Equal(exitOK))
		data, err = os.ReadFile(filepath.Join(out, "latest.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).NotTo(ContainSubstring(`"prompt"`), "without --prompts")
	})
})

var _ = Describe("show --json and what the model saw", func() {
	It("carries each model call's whole prompt, the data the HTML report draws", func() {
		r := testbed("show", "cba/full/weather-now-nairobi", "--root", repoRoot, "--json")
		Expect(r.code).To(Equal(exitOK), r.String())
		var got struct {
			Events []struct {
				LLM *struct {
					Prompt *struct {
						Messages []struct{ Role string }
						Tools    []struct{ Name string }
					}
				}
			}
		}
		Expect(json.Unmarshal([]byte(r.stdout), &got)).To(Succeed())
		calls := 0
		for _, e := range got.Events {
			if e.LLM != nil {
				calls++
				Expect(e.LLM.Prompt).NotTo(BeNil())
				Expect(e.LLM.Prompt.Messages[0].Role).To(Equal("system"))
				Expect(e.LLM.Prompt.Tools).NotTo(BeEmpty())
			}
		}
		Expect(calls).To(Equal(2))
	})
})
