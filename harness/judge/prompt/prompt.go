// Package prompt is the template that a suite's judge: prompt writes a
// grading request with, in place of the built-in instructions: the data it
// sees (Subject) and the parse that checks it (Parse), so that a misspelt
// field is a problem of the suite file, found when it loads, not when a
// grader is called.
//
// It does not call a grader, and knows nothing of the suite file: a
// Problem's line is the template's own.
package prompt

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"
)

// Subject is what a grader is shown, and what a prompt template sees.
type Subject struct {
	Rubric string
	Input  string // the user's turns, in order
	Answer string // the agent's final answer
	// Tools and ToolResults are shown only when the rubric asks for them
	// (with: [tools, tool_results]); empty otherwise.
	Tools       string
	ToolResults string
}

// Fields are the names of Subject's fields, in order: what a template may
// write after a dot.
func Fields() []string {
	t := reflect.TypeFor[Subject]()
	out := make([]string, t.NumField())
	for i := range out {
		out[i] = t.Field(i).Name
	}
	return out
}

// Problem is one problem of a prompt template, at a line of its text.
type Problem struct {
	Line int // 1-based, in the template's text
	Msg  string
	// Field is the field a problem names that Subject lacks ("Rubrik"),
	// for a caller to suggest the one meant; "" for other problems.
	Field string
}

// Problems is every problem Parse found; its items are in the order of
// their lines.
type Problems []Problem

// Error returns the problems as "line N: message", joined by "; ".
func (ps Problems) Error() string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = fmt.Sprintf("line %d: %s", p.Line, p.Msg)
	}
	return strings.Join(out, "; ")
}

// Parse parses text as a prompt template: a text/template that fails on a
// missing key, whose every field names one of Subject's (.Rubric, $.Input),
// and that executes on a Subject with every field set, so its branches on
// them run. It returns the template, or Problems.
func Parse(text string) (*template.Template, error) {
	t, err := template.New("judge").Option("missingkey=error").Parse(text)
	if err != nil {
		line, msg := position(err.Error())
		if m := started.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1]) // where the unclosed action starts, not the end of the text
		}
		return nil, Problems{{Line: line, Msg: "not a Go template: " + msg}}
	}
	c := checker{text: text, fields: Fields()}
	c.list(t.Root, true)
	if len(c.problems) > 0 {
		return nil, c.problems
	}
	sample := Subject{Rubric: "testbed-sample-rubric", Input: "testbed-sample-input", Answer: "testbed-sample-answer", Tools: "tools", ToolResults: "tool results"}
	var full bytes.Buffer
	if err := t.Execute(&full, sample); err != nil {
		line, msg := position(err.Error())
		return nil, Problems{{Line: line, Msg: msg}}
	}
	// Most rubrics show the grader no tools: the prompt must show it the
	// rubric and the answer then too, else every grade rests on nothing.
	bare := sample
	bare.Tools, bare.ToolResults = "", ""
	var plain bytes.Buffer
	if err := t.Execute(&plain, bare); err != nil {
		line, msg := position(err.Error())
		return nil, Problems{{Line: line, Msg: msg}}
	}
	var ps Problems
	for _, f := range []struct{ field, value, what string }{{"Answer", sample.Answer, "the agent's answer"}, {"Rubric", sample.Rubric, "the rubric"}} {
		if !strings.Contains(full.String(), f.value) || !strings.Contains(plain.String(), f.value) {
			ps = append(ps, Problem{Line: 1, Msg: fmt.Sprintf("the prompt does not show the grader .%s (%s) whatever the grading data, so a grade would rest on nothing; write {{.%s}} in it, outside any branch", f.field, f.what, f.field)})
		}
	}
	if len(ps) > 0 {
		return nil, ps
	}
	return t, nil
}

// located is text/template's "template: judge:LINE[:COL]: " before a
// message, and an execution error's "executing "judge" at <…>: ".
var located = regexp.MustCompile(`^template: judge:(\d+)(?::\d+)?: (?:executing "judge" at <[^>]*>: )?`)

// position splits a text/template error into its line and message.
func position(msg string) (int, string) {
	m := located.FindStringSubmatch(msg)
	if m == nil {
		return 1, msg
	}
	line, _ := strconv.Atoi(m[1])
	return line, elsewhere.ReplaceAllString(msg[len(m[0]):], "the prompt's line $1")
}

// started is where an action that is not closed starts.
var started = regexp.MustCompile(`started at judge:(\d+)`)

// elsewhere is a line a text/template message names in its text.
var elsewhere = regexp.MustCompile(`\bjudge:(\d+)(?::\d+)?`)

// checker walks a template's tree and finds the fields that Subject lacks.
type checker struct {
	text     string
	fields   []string
	problems Problems
}

// list checks every node of l; subject is true while dot is the Subject.
func (c *checker) list(l *parse.ListNode, subject bool) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		c.node(n, subject)
	}
}

func (c *checker) node(n parse.Node, subject bool) {
	switch n := n.(type) {
	case *parse.ActionNode:
		c.node(n.Pipe, subject)
	case *parse.PipeNode:
		if n == nil {
			return
		}
		for _, cmd := range n.Cmds {
			c.node(cmd, subject)
		}
	case *parse.CommandNode:
		for _, a := range n.Args {
			c.node(a, subject)
		}
	case *parse.FieldNode:
		if subject {
			c.field(n.Position(), n.Ident)
		}
	case *parse.VariableNode:
		if n.Ident[0] == "$" && len(n.Ident) > 1 {
			c.field(n.Position(), n.Ident[1:])
		}
	case *parse.ChainNode:
		c.node(n.Node, subject)
	case *parse.IfNode:
		c.branch(&n.BranchNode, subject, subject)
	case *parse.WithNode:
		// Dot is the pipeline's value: a string, unless it is dot or $.
		c.branch(&n.BranchNode, subject, subject && keepsDot(n.Pipe))
	case *parse.RangeNode:
		c.branch(&n.BranchNode, subject, false)
	case *parse.TemplateNode:
		c.node(n.Pipe, subject)
	}
}

// branch checks an if, with or range: its pipeline and else under dot as
// it is, its body with inner as whether dot is the Subject there.
func (c *checker) branch(b *parse.BranchNode, subject, inner bool) {
	c.node(b.Pipe, subject)
	c.list(b.List, inner)
	c.list(b.ElseList, subject)
}

// keepsDot reports whether pipeline p is dot or $ alone.
func keepsDot(p *parse.PipeNode) bool {
	if p == nil || len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
		return false
	}
	switch a := p.Cmds[0].Args[0].(type) {
	case *parse.DotNode:
		return true
	case *parse.VariableNode:
		return len(a.Ident) == 1 && a.Ident[0] == "$"
	}
	return false
}

// field checks the chain of field names idents, written at pos, on the
// Subject: its first must be a field, and a field is text, with none of
// its own.
func (c *checker) field(pos parse.Pos, idents []string) {
	line := 1 + strings.Count(c.text[:min(int(pos), len(c.text))], "\n")
	sees := "." + strings.Join(c.fields, ", .")
	switch {
	case !slices.Contains(c.fields, idents[0]):
		c.problems = append(c.problems, Problem{Line: line, Field: idents[0],
			Msg: fmt.Sprintf(".%s is not something the grader's prompt sees (it sees %s)", idents[0], sees)})
	case len(idents) > 1:
		c.problems = append(c.problems, Problem{Line: line,
			Msg: fmt.Sprintf(".%s is text, with no field .%s (the prompt sees %s)", idents[0], idents[1], sees)})
	}
}
