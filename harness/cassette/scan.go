package cassette

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/agentreplay/testbed/harness/files"
)

// Finding is something in a cassette that looks like a secret.
type Finding struct {
	Path string
	Line int
	What string // which rule matched
	Text string // the match, masked: a recognisable prefix and the last four characters at most
	Fix  string // what to do about it
}

// String formats f as "path:line: what text: fix".
func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: %s %s: %s", f.Path, f.Line, f.What, f.Text, f.Fix)
}

// KeyVariables returns the provider key variables whose values must never
// appear in a cassette. The CLI adds the agents' own (agents.Info.Keys and
// Secrets).
func KeyVariables() []string {
	return []string{"OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "AZURE_OPENAI_API_KEY"}
}

// PlaceholderKey is the key the harness gives SDKs that insist on one when
// no real key is used (replays and stand-ins). It is not a secret.
const PlaceholderKey = "testbed-placeholder-key"

// notSecret reports whether a matched value is one of the harness's own
// stand-ins for a secret rather than a secret.
func notSecret(v string) bool {
	return strings.Contains(v, Redacted) || strings.Contains(v, PlaceholderKey)
}

// Scan looks for secrets in every .yaml file under root, hidden ones
// included: gitleaks' maintained rule set (JWTs, cloud, chat and payment
// keys, private keys, …), our rules for what cassettes hold (bearer tokens,
// credentials in URLs, key= parameters, credential fields in JSON, request
// headers named like credentials and not redacted), the literal values of
// the given secrets (values shorter than 8 bytes are ignored) and values
// given to the named variables (HA_TOKEN=…). Each line is also scanned as
// decoded: JSON escapes (as many times as they nest), base64 runs and gzip
// inside them. Files are
// read whole, without a line length limit; a file that cannot be read (not
// a regular file, over files.MaxBytes) is an error naming it, and the other
// files are still scanned. REDACTED and PlaceholderKey are not secrets.
// Findings are masked and sorted by path and line.
func Scan(root string, secrets []string, names ...string) ([]Finding, error) {
	return ScanContext(context.Background(), root, secrets, names...)
}

// ScanContext is Scan that stops when ctx ends: no file is started after
// that, and it returns what it found with ctx's error.
func ScanContext(ctx context.Context, root string, secrets []string, names ...string) ([]Finding, error) {
	d, err := NewDetector(secrets, names, nil)
	if err != nil {
		return nil, err
	}
	return d.ScanContext(ctx, root)
}

// Scan is the package's Scan with d's rules: its literal values, names and
// the suite's own rules besides the maintained ones. Streamed bodies are
// also scanned as their client reassembles them.
func (d *Detector) Scan(root string) ([]Finding, error) {
	return d.ScanContext(context.Background(), root)
}

// ScanContext is Scan that stops when ctx ends: no file is started after
// that, and it returns what it found with ctx's error.
func (d *Detector) ScanContext(ctx context.Context, root string) ([]Finding, error) {
	sc := d.sc
	var paths []string
	walkErr := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".yaml") {
			paths = append(paths, path)
		}
		return nil
	})
	var (
		mu   sync.Mutex
		out  []Finding
		errs = []error{walkErr}
		g    errgroup.Group
	)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, path := range paths {
		g.Go(func() error {
			if ctx.Err() != nil {
				return nil
			}
			found, err := sc.file(path)
			mu.Lock()
			defer mu.Unlock()
			out = append(out, found...)
			errs = append(errs, err)
			return nil
		})
	}
	g.Wait()
	if err := ctx.Err(); err != nil {
		errs = append(errs, err)
	}
	slices.SortStableFunc(out, func(a, b Finding) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line))
	})
	return out, errors.Join(errs...)
}

// scanner holds what Scan looks for besides its rules.
type scanner struct {
	values []string         // literal secret values
	names  []*regexp.Regexp // NAME=value, NAME: value, "NAME": "value"
	// lowerNames are the names, lower case: a text without one is not
	// matched against its expression.
	lowerNames []string
	patterns   []*regexp.Regexp // a suite's own redact: patterns
	leaks      *leaks
}

