package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

// Screenshots is where the browser specs leave their screenshots, for a
// person to look at; the folder is ignored by git.
const screenshots = "../../reports/browser"

// A page driven in headless Chromium through the DevTools protocol
// (chromedp): its load time, its layout at a phone's width, its filters
// and its links.
var _ = Describe("the report page as a run viewer in headless Chromium", Ordered, func() {
	var browser context.Context
	var dir string

	BeforeAll(func() {
		dir = GinkgoT().TempDir()
		browser = startChromium(dir)
	})

	// tab opens a fresh tab for one spec; the timeout guards against a
	// hung browser, it is no performance limit.
	tab := func() context.Context {
		GinkgoHelper()
		t, cancel := chromedp.NewContext(browser)
		DeferCleanup(cancel)
		t, cancelT := context.WithTimeout(t, time.Minute)
		DeferCleanup(cancelT)
		return t
	}
	do := func(t context.Context, steps ...chromedp.Action[chromedp.Void]) {
		GinkgoHelper()
		Expect(chromedp.Do(t, steps...)).To(Succeed())
	}
	eval := func(t context.Context, script string) any {
		GinkgoHelper()
		v, err := chromedp.Run(t, chromedp.Evaluate[any](script))
		Expect(err).NotTo(HaveOccurred())
		return v
	}
	write := func(name string, page []byte) string {
		GinkgoHelper()
		path := filepath.Join(dir, name)
		Expect(os.WriteFile(path, page, 0o644)).To(Succeed())
		return "file://" + path
	}
	// shot saves a screenshot of what the window shows under screenshots.
	shot := func(t context.Context, name string) {
		GinkgoHelper()
		png, err := chromedp.Run(t, chromedp.CaptureScreenshot())
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(screenshots, name), png, 0o644)).To(Succeed())
		GinkgoWriter.Printf("screenshot %s\n", filepath.Join("reports/browser", name))
	}
	// overflow is how much wider than the window the page is.
	overflow := func(t context.Context) float64 {
		GinkgoHelper()
		return eval(t, `document.documentElement.scrollWidth - document.documentElement.clientWidth`).(float64)
	}

	// The load time is measured and reported (JUnit report entry, the
	// spec's output), not asserted: a wall-clock bound in a spec fails on a
	// busy machine, not on a slow page. docs/reports.md gives the figure.
	It("loads the whole committed report, and measures how long it takes", func() {
		page, err := filepath.Abs("../../reports/report.html")
		Expect(err).NotTo(HaveOccurred())
		info, err := os.Stat(page)
		Expect(err).NotTo(HaveOccurred())
		t := tab()
		do(t, chromedp.EmulateViewport(1200, 1600), chromedp.Navigate("file://"+page))
		loadMS := eval(t, `performance.getEntriesByType("navigation")[0].loadEventEnd`).(float64)
		AddReportEntry("committed report load", map[string]any{"bytes": info.Size(), "load_ms": loadMS})
		GinkgoWriter.Printf("reports/report.html (%d bytes) loaded in %.0f ms\n", info.Size(), loadMS)
		Expect(loadMS).To(BeNumerically(">", 0))
	})

	It("reads on a phone: no horizontal overflow at 390 px, every block opened", func() {
		f, err := os.Open("../../reports/baseline.json")
		Expect(err).NotTo(HaveOccurred())
		defer f.Close()
		r, err := report.ReadJSON(f)
		Expect(err).NotTo(HaveOccurred())
		// The committed suites' tables, and the fixture's traces with what
		// the model saw.
		r.Suites = append(r.Suites, viewerFixture().Suites...)
		t := tab()
		do(t, chromedp.EmulateViewport(390, 844), chromedp.Navigate(write("phone.html", render(report.WriteHTML, r))))
		Expect(eval(t, `document.documentElement.clientWidth`)).To(BeEquivalentTo(390))
		eval(t, `document.querySelectorAll("details").forEach(d => d.open = true)`)
		Expect(overflow(t)).To(BeZero(), "the body is wider than the phone's screen")

		t = tab()
		do(t, chromedp.EmulateViewport(390, 844), chromedp.Navigate(write("phone-fixture.html", render(report.WriteHTML, viewerFixture()))))
		eval(t, `document.querySelectorAll("details.variant, details.scenario, nav details").forEach(d => d.open = true)`)
		Expect(overflow(t)).To(BeZero())
		shot(t, "phone.png")
	})

	It("sees the overflow of a page wider than a phone (control)", func() {
		t := tab()
		do(t, chromedp.EmulateViewport(390, 844), chromedp.Navigate(write("wide.html",
			[]byte(`<!DOCTYPE html><meta name="viewport" content="width=device-width"><div style="width:900px">wide</div>`))))
		Expect(overflow(t)).To(BeNumerically(">", 0))
	})

	DescribeTable("filters the traces in the page",
		func(set string, want []string) {
			t := tab()
			do(t, chromedp.Navigate(write("filters.html", render(report.WriteHTML, viewerFixture()))))
			if set != "" {
				eval(t, setFilter(set))
			}
			Expect(eval(t, `Array.from(document.querySelectorAll("details.scenario:not([hidden])"), d => d.id)`)).To(BeEquivalentTo(toAny(want)))
			Expect(eval(t, `document.querySelector("form.filters output").textContent`)).To(Equal(fmt.Sprintf("%d of 7 scenario runs shown", len(want))))
		},
		Entry("none: every run", ``, []string{
			"odbchat-legacy-ac1-taiwan-sst", "odbchat-legacy-ac2-kuroshio-trend", "odbchat-legacy-ac3-docs-howto",
			"odbchat-single-pass-ac1-taiwan-sst", "odbchat-single-pass-ac2-kuroshio-trend", "odbchat-single-pass-ac3-docs-howto",
			"climate-trimmed-c1-rainfall"}),
		Entry("verdict not pass", `f.verdict.value = "not-pass"`, []string{
			"odbchat-single-pass-ac2-kuroshio-trend", "odbchat-single-pass-ac3-docs-howto"}),
		Entry("verdict stale", `f.verdict.value = "stale"`, []string{"odbchat-single-pass-ac3-docs-howto"}),
		Entry("route changed", `f.route.click()`, []string{
			"odbchat-single-pass-ac2-kuroshio-trend", "odbchat-single-pass-ac3-docs-howto"}),
		Entry("budget violated", `f.budget.click()`, []string{"odbchat-single-pass-ac1-taiwan-sst"}),
		Entry("text in the messages the model saw", `f.q.value = "pelagic"`, []string{"odbchat-legacy-ac1-taiwan-sst"}),
		Entry("text and verdict together", `f.q.value = "GHRSST"; f.verdict.value = "fail"`, []string{
			"odbchat-single-pass-ac2-kuroshio-trend"}),
	)

	It("draws what the model saw when its block is opened", func() {
		t := tab()
		do(t, chromedp.EmulateViewport(1200, 1600), chromedp.Navigate(write("seen.html", render(report.WriteHTML, viewerFixture()))))
		const block = `#odbchat-legacy-ac1-taiwan-sst details.seen-calls`
		Expect(eval(t, `document.querySelectorAll("`+block+` div.msgs details").length`)).To(BeEquivalentTo(0))
		// Follow a link to the run, then click the block open.
		eval(t, `location.hash = "odbchat-legacy-ac1-taiwan-sst"`)
		Eventually(func() (bool, error) {
			return chromedp.Run(t, chromedp.Evaluate[bool](`document.querySelector("#odbchat-legacy-ac1-taiwan-sst").open`))
		}).Should(BeTrue())
		do(t, chromedp.Click(chromedp.CSS(block+" > summary")))
		Eventually(func() (string, error) {
			return chromedp.Run(t, chromedp.Evaluate[string](`Array.from(document.querySelectorAll("`+block+` div.msgs details"),
				d => d.querySelector(".msg-role").textContent + ": " + d.querySelector("pre").textContent).join(" | ")`))
		}).Should(Equal(`user: PELAGIC sea surface temperature around Taiwan? | answer: → ghrsst.bbox_mean {"bbox":[118,20,123.5,26.5]}`))
		eval(t, `document.querySelector("`+block+`").scrollIntoView()`)
		shot(t, "model-saw.png")
	})

	It("follows a link to a system prompt shown in another run's block, drawing and opening it", func() {
		t := tab()
		do(t, chromedp.EmulateViewport(1200, 1600), chromedp.Navigate(write("seen-link.html", render(report.WriteHTML, viewerFixture()))))
		eval(t, `location.hash = "odbchat-legacy-ac2-kuroshio-trend"`)
		do(t, chromedp.Click(chromedp.CSS(`#odbchat-legacy-ac2-kuroshio-trend details.seen-calls > summary`)))
		const target = "odbchat-legacy-ac1-taiwan-sst-odbchat-legacy-ac1-taiwan-sst-call-1-system"
		Expect(eval(t, `document.getElementById("`+target+`")`)).To(BeNil(), "drawn only when needed")
		do(t, chromedp.Click(chromedp.CSS(`#odbchat-legacy-ac2-kuroshio-trend a[href="#`+target+`"]`)))
		Eventually(func() (string, error) {
			return chromedp.Run(t, chromedp.Evaluate[string](`(() => {
				const d = document.getElementById("`+target+`");
				return d && d.open && d.checkVisibility() ? d.querySelector("pre").textContent : "";
			})()`))
		}).Should(Equal("You route ocean questions."))
		shot(t, "model-saw-link.png")
	})

	It("links the FAIL banner to the failing runs and opens the one followed", func() {
		t := tab()
		do(t, chromedp.EmulateViewport(1200, 1600), chromedp.Navigate(write("links.html", render(report.WriteHTML, viewerFixture()))),
			chromedp.Click(chromedp.CSS(`p.result a`)),
			chromedp.Click(chromedp.CSS(`#failures a[href="#odbchat-single-pass-ac2-kuroshio-trend"]`)))
		// hashchange is handled after the click returns.
		Eventually(func() (bool, error) {
			return chromedp.Run(t, chromedp.Evaluate[bool](`document.getElementById("odbchat-single-pass-ac2-kuroshio-trend").open`))
		}).Should(BeTrue())
		Expect(eval(t, `document.getElementById("odbchat-single-pass-ac3-docs-howto").open`)).To(BeFalse())
		shot(t, "failure-link.png")
	})
})

