package cba

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strconv"
	"strings"
)

// usecase is one project of kb/usecases.csv with its outcomes and, for
// each, the indicators selected to monitor it (as the real project's
// example selection workbook holds them).
type usecase struct {
	ID, Title, Country, Commodity string
	Outcomes                      []outcome
}

type outcome struct {
	Text       string
	Indicators []int
}

// readUsecases groups the rows of kb/usecases.csv, one row per outcome,
// into use cases in file order.
func readUsecases(name string, data []byte) ([]usecase, error) {
	rows, err := readCSV(name, data)
	if err != nil {
		return nil, err
	}
	var out []usecase
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1].ID != r["id"] {
			out = append(out, usecase{ID: r["id"], Title: r["title"], Country: r["country"], Commodity: r["commodity"]})
		}
		o := outcome{Text: r["outcome"]}
		for _, s := range strings.Split(r["indicator_ids"], ";") {
			id, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				return nil, fmt.Errorf("%s: use case %s: indicator id %q is not a number", name, r["id"], s)
			}
			o.Indicators = append(o.Indicators, id)
		}
		u := &out[len(out)-1]
		u.Outcomes = append(u.Outcomes, o)
	}
	return out, nil
}

// version names the tables' content: the first 12 hex digits of the
// SHA-256 of every table in kbFiles order.
func version(contents [][]byte) string {
	h := sha256.New()
	for _, c := range contents {
		h.Write(c)
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:12]
}

func (a *Agent) searchUsecases(_ context.Context, args map[string]any) (string, []byte, error) {
	// words of three letters or more: "in" or "of" match every title
	var q []string
	for _, w := range words(str(args, "query")) {
		if len(w) >= 3 {
			q = append(q, w)
		}
	}
	n := 3
	if v, ok := args["n_results"].(float64); ok && v > 0 {
		n = int(v)
	}
	var b strings.Builder
	found := 0
	for _, u := range a.kb.usecases {
		text := u.Title + " " + u.Country + " " + u.Commodity
		for _, o := range u.Outcomes {
			text += " " + o.Text
		}
		if found == n || overlap(q, text) == 0 {
			continue
		}
		found++
		fmt.Fprintf(&b, "Use case %s: %s (%s, %s)\n", u.ID, u.Title, u.Country, u.Commodity)
		for _, o := range u.Outcomes {
			var names []string
			for _, id := range o.Indicators {
				if in, err := a.kb.find(strconv.Itoa(id)); err == nil {
					names = append(names, fmt.Sprintf("%d %s", in.ID, in.Name))
				}
			}
			fmt.Fprintf(&b, "- %s: %s\n", o.Text, strings.Join(names, "; "))
		}
	}
	if found == 0 {
		return fmt.Sprintf("No use case matches '%s'.", str(args, "query")), nil, nil
	}
	return strings.TrimRight(b.String(), "\n"), nil, nil
}

func (a *Agent) knowledgeVersion(context.Context, map[string]any) (string, []byte, error) {
	return fmt.Sprintf("Knowledge base version %s: %d indicators, %d methods, %d use cases, from the tables %s.",
		a.kb.version, len(a.kb.indicators), len(a.kb.methods), len(a.kb.usecases), strings.Join(kbFiles, ", ")), nil, nil
}
