// Package proctest finds processes by what they run, for the specs that
// check no process of an agent outlives testbed.
package proctest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
)

// Sleeping returns the pids of the processes running "sleep marker" that
// are not zombies, by the host's /proc (none where there is no /proc).
func Sleeping(marker string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || string(cmdline) != "sleep\x00"+marker+"\x00" {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && bytes.Contains(stat, []byte(") Z ")) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}