var _ = Describe("the comparison page in headless Chromium", Ordered, func() {
	var browser context.Context
	var page string

	BeforeAll(func() {
		dir := GinkgoT().TempDir()
		browser = startChromium(dir)
		var buf bytes.Buffer
		Expect(report.WriteComparisonHTML(&buf, []report.Comparison{comparedFixture()}, report.CompareFilter{})).To(Succeed())
		page = filepath.Join(dir, "compare.html")
		Expect(os.WriteFile(page, buf.Bytes(), 0o644)).To(Succeed())
	})

	It("draws a scenario's steps side by side", func() {
		t, cancel := chromedp.NewContext(browser)
		defer cancel()
		Expect(chromedp.Do(t, chromedp.EmulateViewport(1000, 1400), chromedp.Navigate("file://"+page+"#s-old-new-moved"))).To(Succeed())
		png, err := chromedp.Run(t, chromedp.Screenshot(chromedp.CSS("#s-old-new-moved")))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(screenshots, "compare.png"), png, 0o644)).To(Succeed())
		// Base and head cells of one step sit side by side: same top, head to the right.
		pos, err := chromedp.Run(t, chromedp.Evaluate[[]any](`(() => {
			const row = document.querySelector("#s-old-new-moved tr.step-changed");
			const [b, h] = [row.cells[1].getBoundingClientRect(), row.cells[2].getBoundingClientRect()];
			return [b.top, h.top, b.right <= h.left];
		})()`))
		Expect(err).NotTo(HaveOccurred())
		Expect(pos[0]).To(Equal(pos[1]))
		Expect(pos[2]).To(BeTrue())
	})

	It("reads on a phone without horizontal overflow", func() {
		t, cancel := chromedp.NewContext(browser)
		defer cancel()
		Expect(chromedp.Do(t, chromedp.EmulateViewport(390, 844), chromedp.Navigate("file://"+page))).To(Succeed())
		_, err := chromedp.Run(t, chromedp.Evaluate[any](`document.querySelectorAll("details").forEach(d => d.open = true)`))
		Expect(err).NotTo(HaveOccurred())
		over, err := chromedp.Run(t, chromedp.Evaluate[float64](`document.documentElement.scrollWidth - document.documentElement.clientWidth`))
		Expect(err).NotTo(HaveOccurred())
		Expect(over).To(BeZero())
		png, err := chromedp.Run(t, chromedp.CaptureScreenshot())
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(screenshots, "compare-phone.png"), png, 0o644)).To(Succeed())
	})
})