func newScanner(secrets, names []string, patterns []*regexp.Regexp) (*scanner, error) {
	l, err := loadLeaks()
	if err != nil {
		return nil, err
	}
	sc := &scanner{leaks: l, patterns: patterns}
	for _, s := range secrets {
		if len(s) >= 8 && !notSecret(s) {
			sc.values = append(sc.values, s)
		}
	}
	for _, n := range names {
		sc.lowerNames = append(sc.lowerNames, strings.ToLower(n))
		sc.names = append(sc.names, regexp.MustCompile(`\b(`+regexp.QuoteMeta(n)+`)\\?["']?\s*[:=]\s*\\?["']?([^\s"'\\,&;]{4,})`))
	}
	return sc, nil
}

// file scans the file at path.
func (sc *scanner) file(path string) ([]Finding, error) {
	data, err := files.ReadRegular(path, files.MaxBytes)
	if err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	return sc.fileText(path, string(data)), nil
}

// fileText scans text, the content of the file at path.
func (sc *scanner) fileText(path, text string) []Finding {
	lines := lineStarts(text)
	var out []Finding
	seen := map[[2]string]bool{} // line and secret decoded, so a decoded view does not repeat the raw one
	add := func(line int, m match) {
		key := [2]string{fmt.Sprint(line), unescapeAll(m.secret)}
		if seen[key] {
			return
		}
		seen[key] = true
		out = append(out, Finding{Path: path, Line: line, What: m.what, Text: m.text, Fix: m.fix})
	}
	for _, m := range sc.text(text) {
		add(lineOf(lines, m.start), m)
	}
	for n, start := range lines {
		end := len(text)
		if n+1 < len(lines) {
			end = lines[n+1]
		}
		line := text[start:end]
		for _, view := range decodedViews(line) {
			for _, m := range sc.text(view.text) {
				m.what += " (" + view.how + ")"
				add(n+1, m)
			}
		}
	}
	for _, b := range binaryBodies(text, lines) {
		for _, m := range sc.text(b.text) {
			m.what += " (binary body, decoded)"
			add(b.line, m)
		}
	}
	for _, m := range sc.streams(text) {
		m.m.what += " (streamed, reassembled)"
		add(m.line, m.m)
	}
	// A header's value already found by a rule is not reported twice.
	onLine := map[int]bool{}
	for _, f := range out {
		onLine[f.Line] = true
	}
	for _, h := range headerFindings(text, lines) {
		if n := lineOf(lines, h.start); !onLine[n] {
			add(n, h)
		}
	}
	slices.SortStableFunc(out, func(a, b Finding) int { return cmp.Compare(a.Line, b.Line) })
	return out
}

// lineStarts returns the offset at which each line of text starts.
func lineStarts(text string) []int {
	out := []int{0}
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 || i+j+1 >= len(text) {
			return out
		}
		i += j + 1
		out = append(out, i)
	}
}

// lineOf is the 1-based line holding offset.
func lineOf(starts []int, offset int) int {
	return sort.Search(len(starts), func(i int) bool { return starts[i] > offset })
}

// match is one secret found in a text.
type match struct {
	what, text, fix string
	secret          string // unmasked, to tell findings apart
	start, end      int
}

