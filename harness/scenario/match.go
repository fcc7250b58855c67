package scenario

import (
	"gopkg.in/yaml.v3"

	"github.com/agentreplay/testbed/harness/match"
)

var (
	matchKeys     = []string{"headers", "ignore", "normalise", "tool_results", "empty_content"}
	matchTargets  = []string{"body", "query", "header"}
	normaliseKeys = []string{"body", "query", "header", "pattern", "regex", "as"}
)

// matchRules reads match: the request headers compared, and the ignore and
// normalise rules, each checked (JSON pointer, regular expression, pattern
// name) where it is written.
func (d *decoder) matchRules(v *yaml.Node) *match.Rules {
	const at = "match"
	m, fs, ok := d.mapping(v, at, "a mapping with headers, ignore, normalise, tool_results and empty_content", matchKeys...)
	if !ok || !d.nonEmpty(m, fs, at, matchKeys...) {
		return nil
	}
	r := &match.Rules{}
	if f, ok := fs["tool_results"]; ok {
		if order, ok := d.str(f.val, join(at, "tool_results")); ok {
			switch order {
			case "any_order":
				r.AnyOrderToolResults = true
			case "in_order":
			default:
				d.errorf(lineOf(f.val), join(at, "tool_results"), "%q is not an order; write any_order (the results of one turn's tool calls compared in any order) or in_order (the default)", order)
			}
		}
	}
	if f, ok := fs["empty_content"]; ok {
		if form, ok := d.str(f.val, join(at, "empty_content")); ok {
			switch form {
			case "any_form":
				r.AnyFormEmptyContent = true
			case "as_written":
			default:
				d.errorf(lineOf(f.val), join(at, "empty_content"), "%q is not a form; write any_form (the empty content of a message that only calls tools compared as one, null, \"\", [] or none) or as_written (the default)", form)
			}
		}
	}
	headerLine := map[string]int{}
	if f, ok := fs["headers"]; ok {
		if names, ok := d.strs(f.val, join(at, "headers"), false); ok {
			for i, n := range names {
				line := lineOf(resolve(f.val).Content[i])
				probe := match.Rule{Where: match.WhereHeader, Target: n, Ignore: true}
				if err := probe.Compile(); err != nil {
					d.errorf(line, index(join(at, "headers"), i), "%v", err)
					continue
				}
				r.Headers = append(r.Headers, probe.Target)
				headerLine[probe.Target] = line
			}
		}
	}
	for _, key := range []string{"ignore", "normalise"} {
		f, ok := fs[key]
		if !ok {
			continue
		}
		list := resolve(f.val)
		if !d.present(list, join(at, key)) {
			continue
		}
		if list.Kind != yaml.SequenceNode {
			d.want(list, join(at, key), "a list of rules")
			continue
		}
		for i, item := range list.Content {
			if rule, ok := d.matchRule(item, index(join(at, key), i), key == "ignore"); ok {
				r.List = append(r.List, rule)
			}
		}
	}
	for _, rule := range r.List {
		if rule.Ignore && rule.Where == match.WhereHeader {
			if line, both := headerLine[rule.Target]; both {
				d.errorf(rule.Line, at, "header %s is both compared (match.headers, line %d) and ignored; an ignored header is compared for presence only: keep one", rule.Target, line)
			}
		}
	}
	return r
}

// matchRule reads one ignore or normalise rule.
func (d *decoder) matchRule(v *yaml.Node, at string, ignore bool) (match.Rule, bool) {
	keys := normaliseKeys
	want := "a mapping with pattern or regex, and optionally one of body, query or header, and as"
	if ignore {
		keys, want = matchTargets, "a mapping with one of body (a JSON pointer), query or header"
	}
	m, fs, ok := d.mapping(v, at, want, keys...)
	if !ok {
		return match.Rule{}, false
	}
	rule := match.Rule{Ignore: ignore, Line: m.Line}
	var where []string
	for _, k := range matchTargets {
		if f, ok := fs[k]; ok {
			where = append(where, k)
			rule.Target, _ = d.str(f.val, join(at, k))
		}
	}
	switch {
	case len(where) > 1:
		d.errorf(m.Line, at, "give one of body, query or header per rule, not %d; write one rule each", len(where))
		return match.Rule{}, false
	case len(where) == 1:
		rule.Where = map[string]match.Where{"body": match.WhereBody, "query": match.WhereQuery, "header": match.WhereHeader}[where[0]]
	}
	for k, p := range map[string]*string{"pattern": &rule.Pattern, "regex": &rule.Regex, "as": &rule.Token} {
		if f, ok := fs[k]; ok {
			*p, _ = d.str(f.val, join(at, k))
		}
	}
	if err := rule.Compile(); err != nil {
		d.errorf(m.Line, at, "%v", err)
		return match.Rule{}, false
	}
	return rule, true
}
