package scenario

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrInvalidSuite is matched, through errors.Is, by every error that Load,
// Parse and LoadDir return for problems in a suite file's content (as opposed
// to failures to read it).
var ErrInvalidSuite = errors.New("invalid suite")

// Error is one problem in a suite file.
type Error struct {
	Path string
	Line int // 1-based
	Msg  string
}

// Error returns "path:line: message".
func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
}

// Is reports whether target is ErrInvalidSuite.
func (e *Error) Is(target error) bool { return target == ErrInvalidSuite }

// Errors is every problem found in one or more suite files, by file and then
// by line. Its items are *Error.
type Errors []error

// Error returns the items' messages, one per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Is reports whether target is ErrInvalidSuite.
func (es Errors) Is(target error) bool { return target == ErrInvalidSuite }

// Unwrap returns the items.
func (es Errors) Unwrap() []error { return es }

// check adds the problems err holds to d's.
func (d *decoder) check(err error) {
	var es Errors
	var e *Error
	switch {
	case err == nil:
	case errors.As(err, &es):
		for _, item := range es {
			d.check(item)
		}
	case errors.As(err, &e):
		d.errs = append(d.errs, e)
	default:
		d.errorf(1, "", "%v", err)
	}
}

// sortErrors orders problems by file and then by line.
func sortErrors(errs Errors) {
	sort.SliceStable(errs, func(i, j int) bool {
		a, b := errs[i].(*Error), errs[j].(*Error)
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Line < b.Line
	})
}
