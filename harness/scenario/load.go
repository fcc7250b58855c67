package scenario

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

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

var (
	suiteKeys    = []string{"suite", "agent", "clock", "tokenizer", "baseline", "variants", "thresholds", "gate", "gating", "goodput", "about", "judged", "reduction_without", "samples", "min_sample_pass_rate", "faults", "match", "redact", "prices", "judge", "scenarios", "scenarios_from"}
	variantKeys  = []string{"description", "config", "endpoint"}
	endpointKeys = []string{"provider", "base_url", "model", "key_env", "api", "api_version", "stream"}
	scenarioKeys = []string{"id", "criterion", "tags", "attachments", "faults", "input", "expect", "variants", "turns"}
	attachKeys   = []string{"file", "mime", "description"}
	turnKeys     = []string{"input", "expect", "variants"}
	tokenizers   = []string{"o200k_base", "cl100k_base"}

	suiteName = regexp.MustCompile(`^[a-z0-9-]+$`)
	// fileName is what variant names and scenario IDs may be, since they
	// name cassette files.
	fileName = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*$`)
	// sampleName is how the cassettes of a scenario's samples end
	// (<id>.sample2.yaml): an id ending so would share their files.
	sampleName = regexp.MustCompile(`(?i)\.sample[0-9]+$`)
	// judgeName is how a scenario's grader cassettes end (<id>.judge.yaml).
	judgeName = regexp.MustCompile(`(?i)\.judge$`)
)

// MaxNameBytes is the longest variant name or scenario id: with the suffixes
// testbed adds (.sample12.yaml, a recording's temporary name), a longer one
// would not fit in a file name (255 bytes on most file systems).
const MaxNameBytes = 200

// nameProblem says why name cannot name cassette files, or "".
func nameProblem(name string) string {
	switch {
	case !fileName.MatchString(name):
		return "use letters, digits, ., _ and -, not starting with ."
	case len(name) > MaxNameBytes:
		return fmt.Sprintf("%d bytes is longer than the %d a cassette file name allows; shorten it", len(name), MaxNameBytes)
	case judgeName.MatchString(name):
		return "it ends like the grader cassette of a scenario (<id>.judge.yaml) and would share its file; rename it"
	case sampleName.MatchString(name):
		return "it ends like the cassette of a scenario's sample (<id>.sample2.yaml) and would share its file; rename it"
	}
	return ""
}

func (d *decoder) suite(root *yaml.Node) *Suite {
	m, fs, ok := d.mapping(root, "", "a mapping of suite keys", suiteKeys...)
	if !ok {
		return nil
	}
	d.require(m, fs, "", "suite", "agent", "clock", "baseline", "variants")
	if _, ok := fs["scenarios_from"]; !ok {
		d.require(m, fs, "", "scenarios")
	}
	s := &Suite{Path: d.path, Tokenizer: tokenizers[0]}
	// Problems in the agent or the variants leave nothing for Check to build.
	head := len(d.errs)
	if f, ok := fs["suite"]; ok {
		if name, ok := d.str(f.val, "suite"); ok {
			if !suiteName.MatchString(name) {
				d.errorf(f.val.Line, "suite", "invalid name %q; use lowercase letters, digits and -", name)
			}
			s.Name, s.NameLine = name, resolve(f.val).Line
		}
	}
	if f, ok := fs["agent"]; ok && resolve(f.val) != nil && resolve(f.val).Kind == yaml.MappingNode {
		d.external(f.val, s)
	} else if ok {
		if agent, ok := d.str(f.val, "agent"); ok {
			if len(d.opts.Agents) > 0 && !slices.Contains(d.opts.Agents, agent) {
				d.errorf(f.val.Line, "agent", "unknown agent %q (known: %s)", agent, strings.Join(d.opts.Agents, ", "))
			}
			s.Agent = agent
		}
	}
	agentRead := len(d.errs) == head
	if f, ok := fs["clock"]; ok {
		if v, ok := d.str(f.val, "clock"); ok {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				d.errorf(f.val.Line, "clock", "%q is not an RFC 3339 time; write it like 2025-11-06T10:00:00+08:00", v)
			}
			s.Clock = t
		}
	}
	if f, ok := fs["tokenizer"]; ok {
		s.Tokenizer, _ = d.enum(f.val, "tokenizer", tokenizers...)
	}
	if f, ok := fs["variants"]; ok {
		before := len(d.errs)
		s.Variants = d.suiteVariants(f.val)
		d.headRead = agentRead && s.Agent != "" && d.known && len(d.errs) == before
		d.builtInOllama(s)
	}
	if f, ok := fs["baseline"]; ok {
		if name, ok := d.str(f.val, "baseline"); ok {
			d.checkVariant(f.val, "baseline", name)
			s.Baseline = name
		}
	}
	if f, ok := fs["gate"]; ok {
		s.Gate = d.gate(f.val)
	}
	if f, ok := fs["gating"]; ok {
		gating, ok := d.boolean(f.val, "gating")
		s.NotGating = ok && !gating
	}
	if f, ok := fs["goodput"]; ok {
		s.Goodput = d.goodput(f.val)
	}
	if f, ok := fs["about"]; ok {
		if text, ok := d.str(f.val, "about"); ok {
			s.About = strings.TrimSpace(text)
		}
	}
	if f, ok := fs["reduction_without"]; ok {
		s.ReductionWithout, _ = d.strs(f.val, "reduction_without", false)
	}
	if f, ok := fs["judged"]; ok {
		if names, ok := d.strs(f.val, "judged", false); ok {
			for _, n := range names {
				kind, _, _ := strings.Cut(n, ".")
				if !slices.Contains(JudgedKinds, kind) {
					d.errorf(resolve(f.val).Line, "judged", "%q is not a check kind (want one of %s, or one check such as answer.not_contains)", n, strings.Join(JudgedKinds, ", "))
				}
			}
			s.Judged = names
		}
	}
	s.Samples = 1
	if f, ok := fs["samples"]; ok {
		if n, ok := d.integer(f.val, "samples", 1); ok {
			if n > MaxSamples {
				d.errorf(resolve(f.val).Line, "samples", "%d samples per scenario is more than the %d testbed records; lower it", n, MaxSamples)
			} else {
				s.Samples = n
			}
		}
	}
	s.MinSamplePassRate = 1
	if f, ok := fs["min_sample_pass_rate"]; ok {
		if r, ok := d.fraction(f.val, "min_sample_pass_rate"); ok {
			if r <= 0 || r > 1 {
				d.errorf(f.val.Line, "min_sample_pass_rate", "%s is not a share of samples; write a percentage above 0%% and at most 100%%, like 80%%", f.val.Value)
			} else {
				s.MinSamplePassRate = r
			}
		}
	}
	if f, ok := fs["thresholds"]; ok {
		s.Thresholds = d.thresholds(f.val, s.Baseline)
	}
	if f, ok := fs["faults"]; ok {
		s.Faults = d.faultRate(f.val)
	}
	if f, ok := fs["match"]; ok {
		s.Match = d.matchRules(f.val)
	}
	if f, ok := fs["redact"]; ok {
		s.Redact = d.redact(f.val)
	}
	if f, ok := fs["prices"]; ok {
		s.Prices = d.prices(f.val)
	}
	if f, ok := fs["judge"]; ok {
		s.Judge = d.judge(f.val)
	}
	if f, ok := fs["scenarios"]; ok {
		s.Scenarios = d.scenarios(f.val)
	}
	if f, ok := fs["scenarios_from"]; ok {
		var rows []Scenario
		s.ScenariosFrom, rows = d.scenariosFrom(f.val)
		s.Scenarios = d.joinScenarios(s.Scenarios, rows)
	}
	d.needsJudge(s)
	if f, ok := fs["gate"]; ok {
		d.gradedGate(s, f.val)
	}
	return s
}

func (d *decoder) scenarios(v *yaml.Node) []Scenario {
	const at = "scenarios"
	v = resolve(v)
	if !d.present(v, at) {
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		d.want(v, at, "a list of scenarios")
		return nil
	}
	if len(v.Content) == 0 {
		d.errorf(v.Line, at, "no scenarios; add at least one")
		return nil
	}
	ids := map[string]int{}       // line of each ID's first use
	folded := map[string]string{} // each ID by its lower case: file systems that ignore case would share their files
	var out []Scenario
	for i, item := range v.Content {
		at := index(at, i)
		m, fs, ok := d.mapping(item, at, "a scenario mapping", scenarioKeys...)
		if !ok {
			continue
		}
		sc := Scenario{Line: m.Line}
		before := len(d.errs) // a scenario with problems is not also said to expect nothing
		d.require(m, fs, at, "id")
		if f, ok := fs["id"]; ok {
			if id, ok := d.str(f.val, join(at, "id")); ok {
				line := resolve(f.val).Line
				other, clash := folded[strings.ToLower(id)]
				switch first, dup := ids[id]; {
				case dup:
					d.errorf(line, join(at, "id"), "duplicate id %q (first at line %d); rename one", id, first)
				case nameProblem(id) != "":
					d.errorf(line, join(at, "id"), "invalid id %q (it names cassette files): %s", id, nameProblem(id))
				case clash:
					d.errorf(line, join(at, "id"), "id %q differs from %q (line %d) only in case, and would share its cassette where file names ignore case; rename one", id, other, ids[other])
				default:
					ids[id] = line
					folded[strings.ToLower(id)] = id
				}
				sc.ID = id
			}
		}
		if f, ok := fs["criterion"]; ok {
			sc.Criterion, _ = d.str(f.val, join(at, "criterion"))
		}
		if f, ok := fs["tags"]; ok {
			sc.Tags, _ = d.strs(f.val, join(at, "tags"), false)
		}
		if f, ok := fs["attachments"]; ok {
			sc.Attachments = d.attachments(f.val, join(at, "attachments"))
		}
		if f, ok := fs["faults"]; ok {
			sc.Faults = d.faultRules(f.val, join(at, "faults"))
		}
		input, hasInput := fs["input"]
		turns, hasTurns := fs["turns"]
		switch {
		case hasInput && hasTurns:
			d.errorf(turns.key.Line, at, "input and turns are mutually exclusive; use input for one turn or turns for several")
		case hasTurns:
			for _, k := range []string{"expect", "variants"} {
				if f, ok := fs[k]; ok {
					d.errorf(f.key.Line, join(at, k), "not allowed beside turns; move it into the turn it is for")
				}
			}
		case !hasInput:
			d.errorf(m.Line, at, "missing input or turns; add input for one turn or turns for several")
		}
		if hasTurns {
			sc.Turns = d.turns(turns.val, join(at, "turns"))
		} else if hasInput {
			sc.Turns = []Turn{d.turn(fs, at, input.key.Line)}
		}
		if len(d.errs) == before && len(sc.Turns) > 0 {
			d.expectsSomething(sc, at)
		}
		out = append(out, sc)
	}
	return out
}

// expectsSomething reports a scenario that expects nothing of its reply,
// under every variant or under one: it could only pass, so a verdict would
// rest on nothing.
func (d *decoder) expectsSomething(sc Scenario, at string) {
	var none []string
	for _, v := range d.variants {
		if !slices.ContainsFunc(sc.Turns, func(t Turn) bool { return !t.ExpectFor(v).Empty() }) {
			none = append(none, v)
		}
	}
	switch {
	case len(none) == 0:
	case len(none) == len(d.variants):
		d.errorf(sc.Line, at, "scenario %q expects nothing, so it could only pass; add what its reply must show, such as expect: {answer: {contains: [...]}}", sc.ID)
	default:
		d.errorf(sc.Line, at, "scenario %q expects nothing of variant %s, so there it could only pass; add expect: for every variant, or an override under variants: for each of them", sc.ID, strings.Join(none, ", "))
	}
}

func (d *decoder) turns(v *yaml.Node, at string) []Turn {
	v = resolve(v)
	if !d.present(v, at) {
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		d.want(v, at, "a list of turns")
		return nil
	}
	if len(v.Content) == 0 {
		d.errorf(v.Line, at, "no turns; add at least one {input, expect}")
		return nil
	}
	var out []Turn
	for i, item := range v.Content {
		at := index(at, i)
		m, fs, ok := d.mapping(item, at, "a turn mapping", turnKeys...)
		if !ok {
			continue
		}
		d.require(m, fs, at, "input")
		out = append(out, d.turn(fs, at, m.Line))
	}
	return out
}

// turn reads the input, expect and variants fields of a turn or of a
// one-turn scenario.
func (d *decoder) turn(fs fields, at string, line int) Turn {
	t := Turn{Line: line}
	if f, ok := fs["input"]; ok {
		t.Input, _ = d.str(f.val, join(at, "input"))
	}
	if f, ok := fs["expect"]; ok {
		t.Expect = d.expect(f.val, join(at, "expect"))
	}
	if f, ok := fs["variants"]; ok {
		t.Overrides = d.overrides(f.val, join(at, "variants"))
	}
	return t
}

func (d *decoder) overrides(v *yaml.Node, at string) map[string]Expect {
	v = resolve(v)
	if !d.present(v, at) {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		d.want(v, at, "a mapping of variant names to expectations")
		return nil
	}
	list, _ := d.fields(v, at)
	out := make(map[string]Expect, len(list))
	for _, f := range list {
		name := f.key.Value
		d.checkVariant(f.key, at, name)
		out[name] = d.expect(f.val, join(at, name))
	}
	return out
}

// mappings calls each for every item of a list of mappings with the
// allowed keys (want names them for messages, as "file, mime and
// description"), after checking the required ones.
func (d *decoder) mappings(v *yaml.Node, at, want string, allowed, required []string, each func(at string, m *yaml.Node, fs fields)) {
	r := resolve(v)
	if r.Kind != yaml.SequenceNode {
		d.want(v, at, "a list of {"+strings.Join(allowed, ", ")+"}")
		return
	}
	for i, item := range r.Content {
		at := index(at, i)
		m, fs, ok := d.mapping(item, at, "a mapping with "+want, allowed...)
		if !ok {
			continue
		}
		d.require(m, fs, at, required...)
		each(at, m, fs)
	}
}

// attachments reads a list of {file, mime, description}.
func (d *decoder) attachments(v *yaml.Node, at string) []AttachmentRef {
	var out []AttachmentRef
	d.mappings(v, at, "file, mime and description", attachKeys, []string{"file"}, func(at string, m *yaml.Node, fs fields) {
		a := AttachmentRef{Line: m.Line}
		if f, ok := fs["file"]; ok {
			a.File, _ = d.str(f.val, join(at, "file"))
			if strings.HasPrefix(a.File, "/") || strings.Contains(a.File, "..") {
				d.errorf(resolve(f.val).Line, join(at, "file"), "%q must be a path inside fixtures/<agent>/", a.File)
			}
		}
		if f, ok := fs["mime"]; ok {
			a.MIME, _ = d.str(f.val, join(at, "mime"))
		}
		if f, ok := fs["description"]; ok {
			a.Description, _ = d.str(f.val, join(at, "description"))
		}
		out = append(out, a)
	})
	return out
}
