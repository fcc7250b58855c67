package main

import (
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/fatih/color"
	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
)

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// showProgress reports whether a command draws a progress bar on stderr:
// only on a terminal, without --quiet, and not under CI (ci is the CI
// variable's value; see ciSet).
func showProgress(terminal, quiet bool, ci string) bool {
	return terminal && !quiet && !ciSet(ci)
}

// useColour reports whether verdicts are coloured on stdout: only on a
// terminal, without --no-color, and with NO_COLOR unset or empty (any other
// value turns colour off, as no-color.org asks).
func useColour(terminal, noColorFlag bool, noColorEnv string) bool {
	return terminal && !noColorFlag && noColorEnv == ""
}

// progress is the runner's progress callback for sel: a bar on stderr with
// the counts, the rate and the time left, or nil (no bar) when showProgress
// says so.
func progress(sel selection, stderr io.Writer) func(done, total int, suite, variant, id string) {
	if !showProgress(isTerminal(stderr), sel.quiet, os.Getenv("CI")) {
		return nil
	}
	return newBar(stderr, 100*time.Millisecond)
}

// newBar returns a progress callback drawing on w (redrawn at most every
// throttle), made when the first call says how many runs there are and
// cleared when the last is done.
func newBar(w io.Writer, throttle time.Duration) func(done, total int, suite, variant, id string) {
	var bar *progressbar.ProgressBar
	return func(done, total int, suite, variant, id string) {
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetWidth(20),
				progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionShowDescriptionAtLineEnd(),
				progressbar.OptionSetItsString("runs"), progressbar.OptionShowIts(), progressbar.OptionThrottle(throttle),
				progressbar.OptionClearOnFinish(), progressbar.OptionUseANSICodes(true))
		}
		bar.Describe(suite + "/" + variant + "/" + id)
		_ = bar.Set(done) // writes to a terminal: nothing to do on an error
		if done == total {
			_ = bar.Finish()
		}
	}
}

// verdictWord is a verdict as the text reports print it: a word, a mark,
// or the run's last line.
var verdictWord = regexp.MustCompile(`(?m)^(?:PASS|FAIL): .*$|\b(?:PASS|FAIL|STALE|ERROR)\b|[✓✗]`)

// paint colours the verdicts in text printed for a terminal: PASS and ✓
// green, FAIL, ERROR and ✗ red, STALE yellow, and the verdict line (starting
// "PASS: " or "FAIL: ") whole and bold. Colour adds no width, so tables
// stay aligned.
func paint(text string) string {
	return verdictWord.ReplaceAllStringFunc(text, func(m string) string {
		var attrs []color.Attribute
		switch {
		case strings.HasPrefix(m, "PASS"), m == "✓":
			attrs = append(attrs, color.FgGreen)
		case m == "STALE":
			attrs = append(attrs, color.FgYellow)
		default:
			attrs = append(attrs, color.FgRed)
		}
		if strings.Contains(m, ": ") {
			attrs = append(attrs, color.Bold)
		}
		c := color.New(attrs...)
		c.EnableColor() // useColour has decided; the library's own guess is not asked
		return c.Sprint(m)
	})
}

// coloured is w with its verdicts coloured when sel prints text and
// useColour says so, else w.
func coloured(sel selection, w io.Writer) io.Writer {
	if sel.json || !useColour(isTerminal(w), sel.noColor, os.Getenv("NO_COLOR")) {
		return w
	}
	return painter{w}
}

// painter writes to w with its verdicts coloured (see paint). Each Write
// must hold whole lines, as the report writers' do.
type painter struct{ w io.Writer }

func (p painter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, paint(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}
