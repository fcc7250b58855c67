package cassette

import (
	"sort"
	"strings"
	"sync"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
)

// leaks runs gitleaks' default rules (its maintained rule set) on the parts
// of a text around their keywords. Run on a whole cassette, gitleaks tries
// every rule whose keyword appears anywhere over the whole text, and lines
// hold megabytes of response bodies: windows around each keyword find the
// same secrets many times faster. Every default rule with a regular
// expression has keywords.
type leaks struct {
	detector *detect.Detector
	keywords *ahocorasick.Trie
}

// How far around a keyword gitleaks looks: a secret is next to its keyword
// (the rules allow a name of up to 100 characters and a secret of a few
// hundred), except a PEM key's body, which runs to a few KiB after
// "-----BEGIN".
const (
	leakBefore   = 128
	leakAfter    = 1024
	leakAfterPEM = 8192
	pemKeyword   = "-----begin"
)

var loadLeaks = sync.OnceValues(func() (*leaks, error) {
	logging.Logger = logging.Logger.Level(zerolog.Disabled)
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		return nil, err
	}
	var words []string
	for _, r := range d.Config.Rules {
		for _, k := range r.Keywords {
			words = append(words, strings.ToLower(k))
		}
	}
	return &leaks{detector: d, keywords: ahocorasick.NewTrieBuilder().AddStrings(words).Build()}, nil
})

// find returns gitleaks' findings in text (lower is its ASCII lower-case
// copy), located in text.
func (l *leaks) find(text, lower string) []match {
	type span struct{ start, end int }
	var windows []span
	for _, m := range l.keywords.MatchString(lower) {
		after := leakAfter
		if string(m.Match()) == pemKeyword {
			after = leakAfterPEM
		}
		windows = append(windows, span{max(0, int(m.Pos())-leakBefore), min(len(text), int(m.Pos())+len(m.Match())+after)})
	}
	sort.Slice(windows, func(i, j int) bool { return windows[i].start < windows[j].start })
	var spans []span // the windows, overlapping ones merged
	for _, w := range windows {
		if n := len(spans); n > 0 && w.start <= spans[n-1].end {
			spans[n-1].end = max(spans[n-1].end, w.end)
			continue
		}
		spans = append(spans, w)
	}
	var out []match
	for _, sp := range spans {
		window := text[sp.start:sp.end]
		for _, f := range l.detector.DetectString(window) {
			if f.Secret == "" || notSecret(f.Secret) {
				continue
			}
			at := strings.Index(window, f.Secret)
			if at < 0 {
				at = 0
			}
			out = append(out, match{what: f.RuleID, text: mask(f.Secret), fix: fixKey, secret: f.Secret,
				start: sp.start + at, end: sp.start + at + len(f.Secret)})
		}
	}
	return out
}
