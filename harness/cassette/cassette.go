// Package cassette records and replays the HTTP traffic of one scenario.
//
// A cassette is a go-vcr v2 file (gopkg.in/dnaeon/go-vcr.v2) with one extra
// top-level key, provenance, that says which model endpoint it was recorded
// against. Replay also reads go-vcr v4's files (format version 2), so a team
// brings the cassettes its Go tests already have; recording writes go-vcr
// v2's. Recording runs on go-vcr's recorder with secrets redacted and an
// atomic save; replay serves go-vcr's interactions through an indexed
// RoundTripper that matches method, logical URL and canonical JSON body,
// never sleeps, and reports each exchange's recorded duration so the harness
// can advance a virtual clock.
//
// This package does not know about scenarios or agents; it moves bytes.
package cassette

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
	"unsafe"

	vcr "gopkg.in/dnaeon/go-vcr.v2/cassette"
	"gopkg.in/yaml.v3"

	"github.com/agentreplay/testbed/harness/files"
	matcher "github.com/agentreplay/testbed/harness/match"
	"github.com/agentreplay/testbed/harness/trace"
)

// Mode says what a Transport does with HTTP traffic.
type Mode int

// Modes.
const (
	ModeReplay Mode = iota // serve only recorded interactions; never touch the network
	ModeRecord             // send requests on and write a cassette
	ModeLive               // send requests on and write nothing
	// ModeRecordMissing replays what the cassette holds and records only
	// the requests it has no match for: the missing ones are added to it.
	ModeRecordMissing
)

// String returns the mode's name as used on the command line.
func (m Mode) String() string {
	switch m {
	case ModeRecord:
		return "record"
	case ModeLive:
		return "live"
	case ModeRecordMissing:
		return "record-missing"
	}
	return "replay"
}

// FormatVersion is the go-vcr cassette format version testbed writes.
const FormatVersion = 1

// Provenance says where a cassette's responses came from.
type Provenance struct {
	Recorder string `yaml:"recorder" json:"recorder"`           // always "testbed"
	Provider string `yaml:"provider" json:"provider"`           // llm.Endpoint.Provider
	Endpoint string `yaml:"endpoint" json:"endpoint"`           // the logical model base URL
	Model    string `yaml:"model" json:"model"`                 // the model name
	StandIn  bool   `yaml:"standin" json:"standin"`             // recorded against harness/standin
	Upstream string `yaml:"upstream,omitempty" json:"upstream"` // "fixtures" or "live"
	// Policy names the stand-in policy that answered when it was not one
	// written for the agent: "generic", the plumbing stand-in (see
	// PolicyHeader). Empty for agent-specific policies and real models.
	Policy string `yaml:"policy,omitempty" json:"policy,omitempty"`
	// Role is RoleJudge for a grader's cassette (cassette.JudgePath): its
	// calls are judge calls, never the agent's.
	Role string `yaml:"role,omitempty" json:"role,omitempty"`
}

// RoleJudge is the Role of a cassette that holds a grader's calls.
const RoleJudge = "judge"

// GenericPolicy is the Policy of cassettes answered by the stand-in's
// generic plumbing policy.
const GenericPolicy = "generic"

// String describes p in a few words, for reports.
func (p Provenance) String() string {
	if p.Model == "" {
		return "unknown provenance"
	}
	if p.StandIn {
		return StandIn(p.Model, p.Policy)
	}
	return p.Provider + " " + p.Model
}

// StandIn names the stand-in model for what it is, so that no report reads
// like a real model's result: "rule-based stand-in shaped like qwen3:14b's
// API" (its agent policies decide by documented rules), "generic plumbing
// stand-in shaped like …" when the generic policy answered, or the policy
// named.
func StandIn(model, policy string) string {
	shape := " shaped like " + model + "'s API"
	switch policy {
	case "":
		return "rule-based stand-in" + shape
	case GenericPolicy:
		return "generic plumbing stand-in" + shape
	}
	return "rule-based stand-in" + shape + " (" + policy + " policy)"
}

// Exchange is one HTTP request served by a Transport.
type Exchange struct {
	Method   string
	URL      string
	Status   int
	Duration time.Duration // recorded (replay) or modelled/measured (record, live)
	Err      error
	// Fault is the kind of fault a stand-in injected into the response
	// (its FaultHeader), or "".
	Fault string
	// Rule is the stand-in rule that decided the response (its
	// RuleHeader), or "".
	Rule string
	// Stream is the timing of a streamed answer (package stream); nil for
	// a whole body.
	Stream *trace.Stream
	// Timeout is set when the exchange outlasted the request's deadline:
	// the agent got a *DeadlineError after Duration, the time it waited,
	// and not the response (which a recording still keeps).
	Timeout *DeadlineError
}

