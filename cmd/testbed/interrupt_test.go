package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
)

// background runs the CLI in-process on its own goroutine with ctx.
func background(ctx context.Context, args ...string) <-chan result {
	out := make(chan result, 1)
	go func() {
		defer GinkgoRecover()
		var stdout, stderr bytes.Buffer
		code := run(ctx, args, &stdout, &stderr)
		out <- result{code: code, stdout: stdout.String(), stderr: stderr.String()}
	}()
	return out
}

// listed returns the lines indented under "title (n):" in text.
func listed(text, title string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, title+" ("):
			in = true
		case in && strings.HasPrefix(line, "  "):
			out = append(out, strings.TrimPrefix(line, "  "))
		default:
			in = false
		}
	}
	return out
}

var _ = Describe("testbed record, interrupted", func() {
	It("aborts the scenario in flight, keeps every cassette it did not record, and says which it recorded", func() {
		root := project()
		dir := filepath.Join(root, "cassettes", "odbchat")
		// Mark every cassette so that one re-recorded is told from one left alone.
		const mark = "# before the interrupted recording\n"
		for name, data := range yamlFiles(dir) {
			Expect(os.WriteFile(filepath.Join(dir, name), append(data, mark...), 0o644)).To(Succeed())
		}
		before := yamlFiles(dir)

		// Interrupt as soon as the first cassette has been replaced, as
		// SIGINT would (main cancels the context on SIGINT and SIGTERM).
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := background(ctx, "record", "--root", root, "--suite", "odbchat")
		Eventually(func() bool {
			for name := range before {
				data, err := os.ReadFile(filepath.Join(dir, name))
				if err == nil && !bytes.HasSuffix(data, []byte(mark)) {
					return true
				}
			}
			return false
		}).WithTimeout(time.Minute).WithPolling(2 * time.Millisecond).Should(BeTrue())
		cancel()
		var r result
		Eventually(done).WithTimeout(time.Minute).Should(Receive(&r))

		Expect(r.code).To(Equal(exitSignal), r.String())
		Expect(r.stdout).To(BeEmpty())
		after := yamlFiles(dir) // no temporary file and no lock file is left
		Expect(after).To(HaveLen(len(before)))
		var changed, kept []string
		for name, data := range before {
			if strings.HasSuffix(name, ".judge.yaml") {
				continue // a scenario's grades, recorded with it
			}
			scenario := "odbchat/" + strings.TrimSuffix(name, ".yaml")
			if bytes.Equal(after[name], data) {
				kept = append(kept, scenario)
			} else {
				Expect(string(after[name])).NotTo(HaveSuffix(mark), "a cassette is replaced whole or not at all")
				changed = append(changed, scenario)
			}
		}
		Expect(changed).NotTo(BeEmpty())
		Expect(kept).NotTo(BeEmpty())
		Expect(r.stderr).To(HavePrefix(fmt.Sprintf(
			"testbed: interrupted: recorded %d of 60 scenarios; every cassette not recorded is as it was\nrecorded (%d):\n",
			len(changed), len(changed))))
		Expect(listed(r.stderr, "recorded")).To(ConsistOf(changed))
		notRecorded := listed(r.stderr, "not recorded")
		Expect(notRecorded).To(HaveLen(len(kept)))
		trimmed := make([]string, len(notRecorded))
		for i, n := range notRecorded {
			trimmed[i] = strings.TrimSuffix(n, " (interrupted while recording)")
		}
		Expect(trimmed).To(ConsistOf(kept))
		// The scenario in flight, if the signal came during one rather than
		// between two, is listed as "(interrupted while recording)" and its
		// cassette is among those kept.
		Expect(strings.Count(r.stderr, "(interrupted while recording)")).To(BeNumerically("<=", 1))
		Expect(r.stderr).To(HaveSuffix(fmt.Sprintf("not recorded (%d):\n", len(kept)) + "  " + strings.Join(notRecorded, "\n  ") + "\n"))

		By("recording again afterwards: the lock was released")
		again := testbed("record", "--root", root, "--suite", "odbchat", "--variant", "legacy", "--scenario", "ac1-taiwan-sst")
		Expect(again.code).To(Equal(exitOK), again.String())
	})
})

