package cassette

import "net/http"

// Session is a cassette opened by Open in one mode. Every method is defined
// for every mode, with what that mode has to say (documented on each), so
// that a caller never needs a type assertion that would quietly skip a
// feature the mode has.
type Session struct {
	mode   Mode
	replay *replayer  // ModeReplay
	record *recording // ModeRecord
	patch  *patcher   // ModeRecordMissing
	live   *live      // ModeLive
}

// Open opens the cassette at path in mode.
func Open(mode Mode, path string, opts Options) (*Session, error) {
	s := &Session{mode: mode}
	var err error
	switch mode {
	case ModeReplay:
		s.replay, err = newReplayer(path, opts)
	case ModeRecord:
		s.record, err = newRecorder(path, opts)
	case ModeRecordMissing:
		s.patch, err = newPatcher(path, opts)
	default:
		s.mode = ModeLive
		s.live, err = newLive(opts)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// transport is the mode's Transport.
func (s *Session) transport() Transport {
	switch {
	case s.replay != nil:
		return s.replay
	case s.record != nil:
		return s.record
	case s.patch != nil:
		return s.patch
	}
	return s.live
}

// Mode is the mode the session was opened in.
func (s *Session) Mode() Mode { return s.mode }

// RoundTrip serves req from the cassette, records it, or sends it on, by mode.
func (s *Session) RoundTrip(req *http.Request) (*http.Response, error) {
	return s.transport().RoundTrip(req)
}

// Close ends the session: a recording (ModeRecord, ModeRecordMissing) is
// saved; a replay or a live session writes nothing.
func (s *Session) Close() error { return s.transport().Close() }

// Stage does what Close does to a recording (ModeRecord,
// ModeRecordMissing) but write it: the cassette is collected and scanned
// for secrets, and write writes it atomically. A recording whose scan finds
// a secret, or that cannot be collected, returns the error (a *LeakError
// for the scan) and leaves the previous cassette as it was; so does one
// whose write is never called. Staging several cassettes before writing
// any keeps a run that writes them all-or-nothing. A replay or a live
// session stages nothing: its write does nothing.
func (s *Session) Stage() (write func() error, err error) {
	switch {
	case s.record != nil:
		return s.record.Stage()
	case s.patch != nil:
		return s.patch.Stage()
	}
	return nothing, s.transport().Close()
}

// nothing is the write of a session with nothing to write.
func nothing() error { return nil }

// commit writes what was staged, or returns the error that staging met.
func commit(write func() error, err error) error {
	if err != nil {
		return err
	}
	return write()
}

// Recording reports whether the session writes the cassette when it is
// closed (ModeRecord and ModeRecordMissing).
func (s *Session) Recording() bool { return s.record != nil || s.patch != nil }

// Abort ends a recording without saving it: the previous cassette, if any,
// stays as it was. A replay or a live session has nothing to drop.
func (s *Session) Abort() {
	switch {
	case s.record != nil:
		s.record.Abort()
	case s.patch != nil:
		s.patch.Abort()
	}
}

// Provenance returns the cassette's provenance and true: the recorded one in
// a replay, the one a recording saves (after Close, with the stand-in policy
// that answered) or, in ModeRecordMissing, the existing cassette's. A live
// session has none: false.
func (s *Session) Provenance() (Provenance, bool) {
	switch {
	case s.replay != nil:
		return s.replay.Provenance(), true
	case s.record != nil:
		return s.record.Provenance(), true
	case s.patch != nil:
		return s.patch.Provenance(), true
	}
	return Provenance{}, false
}

// Unplayed lists the recorded interactions the session did not use: in a
// replay, and in ModeRecordMissing when it recorded nothing (after a
// recording they are dropped instead: see Dropped). A recording or a live
// session replays nothing: nil.
func (s *Session) Unplayed() []string {
	switch {
	case s.replay != nil:
		return s.replay.Unplayed()
	case s.patch != nil:
		return s.patch.Unplayed()
	}
	return nil
}

// Recorded is the number of missing interactions ModeRecordMissing
// recorded; 0 in the other modes.
func (s *Session) Recorded() int {
	if s.patch != nil {
		return s.patch.Recorded()
	}
	return 0
}

// Dropped lists the interactions a ModeRecordMissing rewrite left out
// because the run no longer made them; nil in the other modes.
func (s *Session) Dropped() []string {
	if s.patch != nil {
		return s.patch.Dropped()
	}
	return nil
}

// Unanswered is an error when a request of a recording (ModeRecord or
// ModeRecordMissing) got a stand-in's NoPolicy answer, naming it: such a
// recording must not be written. nil in the other modes.
func (s *Session) Unanswered() error {
	switch {
	case s.record != nil:
		return s.record.Unanswered()
	case s.patch != nil:
		return s.patch.Unanswered()
	}
	return nil
}
