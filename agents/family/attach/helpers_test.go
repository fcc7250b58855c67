package attach_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/tools/txtar"

	"github.com/agentreplay/testbed/agents/family/attach"
)

// golden compares got with the section name of testdata/inject.txtar, or,
// with -update, writes got there (creating the file if need be).
func golden(name, got string) {
	GinkgoHelper()
	path := filepath.Join("testdata", "inject.txtar")
	ar, err := txtar.ParseFile(path)
	if errors.Is(err, fs.ErrNotExist) && *update {
		ar, err = &txtar.Archive{Comment: []byte("Golden output of attach.Inject, written by: go test ./agents/family/attach/ -update\n")}, nil
	}
	Expect(err).NotTo(HaveOccurred(), "run: go test ./agents/family/attach/ -update")
	// txtar sections end in a newline; the renderings do not.
	got += "\n"
	i := 0
	for i < len(ar.Files) && ar.Files[i].Name != name {
		i++
	}
	if *update {
		if i == len(ar.Files) {
			ar.Files = append(ar.Files, txtar.File{Name: name})
		}
		ar.Files[i].Data = []byte(got)
		Expect(os.WriteFile(path, txtar.Format(ar), 0o644)).To(Succeed())
	}
	Expect(i).To(BeNumerically("<", len(ar.Files)), "%s has no section %s; run: go test ./agents/family/attach/ -update", path, name)
	Expect(got).To(Equal(string(ar.Files[i].Data)),
		"%s differs from %s; if the change is intended, run: go test ./agents/family/attach/ -update and review the diff", name, path)
}

// marshal encodes v compactly, or with two-space indentation.
func marshal(v any, indent bool) []byte {
	GinkgoHelper()
	var b []byte
	var err error
	if indent {
		b, err = json.MarshalIndent(v, "", "  ")
	} else {
		b, err = json.Marshal(v)
	}
	Expect(err).NotTo(HaveOccurred())
	return b
}

var cities = []string{"Lisbon", "Osaka", "Quito", "Tromsø", "Windhoek"}

// person is item i of the people list.
func person(i int) map[string]any {
	return map[string]any{
		"id":     i,
		"name":   fmt.Sprintf("Person %03d", i),
		"city":   cities[i%len(cities)],
		"score":  20 + float64(i%40) + 0.25,
		"active": i%3 != 0,
	}
}

// people is a JSON list of n people, as the upstream tests build theirs.
func people(n int, indent bool) []byte {
	list := make([]any, n)
	for i := range list {
		list[i] = person(i + 1)
	}
	return marshal(list, indent)
}

// leaves returns the scalar values inside v, at any depth, as they would be
// printed.
func leaves(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			out = append(out, leaves(e)...)
		}
	case []any:
		for _, e := range v {
			out = append(out, leaves(e)...)
		}
	case string:
		out = append(out, v)
	case float64, bool:
		out = append(out, fmt.Sprint(v))
	}
	return out
}

// history is a Home Assistant state history as family_assistant's
// download_state_history saves it (indented by two spaces): the pool
// temperature over five days, n states, every ninth one "unavailable".
func history(n int) []byte {
	start := time.Date(2025, 10, 26, 0, 0, 0, 0, time.UTC)
	end := start.Add(5 * 24 * time.Hour)
	states := make([]any, n)
	for i := range states {
		at := start.Add(time.Duration(i) * end.Sub(start) / time.Duration(n)).Format("2006-01-02T15:04:05.000000+00:00")
		attrs := map[string]any{"friendly_name": "Pool Temperature"}
		state := "unavailable"
		if i%9 != 4 {
			state = fmt.Sprintf("%.1f", 26+2*math.Sin(float64(i)/12))
			attrs["unit_of_measurement"] = "°C"
			attrs["device_class"] = "temperature"
			attrs["state_class"] = "measurement"
		}
		states[i] = map[string]any{
			"entity_id":    "sensor.pool_temperature",
			"state":        state,
			"attributes":   attrs,
			"last_changed": at,
			"last_updated": at,
			"context":      map[string]any{"id": fmt.Sprintf("01JBQ%021d", i), "parent_id": nil, "user_id": nil},
		}
	}
	return marshal(map[string]any{
		"start_time":               start.Format(time.RFC3339),
		"end_time":                 end.Format(time.RFC3339),
		"significant_changes_only": false,
		"entities":                 []any{map[string]any{"entity_id": "sensor.pool_temperature", "states": states}},
	}, true)
}

// readingsCSV is a CSV export of pool readings with a header and n rows; every
// eighth temperature is missing and every fifth note holds a quoted comma.
func readingsCSV(n int) []byte {
	var b strings.Builder
	b.WriteString("time,day,reading,temperature,pump_on,note\n")
	start := time.Date(2025, 10, 26, 0, 0, 0, 0, time.UTC)
	for i := range n {
		at := start.Add(time.Duration(i) * 20 * time.Minute)
		temp := fmt.Sprintf("%.1f", 26+2*math.Sin(float64(i)/12))
		if i%8 == 7 {
			temp = ""
		}
		note := "ok"
		if i%5 == 0 {
			note = `"skimmer, basket emptied"`
		}
		fmt.Fprintf(&b, "%s,%s,%d,%s,%t,%s\n", at.Format(time.RFC3339), at.Format(time.DateOnly), i+1, temp, i%4 < 2, note)
	}
	return []byte(b.String())
}

// padded returns data grown to exactly n bytes by repeating fill before its
// last byte (a closing bracket or quote, a final newline), cutting fill short
// where needed.
func padded(head, fill, tail string, n int) []byte {
	GinkgoHelper()
	body := strings.Repeat(fill, (n-len(head)-len(tail))/len(fill)+1)
	out := head + body[:n-len(head)-len(tail)] + tail
	Expect(out).To(HaveLen(n))
	return []byte(out)
}

// store returns an attachment stored in a fresh Store, so that its id is att-1.
func store(name, mime, description string, data []byte) attach.Attachment {
	return attach.NewStore().Put(name, mime, description, data)
}

// itoa formats n in decimal.
func itoa(n int) string { return fmt.Sprint(n) }
