package memtest_test

import (
	"runtime"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/memtest"
)

var _ = Describe("Live", Serial, func() {
	It("counts what is kept and not what was dropped, nor what a pool held", func() {
		const size = 32 << 20
		before := memtest.Live()
		kept := make([]byte, size)
		Expect(memtest.Live() - before).To(BeNumerically(">=", size))
		runtime.KeepAlive(kept)

		var pool sync.Pool
		pool.Put(make([]byte, size)) //lint:ignore SA6002 the spec measures what the pool keeps of a plain slice
		Expect(int64(memtest.Live()) - int64(before)).To(BeNumerically("<", size/2))
	})
})
