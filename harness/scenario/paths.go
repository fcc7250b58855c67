package scenario

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/files"
)

// isLink reports whether path is a symlink (the folders above it are
// checked on their own).
func isLink(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.Mode()&os.ModeSymlink != 0
}

// paths checks, when LoadOptions.Root is set, that every folder and file
// the suite names resolves under the project root once symlinks are
// followed: the agent's working folder (agent.dir), the suite's cassette
// folder, each variant's in it and each cassette, the agent's fixtures
// folder and each attachment under fixtures/<agent>/. A recording into a cassettes/<suite> that is a symlink
// out of the project would write outside it; a fixture that is one would
// be read from outside it.
func (d *decoder) paths(s *Suite) {
	root := d.opts.Root
	if root == "" {
		return
	}
	// outside reports what, at path, when it does not stay in dir, and
	// says whether it did.
	outside := func(line int, at, what, path, dir string) bool {
		_, err := files.Inside(dir, path)
		var out *files.OutsideError
		switch {
		case errors.As(err, &out):
			d.errorf(line, at, "%s", out.Refusal(what))
		case err != nil:
			d.errorf(line, at, "%s: %v", what, err)
		}
		return err != nil
	}
	if e := s.External; e != nil && e.Dir != "" && !filepath.IsAbs(e.Dir) {
		dir := filepath.Join(root, e.Dir)
		said := outside(d.dirLine, "agent.dir", fmt.Sprintf("agent.dir %q", e.Dir), dir, root)
		if st, err := os.Stat(dir); !said && (err != nil || !st.IsDir()) {
			// The program would not start, with the start's error, not this.
			d.errorf(d.dirLine, "agent.dir", "%q is no folder under %s (%s); give the folder the agent's command runs in, relative to the project root", e.Dir, root, dir)
		}
	}
	if s.Name != "" {
		dir := cassette.Dir(root, s.Name)
		outside(s.NameLine, "suite", "its cassette folder "+dir, dir, root)
		for _, v := range s.Variants {
			outside(v.Line, "variants."+v.Name, "the variant's cassette folder "+filepath.Join(dir, v.Name), filepath.Join(dir, v.Name), root)
			// A cassette that is a symlink out would be read from outside.
			for _, sc := range s.Scenarios {
				for k := 1; k <= max(s.Samples, 1); k++ {
					if path := cassette.SamplePath(root, s.Name, v.Name, sc.ID, k); isLink(path) {
						outside(sc.Line, "scenarios."+sc.ID, "its cassette "+path, path, root)
					}
				}
			}
		}
	}
	if p := s.Prices; p != nil && p.File != "" && !filepath.IsAbs(p.File) {
		outside(p.Line, "prices.file", fmt.Sprintf("prices.file %q", p.File), filepath.Join(root, filepath.FromSlash(p.File)), root)
	}
	if s.Agent != "" {
		fixtures := filepath.Join(root, "fixtures", s.Agent)
		if _, err := os.Lstat(fixtures); err == nil {
			// Its routes and responses would be served from outside.
			outside(s.NameLine, "agent", "the agent's fixtures folder "+fixtures, fixtures, root)
		}
		for _, sc := range s.Scenarios {
			for _, a := range sc.Attachments {
				if a.File != "" && !filepath.IsAbs(a.File) {
					outside(a.Line, "attachments", fmt.Sprintf("attachment %q", a.File), filepath.Join(fixtures, filepath.FromSlash(a.File)), fixtures)
				}
			}
		}
	}
}

// readInside reads the file at path, which must lie under the project
// root (the suite's folder when the loader has none) once symlinks are
// followed (readUnder).
func (d *decoder) readInside(path string) ([]byte, error) {
	return readUnder(cmp.Or(d.opts.Root, filepath.Dir(d.path)), path)
}

// readUnder reads the file at path, which must lie under root once
// symlinks are followed, through an os.Root of root (files.ReadIn): one
// that leads outside is an *files.OutsideError.
func readUnder(root, path string) ([]byte, error) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(absRoot, abs)
	if err != nil {
		return nil, err
	}
	return files.ReadIn(absRoot, filepath.ToSlash(rel), files.MaxBytes)
}
