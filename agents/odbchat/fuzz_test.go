package odbchat_test

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentreplay/testbed/agents/odbchat"
)

// FuzzNormalize checks the plan's arguments as the router hands them over
// (decoded JSON): normalization never panics; a rejection is an
// INVALID_ARGUMENT ToolError with a one-line message; accepted arguments have
// a YYYY-MM-DD date, sorted known fields, a finite bbox with lon0 < lon1 in
// −180…180 and lat0 < lat1 in −90…90, or a finite point in those ranges; and
// normalizing them again changes nothing. The seed corpus is
// testdata/fuzz/FuzzNormalize.
func FuzzNormalize(f *testing.F) {
	tools := []string{odbchat.ToolBBoxMean, odbchat.ToolPointValue, "ghrsst.unknown"}
	f.Fuzz(func(t *testing.T, which uint8, argsJSON []byte) {
		tool := tools[int(which)%len(tools)]
		var in map[string]any
		if json.Unmarshal(argsJSON, &in) != nil || in == nil {
			return
		}
		args, err := odbchat.Normalize(tool, in, "2025-11-06")
		if err != nil {
			var te *odbchat.ToolError
			if !errors.As(err, &te) || te.Code != odbchat.CodeInvalidArgument || te.Message == "" ||
				strings.Contains(te.Message, "\n") || !utf8.ValidString(te.Message) {
				t.Fatalf("%s %s: error %#v", tool, argsJSON, err)
			}
			return
		}
		if d, err := time.Parse(time.DateOnly, args.Date); err != nil || d.Format(time.DateOnly) != args.Date {
			t.Fatalf("%s %s: date %q", tool, argsJSON, args.Date)
		}
		if len(args.Fields) == 0 || !slices.IsSorted(args.Fields) || len(slices.Compact(slices.Clone(args.Fields))) != len(args.Fields) {
			t.Fatalf("%s %s: fields %q", tool, argsJSON, args.Fields)
		}
		for _, f := range args.Fields {
			if f != "sst" && f != "sst_anomaly" {
				t.Fatalf("%s %s: field %q", tool, argsJSON, f)
			}
		}
		switch tool {
		case odbchat.ToolBBoxMean:
			b := args.BBox
			if len(b) != 4 || !finite(b...) || !(b[0] < b[2]) || !(b[1] < b[3]) ||
				b[0] < -180 || b[2] > 180 || b[1] < -90 || b[3] > 90 {
				t.Fatalf("%s %s: bbox %v", tool, argsJSON, b)
			}
		case odbchat.ToolPointValue:
			if args.Longitude == nil || args.Latitude == nil {
				t.Fatalf("%s %s: no point", tool, argsJSON)
			}
			lon, lat := *args.Longitude, *args.Latitude
			if !finite(lon, lat) || lon < -180 || lon > 180 || lat < -90 || lat > 90 {
				t.Fatalf("%s %s: point (%v, %v)", tool, argsJSON, lon, lat)
			}
		}
		if tool != odbchat.ToolBBoxMean && tool != odbchat.ToolPointValue {
			return // nothing of the arguments is kept
		}
		out, err := json.Marshal(args)
		if err != nil {
			t.Fatalf("%s %s: %+v does not marshal: %v", tool, argsJSON, args, err)
		}
		var back map[string]any
		json.Unmarshal(out, &back)
		again, err := odbchat.Normalize(tool, back, "2001-01-01")
		if err != nil || !reflect.DeepEqual(again, args) {
			t.Fatalf("%s %s: normalized %s again to %+v, %v", tool, argsJSON, out, again, err)
		}
	})
}

func finite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
