package cassette_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
)

var _ = Describe("AcquireLock", func() {
	var dir, lockFile string

	BeforeEach(func() {
		dir = filepath.Join(GinkgoT().TempDir(), "cassettes", "odbchat")
		lockFile = filepath.Join(dir, cassette.LockName)
	})

	It("refuses a second holder at once, naming the lock file and the holder's pid", func() {
		first, err := cassette.AcquireLock(dir)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(first.Release)

		second, err := cassette.AcquireLock(dir)
		Expect(second).To(BeNil())
		Expect(errors.Is(err, cassette.ErrLocked)).To(BeTrue())
		var locked *cassette.LockedError
		Expect(errors.As(err, &locked)).To(BeTrue())
		Expect(locked.Path).To(Equal(lockFile))
		Expect(locked.PID).To(Equal(os.Getpid()))
		Expect(err.Error()).To(ContainSubstring(fmt.Sprintf("another recording holds %s (pid %d, since ", lockFile, os.Getpid())))
		Expect(err.Error()).To(ContainSubstring(fmt.Sprintf("wait for it to finish or stop it (kill %d)", os.Getpid())))
	})

	It("is free again once released, and leaves no file behind", func() {
		first, err := cassette.AcquireLock(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(first.Release()).To(Succeed())
		Expect(first.Release()).To(Succeed(), "releasing twice is harmless")
		Expect(lockFile).NotTo(BeAnExistingFile())

		again, err := cassette.AcquireLock(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(again.Release()).To(Succeed())
	})

	It("is not blocked by a lock file that no process holds (a crashed recording's)", func() {
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		Expect(os.WriteFile(lockFile, []byte("999999 2025-01-01T00:00:00Z\n"), 0o644)).To(Succeed())

		l, err := cassette.AcquireLock(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(mustReadFile(lockFile))).To(HavePrefix(fmt.Sprintf("%d ", os.Getpid())))
		Expect(l.Release()).To(Succeed())
	})
})
