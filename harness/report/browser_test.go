package report_test

import (
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
)

// chromium is the path of a Chromium to drive (Debian's chromium, which
// .ci/run installs); outside CI the spec skips when there is none.
func chromium() string {
	GinkgoHelper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		Fail("chromium is not installed; .ci/run installs it with apt-get")
	}
	Skip("chromium is not installed")
	return ""
}

// The HTML page is loaded in a real headless Chromium.
var _ = Describe("the HTML page in headless Chromium", Ordered, func() {
	var browser, dir string

	BeforeAll(func() {
		browser = chromium()
		dir = GinkgoT().TempDir()
	})

	// screenshot loads page in Chromium with every host name unresolvable,
	// writes a screenshot beside it, and returns the console messages.
	screenshot := func(page string) (shot string, console []string) {
		GinkgoHelper()
		shot = strings.TrimSuffix(page, ".html") + ".png"
		// A guard against a hung browser, not a performance limit.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
			"--user-data-dir="+filepath.Join(dir, "profile-"+filepath.Base(page)),
			"--host-resolver-rules=MAP * ~NOTFOUND", "--enable-logging=stderr", "--v=0",
			"--window-size=1200,1600", "--screenshot="+shot, "file://"+page)
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "chromium: %s", out)
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, ":CONSOLE") || strings.Contains(line, "net::ERR") {
				console = append(console, line)
			}
		}
		return shot, console
	}

	// paletteShare counts the pixels of a screenshot in each of the first
	// n chart colours.
	paletteShare := func(shot string, n int) []int {
		GinkgoHelper()
		f, err := os.Open(shot)
		Expect(err).NotTo(HaveOccurred())
		defer f.Close()
		img, err := png.Decode(f)
		Expect(err).NotTo(HaveOccurred())
		counts := make([]int, n)
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				hex := fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, bl>>8)
				for i := range n {
					if hex == report.Palette[i] {
						counts[i]++
					}
				}
			}
		}
		return counts
	}

	write := func(name, content string) string {
		GinkgoHelper()
		path := filepath.Join(dir, name)
		Expect(os.WriteFile(path, []byte(content), 0o644)).To(Succeed())
		return path
	}

	It("loads the committed baseline's page with no console errors and draws its charts", func() {
		f, err := os.Open("../../reports/baseline.json")
		Expect(err).NotTo(HaveOccurred())
		defer f.Close()
		r, err := report.ReadJSON(f)
		Expect(err).NotTo(HaveOccurred())
		page := write("baseline.html", string(render(report.WriteHTML, r)))

		shot, console := screenshot(page)
		Expect(console).To(BeEmpty())
		for i, n := range paletteShare(shot, 3) {
			Expect(n).To(BeNumerically(">", 500), "pixels in chart colour %s", report.Palette[i])
		}
	})

	It("sees a console error and missing charts when a page has them (control)", func() {
		page := write("broken.html", `<!DOCTYPE html><html><body><p>no charts</p><script>undefinedFunction()</script></body></html>`)
		shot, console := screenshot(page)
		Expect(console).To(ContainElement(ContainSubstring("undefinedFunction is not defined")))
		Expect(paletteShare(shot, 3)).To(Equal([]int{0, 0, 0}))
	})
})
