package attach_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentreplay/testbed/agents/family/attach"
)

// FuzzInject checks that Inject never panics, always returns valid UTF-8 that
// names the attachment, and puts data of at most Threshold bytes in whole when
// it is JSON, CSV or text. The seed corpus is testdata/fuzz/FuzzInject.
func FuzzInject(f *testing.F) {
	f.Fuzz(func(t *testing.T, mime, mode string, data []byte, grow uint16) {
		// Repeat data so that the fuzzer reaches sizes above Threshold.
		if n := int(grow); n > 1 && len(data) > 0 {
			data = []byte(strings.Repeat(string(data), min(n, 2*attach.Threshold/len(data)+1)))
		}
		a := attach.NewStore().Put("f", mime, "d", data)
		got := attach.Inject(a, attach.Mode(mode))
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8: %q", got)
		}
		if !strings.Contains(got, "att-1") {
			t.Errorf("the attachment id is missing: %q", got)
		}
		if len(data) <= attach.Threshold && !strings.HasPrefix(got, "[System: File from previous tool response]") &&
			!strings.Contains(got, "is binary content") {
			t.Errorf("%d bytes of %q are not inline: %q", len(data), mime, got)
		}
		if n := attach.Notice("tool", a); !utf8.ValidString(n) {
			t.Fatalf("invalid UTF-8 notice: %q", n)
		}
	})
}