// startChromium starts a headless Chromium, with its profile under dir and
// every host name unresolvable, for the specs of one container; it also
// makes the screenshots folder.
func startChromium(dir string) context.Context {
	GinkgoHelper()
	path := chromium()
	Expect(os.MkdirAll(screenshots, 0o755)).To(Succeed())
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.UserDataDir(filepath.Join(dir, "profile")))...)
	DeferCleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(alloc)
	DeferCleanup(cancel)
	Expect(chromedp.Do(ctx)).To(Succeed()) // start the browser once
	return ctx
}

// setFilter is script that sets the page's filter form f as body says and
// tells the page, as typing or choosing in it does.
func setFilter(body string) string {
	return `(() => { const f = document.querySelector("form.filters"); ` + body + `; f.dispatchEvent(new Event("input", {bubbles: true})); })()`
}

// toAny is ids as a JSON array decodes into an any.
func toAny(ids []string) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

// viewerFixture is the fixture with what the router of legacy's
// ac1-taiwan-sst was sent (a word only there: PELAGIC), a call of legacy's
// ac2-kuroshio-trend sent the same system prompt, and a failed latency
// budget on single-pass's ac1-taiwan-sst.
func viewerFixture() *report.Report {
	r := fixture()
	odb := &r.Suites[0]
	for vi := range odb.Variants {
		v := &odb.Variants[vi]
		for si := range v.Scenarios {
			sc := &v.Scenarios[si]
			switch {
			case v.Name == "legacy" && sc.ID == "ac1-taiwan-sst":
				events := append([]trace.Event(nil), sc.Events...)
				llmCall := *events[0].LLM
				llmCall.Prompt = &trace.Prompt{
					Messages: []llm.Message{{Role: "system", Content: "You route ocean questions."}, {Role: "user", Content: "PELAGIC sea surface temperature around Taiwan?"}},
					Tools:    []llm.Tool{{Name: "ghrsst.bbox_mean", Description: "Mean SST over a box.", Parameters: json.RawMessage(`{"type":"object"}`)}},
				}
				events[0].LLM = &llmCall
				sc.Events = events
			case v.Name == "legacy" && sc.ID == "ac2-kuroshio-trend":
				sc.Events = []trace.Event{{Kind: trace.KindLLM, LLM: &trace.LLMCall{Role: "router", Model: "gemma3:4b", Text: "point series",
					Prompt: &trace.Prompt{Messages: []llm.Message{{Role: "system", Content: "You route ocean questions."}, {Role: "user", Content: "Kuroshio trend?"}}}}}}
			case v.Name == "single-pass" && sc.ID == "ac1-taiwan-sst":
				sc.Checks = append(append([]report.Check(nil), sc.Checks...), report.Check{Turn: 1, Name: "budget.latency", Pass: false, Detail: "902 ms over 800 ms"})
			}
		}
	}
	return r
}
