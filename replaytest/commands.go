package replaytest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// commands builds the commands Run tells the user to run: this test again
// with an environment variable set.
type commands struct {
	name     string // the test's name: TestX/sub, or a Ginkgo spec's full text
	pkg      string // the package, relative to its module: ./agent, or .
	rerecord string // Rerecord's command, if given
}

// goTest is a top-level Go test, benchmark or example's name.
var goTest = regexp.MustCompile(`^(Test|Benchmark|Example|Fuzz)[A-Za-z0-9_]*$`)

// with is go test of this package, selecting this test, with env=1.
func (c commands) with(env string) string {
	cmd := fmt.Sprintf("%s=1 go test %s", env, c.pkg)
	top, _, _ := strings.Cut(c.name, "/")
	switch {
	case c.name == "":
	case goTest.MatchString(top):
		cmd += " -run " + quote("^"+top+"$")
	default:
		cmd += " -ginkgo.focus " + quote(regexp.QuoteMeta(c.name))
	}
	return cmd
}

// record is the command that records the suite again.
func (c commands) record() string {
	if c.rerecord != "" {
		return c.rerecord
	}
	return c.with(EnvRecord)
}

// bless is the command that blesses the suite's baseline.
func (c commands) bless() string { return c.with(EnvBless) }

// quote quotes s for a POSIX shell.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// packageDir is the working folder (go test runs a package's tests in its
// folder) relative to the root of its module, as ./dir, or . when it is
// the root or no go.mod is found above it.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "."
		}
		dir = parent
	}
}