// text applies everything to one text (a file or a decoded line): the
// literal values, gitleaks' rules, our rules and the named variables. A
// later match overlapping an earlier one is the same secret.
func (sc *scanner) text(text string) []match {
	lower := asciiLower(text)
	var found []match
	keep := func(m match) {
		for _, f := range found {
			if m.start < f.end && f.start < m.end {
				return
			}
		}
		found = append(found, m)
	}
	for _, s := range sc.values {
		for off := 0; ; {
			i := strings.Index(text[off:], s)
			if i < 0 {
				break
			}
			keep(match{what: "value of a key variable", text: mask(s), fix: fixEnv, secret: s, start: off + i, end: off + i + len(s)})
			off += i + len(s)
		}
	}
	// gitleaks' named rules (github-pat, jwt) say most; ours name what
	// cassettes hold better than its generic one does.
	leaked := sc.leaks.find(text, lower)
	generic := func(m match) bool { return strings.HasPrefix(m.what, "generic") }
	for _, m := range leaked {
		if !generic(m) {
			keep(m)
		}
	}
	for _, m := range ourRules(text, lower) {
		keep(m)
	}
	for _, re := range sc.patterns {
		for _, loc := range re.FindAllStringSubmatchIndex(text, -1) {
			s, e := loc[0], loc[1]
			if len(loc) >= 4 && loc[2] >= 0 {
				s, e = loc[2], loc[3]
			}
			if v := text[s:e]; v != "" && !notSecret(v) {
				keep(match{what: "redact: rule " + re.String(), text: mask(v), fix: fixRedacted, secret: v, start: s, end: e})
			}
		}
	}
	for k, re := range sc.names {
		if !strings.Contains(lower, sc.lowerNames[k]) {
			continue
		}
		for _, loc := range re.FindAllStringSubmatchIndex(text, -1) {
			v := text[loc[4]:loc[5]]
			if notSecret(v) {
				continue
			}
			keep(match{what: "value of " + text[loc[2]:loc[3]], text: text[loc[2]:loc[3]] + "=" + mask(v), fix: fixRedacted, secret: v, start: loc[4], end: loc[5]})
		}
	}
	for _, m := range leaked {
		if generic(m) {
			keep(m)
		}
	}
	// A secret found once is a secret wherever else the text holds it
	// (gitleaks reports a secret once a line).
	for _, m := range slices.Clone(found) {
		if len(m.secret) < 8 || text[m.start:m.end] != m.secret {
			continue
		}
		for off := 0; ; {
			i := strings.Index(text[off:], m.secret)
			if i < 0 {
				break
			}
			again := m
			again.start, again.end = off+i, off+i+len(m.secret)
			keep(again)
			off = again.end
		}
	}
	slices.SortStableFunc(found, func(a, b match) int { return cmp.Compare(a.start, b.start) })
	return found
}

// headerLine matches a YAML mapping key that names a request or response
// header, alone on its line (go-vcr writes the values below it) or with a
// flow sequence of values, in a block or a flow mapping.
var headerLine = regexp.MustCompile(`(?:^[ \t]*|[{,][ \t]*)([A-Za-z0-9-]+):[ \t]*(?:\[([^\]]*)\]|$)`)

// headerFindings finds headers named like credentials (Authorization,
// X-Portkey-Api-Key, Cookie) whose values are not REDACTED. Header lines
// are short and name a credential word; only those are matched.
func headerFindings(text string, starts []int) []match {
	var out []match
	for n, start := range starts {
		end := len(text)
		if n+1 < len(starts) {
			end = starts[n+1]
		}
		line := strings.TrimRight(text[start:end], "\r\n")
		if len(line) > 4096 || !isSecretHeader(line) {
			continue
		}
		for _, loc := range headerLine.FindAllStringSubmatchIndex(line, -1) {
			name := line[loc[2]:loc[3]]
			if !isSecretHeader(name) {
				continue
			}
			var values []string
			at := start
			if loc[4] >= 0 {
				for _, v := range strings.Split(line[loc[4]:loc[5]], ",") {
					values = append(values, unquote(v))
				}
			} else if n+1 < len(starts) {
				// go-vcr's block sequence: "- value" lines below.
				at = starts[n+1]
				for k := n + 1; k < len(starts); k++ {
					l := text[starts[k]:]
					if k+1 < len(starts) {
						l = text[starts[k]:starts[k+1]]
					}
					v, ok := strings.CutPrefix(strings.TrimSpace(l), "- ")
					if !ok {
						break
					}
					values = append(values, unquote(v))
				}
			}
			for _, v := range values {
				if v != "" && !notSecret(v) {
					out = append(out, match{what: "unredacted " + name + " header", text: mask(v), fix: fixRedacted, secret: v, start: at, end: at + 1})
				}
			}
		}
	}
	return out
}
