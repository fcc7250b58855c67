package kura_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentreplay/testbed/agents/kura"
)

// FuzzDeepMerge checks that DeepMerge never panics, returns dst, leaves src
// as it was, keeps every key of src with its value (maps merged, the rest
// replaced), keeps the keys of dst that src lacks, shares no map with src,
// and is idempotent. The seed corpus is testdata/fuzz/FuzzDeepMerge.
func FuzzDeepMerge(f *testing.F) {
	f.Fuzz(func(t *testing.T, dstJSON, srcJSON []byte) {
		var dst, src, before, srcBefore map[string]any
		if json.Unmarshal(dstJSON, &dst) != nil || json.Unmarshal(srcJSON, &src) != nil || dst == nil {
			return
		}
		json.Unmarshal(dstJSON, &before)
		json.Unmarshal(srcJSON, &srcBefore)

		out := kura.DeepMerge(dst, src)
		if reflect.ValueOf(out).Pointer() != reflect.ValueOf(dst).Pointer() {
			t.Fatal("DeepMerge did not return dst")
		}
		if !reflect.DeepEqual(src, srcBefore) {
			t.Fatalf("src changed: %s", srcJSON)
		}
		checkMerged(t, "", before, src, out)

		// Changing any map of the result leaves src alone.
		touchMaps(out)
		if !reflect.DeepEqual(src, srcBefore) {
			t.Fatalf("the result shares a map with src %s", srcJSON)
		}

		var again, once map[string]any
		json.Unmarshal(dstJSON, &again)
		json.Unmarshal(dstJSON, &once)
		kura.DeepMerge(once, src)
		kura.DeepMerge(kura.DeepMerge(again, src), src)
		if !reflect.DeepEqual(again, once) {
			t.Fatalf("merging %s twice differs from once", srcJSON)
		}
	})
}

// checkMerged checks got = before merged with src at path.
func checkMerged(t *testing.T, path string, before, src, got map[string]any) {
	t.Helper()
	for k, bv := range before {
		if _, inSrc := src[k]; !inSrc && !reflect.DeepEqual(got[k], bv) {
			t.Fatalf("%s/%s: %v became %v though src does not have it", path, k, bv, got[k])
		}
	}
	for k, sv := range src {
		gv, ok := got[k]
		if !ok {
			t.Fatalf("%s/%s of src is lost", path, k)
		}
		sm, srcMap := sv.(map[string]any)
		if !srcMap {
			if !reflect.DeepEqual(gv, sv) {
				t.Fatalf("%s/%s: got %v, want src's %v", path, k, gv, sv)
			}
			continue
		}
		gm, ok := gv.(map[string]any)
		if !ok {
			t.Fatalf("%s/%s: got %v, want a map", path, k, gv)
		}
		bm, _ := before[k].(map[string]any)
		checkMerged(t, path+"/"+k, bm, sm, gm)
	}
}

// touchMaps adds a key to every map under m.
func touchMaps(m map[string]any) {
	for _, v := range m {
		if sub, ok := v.(map[string]any); ok {
			touchMaps(sub)
		}
	}
	m["\x00touched"] = true
}

var actions = []string{kura.ActionGeolocate, kura.ActionReverseGeocode, kura.ActionGeocode, kura.ActionWeather,
	kura.ActionTransit, kura.ActionPlaces, kura.ActionConversation}

// FuzzParsePlan checks that ParsePlan never panics, that a plan it accepts
// has steps, each with a known action, an id and args, that Expand unrolls
// every forEach, and that a rejection is one short line of valid UTF-8. The
// seed corpus is testdata/fuzz/FuzzParsePlan.
func FuzzParsePlan(f *testing.F) {
	f.Fuzz(func(t *testing.T, text string) {
		p, err := kura.ParsePlan(text)
		if err != nil {
			if p != nil {
				t.Errorf("ParsePlan returned a plan and an error")
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || len(msg) > 1024 || !utf8.ValidString(msg) {
				t.Fatalf("error for %d bytes is not one short valid line: %q", len(text), msg)
			}
			return
		}
		if len(p.Steps) == 0 {
			t.Fatal("an accepted plan has no steps")
		}
		want := 0
		for _, s := range p.Steps {
			if !slices.Contains(actions, s.Action) || s.ID == "" || s.Args == nil {
				t.Fatalf("accepted step %+v", s)
			}
			want += max(1, len(s.ForEach))
		}
		steps := p.Expand()
		if len(steps) != want {
			t.Fatalf("Expand gave %d steps, want %d", len(steps), want)
		}
		for _, s := range steps {
			if !slices.Contains(actions, s.Action) || s.ID == "" || s.Args == nil || len(s.ForEach) != 0 {
				t.Fatalf("expanded step %+v", s)
			}
		}
	})
}
