package cba

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Internal help tools, as the real project's tools/_help.py has them: they
// describe the active set, are appended to what the model gets, and are
// never shown or counted in a user-facing catalogue.
const (
	ToolListTools           = "list_tools"
	ToolListToolsByCategory = "list_tools_by_category"
	ToolSearchTools         = "search_tools"
	ToolDescribeTool        = "describe_tool"
)

// HelpTools are the internal help tools in the order the model gets them.
var HelpTools = []string{ToolListTools, ToolListToolsByCategory, ToolSearchTools, ToolDescribeTool}

func isHelp(name string) bool { return slices.Contains(HelpTools, name) }

// categories maps a category to words of the tool names it holds, as the
// real project's keyword map does for the categories this agent's tools
// fall in.
var categories = []struct{ name, doc string }{
	{"weather", "weather climate"},
	{"soil", "soil"},
	{"socioeconomic", "country world_bank"},
	{"knowledge_base", "indicator method knowledge classes usecase"},
}

func categoryOf(name string) []string {
	var out []string
	for _, c := range categories {
		for _, w := range strings.Fields(c.doc) {
			if strings.Contains(name, w) {
				out = append(out, c.name)
				break
			}
		}
	}
	return out
}

// listing writes one bullet per tool: its name and summary.
func listing(ts []*tool) string {
	if len(ts) == 0 {
		return "No tools available."
	}
	var b strings.Builder
	for _, t := range ts {
		fmt.Fprintf(&b, "- %s: %s\n", t.name, t.summary())
	}
	return strings.TrimRight(b.String(), "\n")
}

// helpTools are the internal help tools over the active set.
func (a *Agent) helpTools() []*tool {
	var names []string
	for _, c := range categories {
		names = append(names, c.name)
	}
	return []*tool{
		{name: ToolListTools, params: obj(``),
			doc: "List all available tools with one-line summaries.\n\nReturns:\n    Tool names and brief descriptions (internal use only).",
			run: func(context.Context, map[string]any) (string, []byte, error) {
				return listing(a.active), nil, nil
			}},
		{name: ToolListToolsByCategory, params: obj(`"category":{"type":"string","description":"One of `+strings.Join(names, ", ")+`."}`, "category"),
			doc: "List the available tools of one category.\n\nArgs:\n    category: One of " + strings.Join(names, ", ") + ".\n\nReturns:\n    Tool names and brief descriptions of that category (internal use only).",
			run: func(_ context.Context, args map[string]any) (string, []byte, error) {
				c := strings.ToLower(str(args, "category"))
				if !slices.Contains(names, c) {
					return fmt.Sprintf("Unknown category '%s'. Categories: %s.", c, strings.Join(names, ", ")), nil, nil
				}
				var in []*tool
				for _, t := range a.active {
					if slices.Contains(categoryOf(t.name), c) {
						in = append(in, t)
					}
				}
				return listing(in), nil, nil
			}},
		{name: ToolSearchTools, params: obj(pQuery, "query"),
			doc: "Search the available tools by words in their names and documentation.\n\nArgs:\n    query: Words, for example \"rain forecast\".\n\nReturns:\n    Matching tools, best first, with brief descriptions (internal use only).",
			run: func(_ context.Context, args map[string]any) (string, []byte, error) {
				q := words(strings.ReplaceAll(str(args, "query"), "_", " "))
				type hit struct {
					t *tool
					n int
				}
				var hits []hit
				for _, t := range a.active {
					if n := overlap(q, strings.ReplaceAll(t.name, "_", " ")+" "+t.doc); n > 0 {
						hits = append(hits, hit{t, n})
					}
				}
				slices.SortStableFunc(hits, func(x, y hit) int { return y.n - x.n })
				var ts []*tool
				for _, h := range hits {
					ts = append(ts, h.t)
				}
				if len(ts) == 0 {
					return fmt.Sprintf("No tool matches '%s'. Use list_tools() to see available tools.", str(args, "query")), nil, nil
				}
				return listing(ts), nil, nil
			}},
		{name: ToolDescribeTool, params: obj(`"name":{"type":"string","description":"The tool name."}`, "name"),
			doc: "Get detailed documentation for a specific tool.\n\nArgs:\n    name: The tool name, for example \"get_current_weather\".\n\nReturns:\n    Full documentation with Args and Returns (internal use only).",
			run: func(_ context.Context, args map[string]any) (string, []byte, error) {
				name := str(args, "name")
				for _, t := range a.active {
					if t.name == name {
						return t.doc, nil, nil
					}
				}
				return fmt.Sprintf("Tool '%s' not found. Use list_tools() to see available tools.", name), nil, nil
			}},
	}
}
