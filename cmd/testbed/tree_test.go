package main

import (
	"io/fs"
	"os"
	"path/filepath"
)

// fataler is what linkTree needs of a test: *testing.B or GinkgoT().
type fataler interface {
	Helper()
	Fatal(args ...any)
}

// linkTree makes dst a tree of hard links to the files under src (testbed
// refuses a symlink out of a project), or of copies where a link fails.
func linkTree(t fataler, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if os.Link(path, to) == nil {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
