package scenario

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

var (
	expectKeys = []string{"route", "tools", "args", "tolerance", "answer", "jq", "llm_calls", "tool_calls", "budget", "must_call", "chart", "forbid", "rubric"}
	chartKeys  = []string{"mark", "fields", "values", "none"}
	routeKeys  = []string{"mode", "tool"}
	toolsKeys  = []string{"match", "names", "not_call"}
	matches    = []string{"exact", "ordered", "subset"}
	answerKeys = []string{"contains", "not_contains", "matches", "language"}
	languages  = []string{"zh", "en"}
	budgetKeys = []string{"latency", "input_tokens", "context_tokens", "token_reduction"}
)

// expect reads an expect mapping, or a variant's override of one.
func (d *decoder) expect(v *yaml.Node, at string) Expect {
	var e Expect
	m, fs, ok := d.mapping(v, at, "a mapping of expectations", expectKeys...)
	if !ok || !d.nonEmpty(m, fs, at, expectKeys...) {
		return e
	}
	e.Line = m.Line
	if f, ok := fs["route"]; ok {
		e.Route = d.route(f.val, join(at, "route"))
	}
	if f, ok := fs["tools"]; ok {
		e.Tools = d.tools(f.val, join(at, "tools"))
	}
	if f, ok := fs["args"]; ok {
		e.Args, _ = d.anyMap(f.val, join(at, "args"))
	}
	if f, ok := fs["tolerance"]; ok {
		at := join(at, "tolerance")
		if tol, ok := d.number(f.val, at); ok {
			if tol < 0 {
				d.errorf(resolve(f.val).Line, at, "want 0 or more, got %v", tol)
			}
			e.Tolerance = tol
		}
	}
	if f, ok := fs["answer"]; ok {
		e.Answer = d.answer(f.val, join(at, "answer"))
	}
	if f, ok := fs["jq"]; ok {
		at := join(at, "jq")
		if exprs, ok := d.strs(f.val, at, true); ok {
			for i, expr := range exprs {
				line := resolve(f.val).Line
				if r := resolve(f.val); r.Kind == yaml.SequenceNode {
					line = resolve(r.Content[i]).Line
				}
				if strings.TrimSpace(expr) == "" {
					d.errorf(line, index(at, i), "empty expression; write a jq expression that yields true")
				} else if d.opts.JQ != nil {
					if err := d.opts.JQ(expr); err != nil {
						d.errorf(line, index(at, i), "%v", err)
					}
				}
			}
			e.JQ = exprs
		}
	}
	if f, ok := fs["llm_calls"]; ok {
		if n, ok := d.integer(f.val, join(at, "llm_calls"), 0); ok {
			e.LLMCalls = &n
		}
	}
	if f, ok := fs["tool_calls"]; ok {
		if n, ok := d.integer(f.val, join(at, "tool_calls"), 0); ok {
			e.ToolCalls = &n
		}
	}
	if f, ok := fs["budget"]; ok {
		e.Budget = d.budget(f.val, join(at, "budget"))
	}
	if f, ok := fs["must_call"]; ok {
		e.MustCall, _ = d.strs(f.val, join(at, "must_call"), true)
	}
	if f, ok := fs["chart"]; ok {
		e.Chart = d.chart(f.val, join(at, "chart"))
	}
	if f, ok := fs["forbid"]; ok {
		e.Forbid, _ = d.strs(f.val, join(at, "forbid"), true)
	}
	if f, ok := fs["rubric"]; ok {
		e.Rubrics = d.rubrics(f.val, join(at, "rubric"))
	}
	return e
}

func (d *decoder) chart(v *yaml.Node, at string) *ChartExpect {
	m, fs, ok := d.mapping(v, at, "a mapping with mark, fields, values or none", chartKeys...)
	if !ok || !d.nonEmpty(m, fs, at, chartKeys...) {
		return nil
	}
	c := &ChartExpect{}
	if f, ok := fs["mark"]; ok {
		c.Mark, _ = d.str(f.val, join(at, "mark"))
	}
	if f, ok := fs["fields"]; ok {
		c.Fields, _ = d.strs(f.val, join(at, "fields"), true)
	}
	if f, ok := fs["values"]; ok {
		if n, ok := d.integer(f.val, join(at, "values"), 0); ok {
			c.Values = &n
		}
	}
	if f, ok := fs["none"]; ok {
		at := join(at, "none")
		if r := resolve(f.val); r.Kind != yaml.ScalarNode || (r.Value != "true" && r.Value != "false") {
			d.errorf(r.Line, at, "want true or false")
		} else {
			c.None = r.Value == "true"
		}
		if c.None && (c.Mark != "" || c.Fields != nil || c.Values != nil) {
			d.errorf(resolve(f.val).Line, at, "none: true cannot be combined with mark, fields or values")
		}
	}
	return c
}

