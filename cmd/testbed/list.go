package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
)

const listDoc = `Usage: testbed list [flags]

Lists suites, their variants and scenarios, and whether each cassette exists.

Examples:
  testbed list
  testbed list --suite odbchat --json`

type listedScenario struct {
	Suite, Variant, ID, Criterion string
	Cassette                      string
	Recorded                      bool
}

func cmdList(args []string, stdout, stderr io.Writer) error {
	var sel selection
	fs := newFlags("list", listDoc, stderr)
	sel.register(fs, "root", "suite", "variant", "scenario", "json")
	if err := parse(fs, args); err != nil {
		return err
	}
	suites, err := loadSuites(sel)
	if err != nil {
		return err
	}
	var rows []listedScenario
	for _, s := range suites {
		for _, v := range s.Variants {
			if sel.variant != "" && v.Name != sel.variant {
				continue
			}
			for _, sc := range s.Scenarios {
				if sel.scenario != "" && sc.ID != sel.scenario {
					continue
				}
				path := cassette.Path(sel.root, s.Name, v.Name, sc.ID)
				_, statErr := os.Stat(path)
				rows = append(rows, listedScenario{s.Name, v.Name, sc.ID, sc.Criterion, path, statErr == nil})
			}
		}
	}
	if sel.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	for _, r := range rows {
		mark := "recorded"
		if !r.Recorded {
			mark = "NOT RECORDED"
		}
		fmt.Fprintf(stdout, "%-10s %-14s %-34s %-6s %s\n", r.Suite, r.Variant, r.ID, r.Criterion, mark)
	}
	return nil
}

// writeFormats says which format each cassette under dir is in: a line
// for each file not in testbed's own (go-vcr v2's), one for each file that
// is no cassette testbed reads, and a count per format.
func writeFormats(w io.Writer, files []cassette.FileFormat) {
	count := map[cassette.Format]int{}
	unread := 0
	for _, f := range files {
		switch {
		case f.Err != nil:
			unread++
			fmt.Fprintln(w, f.Err) // it names the file
			continue
		case f.Format != cassette.FormatGoVCR2:
			fmt.Fprintf(w, "%s: %s\n", f.Path, f.Format)
		}
		count[f.Format]++
	}
	var parts []string
	for _, f := range slices.Sorted(maps.Keys(count)) {
		if f != 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[f], f))
		}
	}
	if unread > 0 {
		parts = append(parts, fmt.Sprintf("%d unreadable", unread))
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "formats: %s\n", strings.Join(parts, ", "))
	}
}

const checkDoc = `Usage: testbed cassettes check [flags]

Scans every cassette for anything that looks like a secret: OpenAI
(sk-…, sk-proj-…), Anthropic and Google (AIza…) keys, bearer tokens in
headers and bodies, key=, api_key=, access_token= and similar parameters in
URLs and bodies, user:password@ in URLs, credential fields in JSON bodies
(api_key, apiKey, secret, password, and key or token when the value looks like
a key), secret headers left unredacted, and the values of the key variables
set in this environment (OPENAI_API_KEY, GEMINI_API_KEY, GOOGLE_API_KEY, …,
and every agent's own keys), the suites' env: values and what their redact:
rules match, and an AWS secret access key beside its key id. REDACTED, its
placeholders (REDACTED-1a2b3c4d) and testbed-placeholder-key are not
secrets. Keys are found by gitleaks' default rules and by our own, in each
line as written and as decoded (unicode escapes, base64, gzip), and in
streamed answers as their client reassembles them. Exits 1 and prints, for every finding, file:line, what it is (masked,
like sk-…abcd) and what to do; exits 4 when a file cannot be scanned (not a
regular file, over 1 GiB), after scanning the others; exits 3 when it
finds no cassette to check (the folder does not exist, is empty, or holds
no file testbed reads as a cassette): a scan of nothing is no all-clear.

It also says which format each cassette is in: a line for each file that is
not in go-vcr v2's format (version 1, what testbed record writes), such as
go-vcr v4's (version 2, which replay reads too), a line for each file that
is no cassette testbed reads, and a count per format.

Examples:
  testbed cassettes check
  testbed cassettes check --dir cassettes/odbchat --json`

func cmdCassettesCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var dir, root string
	var asJSON bool
	fs := newFlags("cassettes check", checkDoc, stderr)
	fs.StringVar(&root, "root", ".", "project folder: its suites' env: values and redact: rules are looked for too")
	fs.StringVar(&dir, "dir", "", "folder to scan (default: cassettes under --root)")
	fs.BoolVar(&asJSON, "json", false, "print findings as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	reg := all.Registry()
	// The suites' own redact: rules and env: values are secrets too.
	var suites []*scenario.Suite
	if dir == "" {
		// A cassettes/ that is a symlink out would be scanned outside, or
		// not at all (the walk does not follow it): no all-clear.
		var err error
		if dir, err = underRoot(root, "cassettes", "--dir"); err != nil {
			return err
		}
	}
	if st, err := os.Stat(filepath.Join(root, "scenarios")); err == nil && st.IsDir() {
		loaded, err := loadSuites(selection{root: root})
		if err != nil {
			fmt.Fprintf(stderr, "testbed cassettes check: scanning without the suites' redact: rules and env: values, which did not load:\n%v\n", err)
		}
		suites = loaded
	}
	d, err := runner.Detector(suites, runner.KeyValues(reg), runner.KeyVariables(reg))
	if err != nil {
		return withCode(exitInternal, err)
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nothingToCheck(root, dir, "it does not exist")
	}
	found, scanErr := d.ScanContext(ctx, dir)
	if ctx.Err() != nil {
		return ctx.Err() // interrupted: what was scanned is no all-clear
	}
	files, _ := cassette.Formats(dir) // a folder Scan could not walk is reported by Scan
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if found == nil {
			found = []cassette.Finding{}
		}
		if err := enc.Encode(found); err != nil {
			return err
		}
	} else {
		var b strings.Builder
		for _, f := range found {
			fmt.Fprintln(&b, f)
		}
		writeFormats(&b, files)
		fmt.Fprint(stdout, b.String())
	}
	if scanErr != nil {
		// What could be scanned was; what could not is no all-clear.
		return withCode(exitInternal, fmt.Errorf("these files could not be scanned, so they may hold secrets:\n%w", scanErr))
	}
	if len(found) > 0 {
		return withCode(exitFailed, fmt.Errorf("%d possible secrets in %s; remove them and re-record with redaction", len(found), dir))
	}
	if why := noCassette(dir, files); why != "" {
		return nothingToCheck(root, dir, why)
	}
	if !asJSON {
		fmt.Fprintf(stdout, "no secrets found in %s\n", dir)
	}
	return nil
}

// noCassette says why dir holds no cassette testbed reads, or "" when it
// holds one: a scan of no cassette is no all-clear.
func noCassette(dir string, files []cassette.FileFormat) string {
	read := 0
	for _, f := range files {
		if f.Err == nil {
			read++
		}
	}
	switch {
	case read > 0:
		return ""
	case len(files) > 0:
		return fmt.Sprintf("none of its %d .yaml files is a cassette testbed reads", len(files))
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return "it is a file, not a cassette (.yaml) nor a folder of them"
	}
	return "it holds no cassette (.yaml)"
}

// nothingToCheck is the error of a secret scan that found no cassette to
// check in dir, why, exit 3 as a missing cassette is, with the command
// that records some.
func nothingToCheck(root, dir, why string) error {
	where, err := filepath.Abs(dir)
	if err != nil {
		where = dir
	}
	record := "testbed record"
	if root != "." {
		record += " --root " + root
	}
	return withCode(exitStale, fmt.Errorf("found no cassette to check in %s (%s): %s, so no scan could find a secret; record some with: %s, or name the folder that holds them with --dir", dir, where, why, record))
}
