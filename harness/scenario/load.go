package scenario

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentreplay/testbed/harness/files"
)

// LoadOptions says which names exist outside this package. Its zero value
// checks nothing against lists.
type LoadOptions struct {
	Agents  []string // names an agent: may take; any when empty
	Metrics []string // metrics a threshold may use; any when empty
	// JQ checks an expect.jq expression (its syntax, the functions and
	// variables it uses); expressions are not checked when nil.
	JQ func(expr string) error
	// Faults lists the fault kinds each target (FaultOnModel,
	// FaultOnUpstream) knows; kinds are not checked when nil.
	Faults map[string][]string
	// InProcess lets an agent: mapping leave out command: the caller runs
	// the agent it describes in its own process (package replaytest, with
	// the team's Go constructor), so only its name and endpoints are read.
	InProcess bool
	// Check, when set, checks a suite further (a run builds its agent under
	// each variant to see that the agent accepts the variant's config). It
	// is called even when the file has problems elsewhere, as long as its
	// agent and variants were read without any, so that one run reports
	// every problem; what it returns (Errors, an *Error, or any error, put
	// at line 1) joins the file's problems.
	Check func(*Suite) error
	// Root, when set, is the project root: every folder and file the suite
	// names (the suite file itself, agent.dir, its cassette folders,
	// fixtures/<agent> and its attachments, data files, the prices: file)
	// must resolve under it, symlinks followed.
	Root string
}

// Load reads and validates one suite file. Problems in its content are
// returned all at once as Errors, which match ErrInvalidSuite; a file that
// cannot be read gives the read error.
func Load(path string, opts LoadOptions) (*Suite, error) {
	data, err := files.ReadRegular(path, files.MaxBytes)
	if err != nil {
		return nil, fmt.Errorf("load suite: %w", err)
	}
	return Parse(path, data, opts)
}

// loadUnder is Load of a suite file that, when opts.Root is set, must lie
// under it once symlinks are followed, and is read through an os.Root of
// it (readUnder).
func loadUnder(path string, opts LoadOptions) (*Suite, error) {
	if opts.Root == "" {
		return Load(path, opts)
	}
	data, err := readUnder(opts.Root, path)
	if err != nil {
		return nil, fmt.Errorf("load suite: %w", err)
	}
	return Parse(path, data, opts)
}

// Parse is Load of data read from path; path is used only in Suite.Path and
// in error messages.
func Parse(path string, data []byte, opts LoadOptions) (s *Suite, err error) {
	d := &decoder{path: path, opts: opts, typos: map[typo]bool{}}
	if root := d.document(data); root != nil {
		s = d.suite(root)
	}
	if s != nil {
		d.paths(s)
	}
	if s != nil && d.headRead && opts.Check != nil {
		d.check(opts.Check(s))
	}
	if len(d.errs) == 0 {
		return s, nil
	}
	// A problem inside an anchored node is found again wherever it is used.
	seen := map[Error]bool{}
	var errs Errors
	for _, e := range d.errs {
		if e := *e.(*Error); !seen[e] {
			seen[e] = true
			errs = append(errs, &e)
		}
	}
	sortErrors(errs)
	return nil, errs
}

// LoadDir loads every *.yaml file in dir, in the order of their names
// without the extension (so cba.yaml comes before cba-chaos.yaml), and
// reports the problems of all of them together, and two files that define
// suites of one name.
func LoadDir(dir string, opts LoadOptions) ([]*Suite, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("load suites: %w", err)
	}
	slices.SortFunc(entries, func(a, b os.DirEntry) int {
		return strings.Compare(strings.TrimSuffix(a.Name(), ".yaml"), strings.TrimSuffix(b.Name(), ".yaml"))
	})
	var suites []*Suite
	var errs Errors
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != ".yaml" {
			continue
		}
		path := filepath.Join(dir, e.Name())
		s, err := loadUnder(path, opts)
		var invalid Errors
		var outside *files.OutsideError
		switch {
		case errors.As(err, &outside):
			// A suite file that is a symlink out of the project would be read from outside it.
			errs = append(errs, &Error{Path: path, Line: 1, Msg: outside.Refusal("the suite file")})
		case errors.As(err, &invalid):
			errs = append(errs, invalid...)
		case err != nil:
			return nil, err
		default:
			if i := slices.IndexFunc(suites, func(o *Suite) bool { return o.Name == s.Name }); i >= 0 {
				// A suite names its cassette folder and the baseline's entries:
				// two files of one name would run twice and record over each other.
				errs = append(errs, &Error{Path: s.Path, Line: s.NameLine, Msg: fmt.Sprintf(
					"suite: %q is also the name of the suite in %s:%d; each suite needs its own name (it names its cassette folder); rename one",
					s.Name, suites[i].Path, suites[i].NameLine)})
				continue
			}
			if err := sameAgent(suites, s); err != nil {
				errs = append(errs, err)
				continue
			}
			suites = append(suites, s)
		}
	}
	if len(errs) > 0 {
		sortErrors(errs)
		return nil, errs
	}
	return suites, nil
}
