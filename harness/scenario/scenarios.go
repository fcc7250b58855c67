package scenario

import (
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

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
