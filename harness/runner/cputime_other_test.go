//go:build !unix

package runner_test

import "time"

// cpuTime is 0 where getrusage is missing: the CPU columns read 0.
func cpuTime() time.Duration { return 0 }
