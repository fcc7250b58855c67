package report

import (
	"fmt"
	"strings"
)

// isolation is what the hermeticity line adds for agents run as programs:
// how they were kept off the network, and the runs that called a host they
// were not given; "" when no such agent ran and none did.
func (s *ReplayStats) isolation() string {
	var b strings.Builder
	for _, iso := range s.Isolation {
		b.WriteString("; outside agents " + iso)
	}
	if s.Escaped > 0 {
		fmt.Fprintf(&b, "; %s with a call to a host not given (refused: see the errors)", Count(s.Escaped, "scenario run"))
	}
	return b.String()
}
