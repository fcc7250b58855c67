package runner

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/files"
)

// save writes a completed recording's cassette and its grader's once its
// grading is done, all or nothing: a grading that failed (its grader
// cassette refused, a grader that could not answer) keeps the previous
// cassette, as a failed run does, and an agent's cassette refused (its
// secret scan) keeps the previous grades. Both are scanned before either is
// written. (Grades are staged only for a recording: a replay or a live run
// has nothing to write.)
func (r *sampleRun) save() {
	if !r.unsaved {
		return
	}
	r.unsaved = false
	if r.err != nil {
		r.tp.Abort()
		return
	}
	write, err := r.tp.Stage()
	if err == nil && r.writeGrades != nil {
		// Both or neither: the grades are of this answer.
		err = r.bothOrNeither(write)
	} else if err == nil {
		err = write()
	}
	r.closeErr = err
	if p, ok := r.tp.Provenance(); ok && r.tp.Mode() == cassette.ModeRecord && r.closeErr == nil && r.sample == 1 {
		// What the recording learnt: the stand-in policy that answered.
		r.j.prov = &p
	}
}

// bothOrNeither writes the agent's staged cassette (write), then the
// grader's; when the grader's cannot be written, the agent's previous
// cassette is put back (or the new one removed, when there was none), so
// that the grades kept are of the answer kept.
func (r *sampleRun) bothOrNeither(write func() error) error {
	path := cassette.SamplePath(r.opts.Root, r.j.suite.Name, r.j.variant.Name, r.j.scenario.ID, r.sample)
	// Read, and put back, under the root only, a regular file of bounded
	// size: the agent, which ran in the project, may have swapped the
	// cassette for a symlink (to /dev/zero, which never ends) or its
	// folder for one out of the project.
	root := cmp.Or(r.opts.Root, ".")
	prev, readErr := files.ReadIn(root, rel(root, path), files.MaxBytes)
	if readErr != nil && !errors.Is(readErr, os.ErrNotExist) {
		return fmt.Errorf("%s %s: %w", cassette.WriteCause, rel(r.opts.Root, path), readErr)
	}
	if err := write(); err != nil {
		return err
	}
	err := r.writeGrades()
	if err == nil {
		return nil
	}
	undo := files.RemoveIn(root, path)
	if readErr == nil {
		undo = files.WriteAtomicIn(root, path, func(w io.Writer) error { _, err := w.Write(prev); return err })
	}
	if undo != nil {
		return fmt.Errorf("%w; and the agent's cassette %s could not be put back as it was (%v): re-record the scenario", err, rel(r.opts.Root, path), undo)
	}
	return fmt.Errorf("%w; the agent's cassette %s was put back as it was, so the two still agree", err, rel(r.opts.Root, path))
}