// file is the on-disk form.
type file struct {
	Version      int                `yaml:"version"`
	Interactions []*vcr.Interaction `yaml:"interactions"`
	Provenance   *Provenance        `yaml:"provenance,omitempty"`
}

// ErrNotFound is returned when a cassette file does not exist.
var ErrNotFound = errors.New("cassette not found")

// ErrVersion is returned for a cassette of a format version testbed does
// not read.
var ErrVersion = errors.New("unsupported cassette format")

// ErrCorrupt is returned when a cassette file cannot be read as a cassette.
var ErrCorrupt = errors.New("corrupt cassette")

func readFile(path string) (*file, error) {
	text, err := readText(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, path)
	}
	if err != nil {
		return nil, err
	}
	if len(strings.TrimSpace(text)) == 0 {
		return nil, fmt.Errorf("%w: %s: empty file", ErrCorrupt, path)
	}
	f, ok := parseFast(text)
	if !ok {
		f = &file{}
		if err := yaml.Unmarshal([]byte(text), f); err != nil {
			// yaml.v3 lists unmarshal errors on lines of their own.
			msg := strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), ":\n", ":")), " ")
			return nil, fmt.Errorf("%w: %s: %s", ErrCorrupt, path, msg)
		}
	}
	if v := Format(f.Version); v != FormatGoVCR2 && v != FormatGoVCR4 {
		return nil, fmt.Errorf("%w: %s: format version %d; this testbed reads format versions %d (go-vcr v2's, as testbed record writes it) and %d (go-vcr v4's): "+
			"a newer testbed or another tool wrote this file", ErrVersion, path, f.Version, FormatGoVCR2, FormatGoVCR4)
	}
	for i, in := range f.Interactions {
		if err := checkInteraction(in); err != nil {
			return nil, fmt.Errorf("%w: %s: interaction %d %v", ErrCorrupt, path, i, err)
		}
	}
	return f, nil
}

// readText reads the file at path as a string in one buffer of the file's
// size: the fast reader slices its scalars from this text, so a second
// copy of every cassette would be waste.
func readText(path string) (string, error) {
	data, err := files.ReadRegular(path, files.MaxBytes)
	if err != nil {
		return "", err
	}
	// The bytes are never written again, so they can back the string
	// without a copy, as strings.Builder's do.
	return unsafe.String(unsafe.SliceData(data), len(data)), nil
}

// checkInteraction finds what recording never writes: an interaction
// without a request method or URL, without a response status (the file was
// cut off), with a negative duration, or with a response body whose length
// is not its recorded Content-Length (cut off or edited).
func checkInteraction(in *vcr.Interaction) error {
	switch {
	case in == nil || in.Request.Method == "" || in.Request.URL == "":
		return errors.New("has no request method or URL")
	case in.Response.Code < 100 || in.Response.Code > 599:
		return fmt.Errorf("has no response status (code %d); the file may be cut off", in.Response.Code)
	case in.Response.Duration < 0:
		return fmt.Errorf("has a negative duration %s", in.Response.Duration)
	}
	if cl := in.Response.Headers.Get("Content-Length"); cl != "" && in.Response.Headers.Get("Content-Encoding") == "" {
		if n, err := strconv.Atoi(cl); err == nil && n != len(in.Response.Body) {
			return fmt.Errorf("has a response body of %d bytes, but its Content-Length is %d; the body was cut off or edited", len(in.Response.Body), n)
		}
	}
	return nil
}

func encodeFile(path string, f *file) ([]byte, error) {
	data, err := yaml.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("encode cassette %s: %w", path, err)
	}
	return append([]byte("---\n"), data...), nil
}

func writeData(within, path string, data []byte) error {
	write := func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
	if within != "" {
		return files.WriteAtomicIn(within, path, write)
	}
	return files.WriteAtomic(path, write)
}

