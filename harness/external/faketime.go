package external

import (
	"debug/buildinfo"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// ErrNoFakeTime is matched (errors.Is) by the error of a run that asks for
// the fake clock (Spec.FakeClock) where libfaketime cannot be loaded.
var ErrNoFakeTime = errors.New("libfaketime is not available")

// fakeTimeLibraries are where Linux distributions install libfaketime's
// preload library: Debian and Ubuntu under the multiarch folder, Fedora
// under lib64, Alpine and Arch under lib, a build from source under
// /usr/local.
var fakeTimeLibraries = []string{
	"/usr/lib/*-linux-gnu/faketime/libfaketime.so.1",
	"/usr/lib64/faketime/libfaketime.so.1",
	"/usr/lib/faketime/libfaketime.so.1",
	"/usr/local/lib/faketime/libfaketime.so.1",
}

// fakeTimeLibrary finds libfaketime's preload library.
func fakeTimeLibrary() (string, error) {
	if runtime.GOOS != "linux" {
		return "", fmt.Errorf("%w: agent.clock: fake works on Linux only (macOS's System Integrity Protection strips DYLD_INSERT_LIBRARIES); "+
			"read TESTBED_NOW or TESTBED_CLOCK_URL in the agent instead", ErrNoFakeTime)
	}
	for _, pattern := range fakeTimeLibraries {
		found, _ := filepath.Glob(pattern)
		for _, f := range found {
			if info, err := os.Stat(f); err == nil && info.Mode().IsRegular() {
				return f, nil
			}
		}
	}
	return "", fmt.Errorf("%w: agent.clock: fake needs libfaketime's preload library, found in none of %s; "+
		"install it (Debian, Ubuntu: apt-get install libfaketime; Fedora: dnf install libfaketime; Alpine: apk add libfaketime), "+
		"or remove clock: fake", ErrNoFakeTime, strings.Join(fakeTimeLibraries, ", "))
}

// fakeClock is the environment that makes a dynamically linked program's
// wall clock read clock, as of now, and run on from there: libfaketime
// preloaded, with FAKETIME the offset from the real clock in seconds (to
// the millisecond: libfaketime reads fractions).
// Monotonic clocks stay real, so the program's timeouts and sleeps do.
func fakeClock(clock, now time.Time) (map[string]string, error) {
	lib, err := fakeTimeLibrary()
	if err != nil {
		return nil, err
	}
	return map[string]string{
		"LD_PRELOAD":                   lib,
		"FAKETIME":                     fmt.Sprintf("%+.3fs", clock.Sub(now).Seconds()),
		"FAKETIME_DONT_FAKE_MONOTONIC": "1",
	}, nil
}

// ErrGoClock is matched (errors.Is) by the error of a run that asks for
// the fake clock for a Go program, which no preload reaches.
var ErrGoClock = errors.New("a Go program's clock cannot be faked")

// notGo refuses the fake clock for a program written in Go: Go reads the
// wall clock through the kernel's vDSO, never through libc, so
// libfaketime cannot change what it sees. name is the command as the
// suite gives it, dir its working folder.
func notGo(name, dir string) error {
	path := name
	if strings.Contains(name, "/") && !filepath.IsAbs(name) {
		path = filepath.Join(dir, name)
	} else if found, err := exec.LookPath(name); err == nil {
		path = found
	}
	if _, err := buildinfo.ReadFile(path); err != nil {
		return nil // not a Go binary, or not one to read: the preload may work
	}
	return fmt.Errorf("%w: agent.clock: fake cannot change the clock of %s, a Go program: Go reads the time through the kernel's vDSO, "+
		"never through libc, so no preload reaches it; read TESTBED_NOW or TESTBED_CLOCK_URL in the agent, "+
		"or declare the times it sends with match: rules (docs/recording.md), and remove clock: fake", ErrGoClock, name)
}
