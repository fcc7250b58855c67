package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agnivade/levenshtein"

	"github.com/agentreplay/testbed/harness/cost"
	"github.com/agentreplay/testbed/harness/files"
)

// selection is the flags that pick what to run.
type selection struct {
	root, suite, variant, scenario string
	prices                         string // --prices FILE
	json, quiet, tables, noColor   bool
	timeout                        time.Duration
}

// register adds the selection's flags to fs: every one, or only those
// named (root, suite, variant, scenario, json, tables, quiet, no-color,
// timeout, prices), the ones the command reads, so that its --help lists
// no flag it would ignore. --verbose comes with --tables.
func (s *selection) register(fs *flags, only ...string) {
	want := func(name string) bool { return len(only) == 0 || slices.Contains(only, name) }
	if want("root") {
		fs.StringVar(&s.root, "root", ".", "project folder holding scenarios/, cassettes/ and fixtures/")
	}
	if want("suite") {
		fs.Var(&once{p: &s.suite}, "suite", "run only this `suite`")
	}
	if want("variant") {
		fs.Var(&once{p: &s.variant}, "variant", "run only this `variant` (a replay runs the suite's baseline variant beside it: thresholds and deltas compare to it)")
	}
	if want("scenario") {
		fs.Var(&once{p: &s.scenario}, "scenario", "run only this `scenario` id")
	}
	if want("json") {
		fs.BoolVar(&s.json, "json", false, "print the report as JSON")
	}
	if want("tables") {
		fs.BoolVar(&s.tables, "tables", false, "print every table (per scenario, cost, tokens by part, roles, routing, trimming) instead of one line per suite and variant; reports/latest-full.md has them always")
		fs.BoolVar(&s.tables, "verbose", false, "the same as --tables")
	}
	if want("quiet") {
		fs.BoolVar(&s.quiet, "quiet", false, "no progress bar on stderr (there is none either when stderr is not a terminal or CI is set)")
	}
	if want("no-color") {
		fs.BoolVar(&s.noColor, "no-color", false, "no colour in the verdicts (there is none either when stdout is not a terminal or NO_COLOR is set)")
	}
	s.timeout = 2 * time.Minute
	if want("timeout") {
		fs.DurationVar(&s.timeout, "timeout", 2*time.Minute, "stop a scenario that runs longer than this (wall time); it is reported as an error")
	}
	if want("prices") {
		fs.StringVar(&s.prices, "prices", "", "price model calls with this table in LiteLLM's model_prices_and_context_window.json schema instead of the suite's prices: file or testbed's own (docs/cost.md)")
	}
}

// once is a string flag that may be given once: a second would be
// dropped unseen (--variant a --variant b runs b alone).
type once struct {
	p   *string
	set bool
}

func (o *once) String() string {
	if o.p == nil {
		return ""
	}
	return *o.p
}

func (o *once) Set(v string) error {
	if o.set {
		return fmt.Errorf("given twice (%q, then %q): give it once, or leave it out for all", *o.p, v)
	}
	*o.p, o.set = v, true
	return nil
}

// priceTable reads --prices; nil when it is not given.
func (s *selection) priceTable() (*cost.Table, error) {
	if s.prices == "" {
		return nil, nil
	}
	t, err := cost.Load(s.prices)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission):
		return nil, withCode(exitInternal, fmt.Errorf("--prices: %w", err))
	case err != nil:
		return nil, withCode(exitUsage, fmt.Errorf("--prices: %w", err))
	}
	return t, nil
}

// flags is a command's flag set, with the doc its --help prints.
type flags struct {
	*flag.FlagSet
	doc    string
	stderr io.Writer
	hidden []string // flags parsed but not listed by --help
}

// hide keeps the named flags out of --help: the command reads them only to
// refuse them with a message that says why.
func (fs *flags) hide(names ...string) { fs.hidden = append(fs.hidden, names...) }

// newFlags returns a flag set whose --help prints doc and examples, and
// whose errors are one line (with the flag meant, when a flag is misspelt)
// rather than the error above the whole help.
func newFlags(name, doc string, stderr io.Writer) *flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parse says what went wrong
	fs.Usage = func() {}
	return &flags{FlagSet: fs, doc: doc, stderr: stderr}
}

// help prints the command's doc and flags.
func (fs *flags) help() {
	fmt.Fprintf(fs.stderr, "%s\n\nFlags:\n", fs.doc)
	listed := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(fs.hidden, f.Name) {
			listed.Var(f.Value, f.Name, f.Usage)
			listed.Lookup(f.Name).DefValue = f.DefValue
		}
	})
	listed.SetOutput(fs.stderr)
	listed.PrintDefaults()
}

// parse parses the flags of a command that takes no positional arguments.
func parse(fs *flags, args []string) error {
	extra, err := parseWithFiles(fs, args)
	if err != nil {
		return err
	}
	if len(extra) > 0 {
		return withCode(exitUsage, fmt.Errorf("unexpected argument %q; run 'testbed %s --help'", extra[0], fs.Name()))
	}
	return nil
}

// parseError is the exit for a flag parse error: 0 for --help, which
// prints the help; 2 for the rest, said in one line that names the flag
// meant when one is spelt nearly so.
func (fs *flags) parseError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		fs.help()
		return withCode(exitOK, errSilent)
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if near := nearest(name, names); near != "" {
			msg += "; did you mean --" + near + "?"
		}
	}
	return withCode(exitUsage, fmt.Errorf("%s (run 'testbed %s --help')", msg, fs.Name()))
}

// nearest is the one of names closest to s in edit distance, if it is
// close enough to be a misspelling (two edits, or a third of its letters
// for a long name), or "".
func nearest(s string, names []string) string {
	best, dist := "", max(2, len(s)/3)+1
	for _, n := range names {
		if d := levenshtein.ComputeDistance(s, n); d < dist {
			best, dist = n, d
		}
	}
	return best
}

// underRoot is path (flag names it) as given when absolute: where the user
// said. A relative one is under root, and must stay under it once symlinks
// are followed (a reports/ that is a symlink out of the project would be
// written through, a baseline behind one read from outside); one that does
// not is exit 2, saying how to fix it.
func underRoot(root, path, flag string) (string, error) {
	if filepath.IsAbs(path) {
		return path, nil
	}
	full := filepath.Join(root, path)
	var outside *files.OutsideError
	if _, err := files.Inside(root, full); errors.As(err, &outside) {
		return "", withCode(exitUsage, fmt.Errorf("%s; or give an absolute %s", outside.Refusal(flag+" "+path), flag))
	}
	return full, nil
}