// checked scans the bytes a recording's cassette f would write with d,
// the detector that redacted them, and returns what writes them
// atomically (files.WriteAtomic). When the scan finds anything (a secret
// only visible decoded, such as inside a compressed body, which redaction
// does not rewrite), there is nothing to write: the previous cassette stays
// and the error is a *LeakError.
func checked(within, path string, f *file, d *Detector) (write func() error, err error) {
	data, err := encodeFile(path, f)
	if err != nil {
		return nil, err
	}
	if found := d.sc.fileText(path, string(data)); len(found) > 0 {
		return nil, &LeakError{Path: path, Findings: found}
	}
	return func() error {
		if err := writeData(within, path, data); err != nil {
			return fmt.Errorf("%s %s (%w); its previous cassette is kept", WriteCause, path, err)
		}
		return nil
	}, nil
}

// WriteCause starts the message of a recording that could not be written
// (a full disk, a read-only folder or file).
const WriteCause = "could not write the cassette"

// LeakCause starts the message of a LeakError.
const LeakCause = "the secret scan found secrets that redaction left"

// LeakError is a recording that was not written because the scan found
// secrets in what it would have written. Its findings name the lines of
// the cassette as it would have been.
type LeakError struct {
	Path     string
	Findings []Finding
}

// Error implements error: the cause, the cassette and every finding.
func (e *LeakError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s in cassette %s; nothing was written and its previous cassette is kept:", LeakCause, e.Path)
	for _, f := range e.Findings {
		fmt.Fprintf(&b, "\n  %s", f)
	}
	b.WriteString("\nhave the agent or the upstream send it as it is (uncompressed: Accept-Encoding: identity), or add a redact: rule that covers it (docs/recording.md), then record again")
	return b.String()
}

// ReadProvenance returns the provenance recorded in the cassette at path.
func ReadProvenance(path string) (Provenance, error) {
	f, err := readFile(path)
	if err != nil {
		return Provenance{}, err
	}
	if f.Provenance == nil {
		return Provenance{}, nil
	}
	return f.Provenance.clone(), nil
}

// clone is p with strings of its own: a parsed cassette's strings are
// slices of the whole file, which a kept Provenance would keep alive.
func (p *Provenance) clone() Provenance {
	c := *p
	for _, s := range []*string{&c.Recorder, &c.Provider, &c.Endpoint, &c.Model, &c.Upstream, &c.Policy, &c.Role} {
		*s = strings.Clone(*s)
	}
	return c
}

// Transport is an http.RoundTripper bound to one cassette.
type Transport interface {
	http.RoundTripper
	// Close ends the session: a recording is saved, a replay reports nothing.
	Close() error
}

// Options configure Open.
type Options struct {
	// Real sends requests on in record and live modes (default http.DefaultTransport).
	Real http.RoundTripper
	// Provenance is written into recorded cassettes.
	Provenance Provenance
	// Observe, if set, is called after every exchange, in call order.
	Observe func(Exchange)
	// Volatile names top-level JSON body fields ignored when matching.
	Volatile []string
	// Match holds the suite's match rules: replay compares a live request
	// and the recorded ones after applying them to both, and a recording
	// keeps the request headers they compare. nil has none.
	Match *matcher.Rules
	// Rerecord is the command that re-records this cassette; replay misses quote it.
	Rerecord string
	// Secrets are literal values (keys) that never reach a cassette: a
	// recording replaces them by REDACTED wherever they appear, and replay
	// does the same to live requests before matching them. Values shorter
	// than 8 bytes are ignored.
	Secrets []string
	// Within, when set, is the folder a recorded cassette must stay in
	// (the project root): it is written through an os.Root of it
	// (files.WriteAtomicIn), so that a symlink out of it swapped in while
	// recording (by the agent) does not lead the cassette out.
	Within string
	// Detector, when set, is the detector recordings redact with and
	// replay redacts live requests with (it should hold Secrets too);
	// without it, one is built from Secrets and KeyVariables.
	Detector *Detector
}

// inside checks that path lies under Within, when set (files.Inside).
func (o Options) inside(path string) error {
	if o.Within == "" {
		return nil
	}
	_, err := files.Inside(o.Within, path)
	return err
}

// detector returns the session's Detector.
func (o Options) detector() (*Detector, error) {
	if o.Detector != nil {
		return o.Detector, nil
	}
	return NewDetector(o.literals(), KeyVariables(), nil)
}

// literals returns the secrets worth replacing.
func (o Options) literals() []string {
	var out []string
	for _, s := range o.Secrets {
		if len(s) >= 8 && s != Redacted {
			out = append(out, s)
		}
	}
	return out
}