func (d *decoder) route(v *yaml.Node, at string) *Route {
	m, fs, ok := d.mapping(v, at, "a mapping with mode and tool", routeKeys...)
	if !ok || !d.nonEmpty(m, fs, at, routeKeys...) {
		return nil
	}
	r := &Route{}
	if f, ok := fs["mode"]; ok {
		r.Mode, _ = d.str(f.val, join(at, "mode"))
	}
	if f, ok := fs["tool"]; ok {
		r.Tool, _ = d.str(f.val, join(at, "tool"))
	}
	return r
}

// tools reads {match, names, not_call}, or a list of names to match exactly.
// Names is nil when not given and empty when given as [] (no tool runs).
func (d *decoder) tools(v *yaml.Node, at string) *ToolSequence {
	if r := resolve(v); r != nil && r.Kind == yaml.SequenceNode {
		names, ok := d.strs(r, at, false)
		if !ok {
			return nil
		}
		return &ToolSequence{Match: matches[0], Names: names}
	}
	m, fs, ok := d.mapping(v, at, "a list of tool names or a mapping with match, names and not_call", toolsKeys...)
	if !ok || !d.nonEmpty(m, fs, at, toolsKeys...) {
		return nil
	}
	t := &ToolSequence{Match: matches[0]}
	if f, ok := fs["match"]; ok {
		if _, named := fs["names"]; !named {
			d.errorf(f.key.Line, join(at, "match"), "no names to match; add names or remove match")
		}
		t.Match, _ = d.enum(f.val, join(at, "match"), matches...)
	}
	if f, ok := fs["names"]; ok {
		t.Names, _ = d.strs(f.val, join(at, "names"), false)
	}
	if f, ok := fs["not_call"]; ok {
		t.NotCall, _ = d.strs(f.val, join(at, "not_call"), false)
	}
	return t
}

func (d *decoder) answer(v *yaml.Node, at string) *AnswerExpect {
	m, fs, ok := d.mapping(v, at, "a mapping with contains, not_contains, matches or language", answerKeys...)
	if !ok || !d.nonEmpty(m, fs, at, answerKeys...) {
		return nil
	}
	a := &AnswerExpect{}
	if f, ok := fs["contains"]; ok {
		a.Contains, _ = d.strs(f.val, join(at, "contains"), true)
	}
	if f, ok := fs["not_contains"]; ok {
		a.NotContains, _ = d.strs(f.val, join(at, "not_contains"), true)
	}
	if f, ok := fs["matches"]; ok {
		at := join(at, "matches")
		if re, ok := d.str(f.val, at); ok {
			if _, err := regexp.Compile(re); err != nil {
				d.errorf(resolve(f.val).Line, at, "invalid regular expression: %s; fix it (Go RE2 syntax)", regexpProblem(err))
			}
			a.Matches = re
		}
	}
	if f, ok := fs["language"]; ok {
		a.Language, _ = d.enum(f.val, join(at, "language"), languages...)
	}
	return a
}

// regexpProblem says what is wrong with a regular expression without
// repeating the "error parsing regexp" prefix.
func regexpProblem(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return fmt.Sprintf("%s in %q", se.Code, se.Expr)
	}
	return err.Error()
}

func (d *decoder) budget(v *yaml.Node, at string) *Budget {
	m, fs, ok := d.mapping(v, at, "a mapping with latency, input_tokens, context_tokens or token_reduction", budgetKeys...)
	if !ok || !d.nonEmpty(m, fs, at, budgetKeys...) {
		return nil
	}
	b := &Budget{}
	if f, ok := fs["latency"]; ok {
		at := join(at, "latency")
		if s, ok := d.str(f.val, at); ok {
			line := resolve(f.val).Line
			lat, err := time.ParseDuration(s)
			switch {
			case err != nil:
				d.errorf(line, at, "%q is not a duration; write it like 2s or 350ms", s)
			case lat <= 0:
				d.errorf(line, at, "want a positive duration, got %s", s)
			}
			b.Latency = lat
		}
	}
	if f, ok := fs["input_tokens"]; ok {
		b.InputTokens, _ = d.integer(f.val, join(at, "input_tokens"), 1)
	}
	if f, ok := fs["context_tokens"]; ok {
		b.ContextTokens, _ = d.integer(f.val, join(at, "context_tokens"), 1)
	}
	if f, ok := fs["token_reduction"]; ok {
		b.TokenReduction, _ = d.fraction(f.val, join(at, "token_reduction"))
	}
	return b
}

// fraction reads a number from 0 to 1, or a percentage from 0% to 100%.
func (d *decoder) fraction(v *yaml.Node, at string) (float64, bool) {
	r := resolve(v)
	var f float64
	switch {
	case r != nil && r.Kind == yaml.ScalarNode && r.ShortTag() == "!!str":
		p, ok := parsePercent(r.Value)
		if !ok {
			d.errorf(r.Line, at, "want a fraction like 0.69 or a percentage like 69%%, got %q", r.Value)
			return 0, false
		}
		f = p
	default:
		n, ok := d.number(v, at)
		if !ok {
			return 0, false
		}
		f = n
	}
	if f < 0 || f > 1 {
		d.errorf(r.Line, at, "want a fraction from 0 to 1 (or 0%% to 100%%), got %s", r.Value)
		return 0, false
	}
	return f, true
}
