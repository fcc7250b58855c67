// Package arch holds no code: its specs (imports_test.go) state which
// packages of the module may import which, as docs/standin.md and the
// design's one-way dependencies say, and fail on the first change that
// breaks a rule.
package arch