var _ = Describe("testbed record, twice at once", func() {
	It("refuses the second recording of a suite at once, naming the lock, its holder and what to do", func() {
		root := project()
		lock := filepath.Join(root, "cassettes", "odbchat", cassette.LockName)
		// The first recording's hold, taken as the recorder takes it, for
		// as long as this spec says: a recording that waited for the lock
		// would never end.
		first, err := cassette.AcquireLock(filepath.Dir(lock))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(first.Release)
		Expect(mustRead(lock)).To(MatchRegexp(`^\d+ `), "the holder writes its pid")

		var second result
		Eventually(background(context.Background(), "record", "--root", root, "--suite", "odbchat", "--variant", "legacy")).
			WithTimeout(time.Minute).Should(Receive(&second), "refused while the lock is held, without waiting for it")
		Expect(second.code).To(Equal(exitLocked), second.String())
		Expect(second.stdout).To(BeEmpty())
		Expect(second.stderr).To(MatchRegexp(`^testbed: suite odbchat is being recorded: another recording holds ` + regexp.QuoteMeta(lock) +
			fmt.Sprintf(` \(pid %d, since [0-9T:+Z-]+\); wait for it to finish or stop it \(kill %d\)\. `, os.Getpid(), os.Getpid()) +
			`The lock is released when its process exits; a lock file left by a crashed recording does not block and may be deleted\n$`))

		By("recording once the first has released the lock, which the recording releases in turn")
		Expect(first.Release()).To(Succeed())
		Expect(testbed("record", "--root", root, "--suite", "odbchat", "--variant", "legacy", "--scenario", "ac1-taiwan-sst").code).To(Equal(exitOK))
		Expect(lock).NotTo(BeAnExistingFile())
	})

	It("records two different suites at once", func() {
		root := project()
		held, err := cassette.AcquireLock(filepath.Join(root, "cassettes", "another-suite"))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(held.Release)

		r := testbed("record", "--root", root, "--suite", "odbchat", "--variant", "legacy", "--scenario", "ac1-taiwan-sst")
		Expect(r.code).To(Equal(exitOK), r.String())
	})
})

var _ = Describe("commands interrupted", func() {
	DescribeTable("exit 130, as the README promises, whatever was under way",
		func(args ...string) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // as if SIGINT arrived at once
			r := <-background(ctx, append(args, "--root", project(), "--quiet")...)
			Expect(r.code).To(Equal(exitSignal), r.String())
			Expect(r.stderr).To(HavePrefix("testbed: interrupted"))
		},
		Entry("run", "run", "--out", "", "--baseline", ""),
		Entry("compare", "compare", "--suite", "odbchat", "--base", "legacy", "--head", "single-pass"),
		Entry("baseline bless", "baseline", "bless", "--out", "reports/b.json"),
	)

	It("exit 130 for cassettes check too: what it scanned is no all-clear", func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r := <-background(ctx, "cassettes", "check", "--root", project())
		Expect(r.code).To(Equal(exitSignal), r.String())
		Expect(r.stderr).To(HavePrefix("testbed: interrupted"))
		Expect(r.stdout).NotTo(ContainSubstring("no secrets found"))
	})
})

var _ = Describe("testbed record, interrupted and resumed", func() {
	It("resumes with --record-missing, records what is left and loses nothing written", func() {
		root := project()
		dir := filepath.Join(root, "cassettes", "odbchat", "single-pass")
		Expect(os.RemoveAll(dir)).To(Succeed())

		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := background(ctx, "record", "--root", root, "--suite", "odbchat", "--variant", "single-pass", "--concurrency", "2")
		Eventually(func() int {
			names, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
			return len(names)
		}).WithTimeout(time.Minute).WithPolling(2 * time.Millisecond).Should(BeNumerically(">", 0))
		cancel()
		var r result
		Eventually(done).WithTimeout(time.Minute).Should(Receive(&r))
		Expect(r.code).To(Equal(exitSignal), r.String())
		// 30 scenarios' cassettes and the grader cassette of the one with a
		// rubric, as committed.
		committed := len(yamlFiles(filepath.Join(repoRoot, "cassettes", "odbchat", "single-pass")))
		written := yamlFiles(dir)
		Expect(len(written)).To(BeNumerically("<", committed), "interrupted before the end")

		resumed := testbed("record", "--root", root, "--suite", "odbchat", "--variant", "single-pass", "--record-missing")

		Expect(resumed.code).To(Equal(exitOK), resumed.String())
		after := yamlFiles(dir)
		Expect(after).To(HaveLen(committed))
		for name, data := range written {
			Expect(string(after[name])).To(Equal(string(data)), "%s, written before the interruption, is kept as it was", name)
		}
		replay := testbed("run", "--root", root, "--suite", "odbchat", "--no-baseline")
		Expect(replay.code).To(Equal(exitOK), replay.String())
	})
})
