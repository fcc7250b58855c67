package external_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/external"
)

var _ = Describe("Exec", func() {
	It("passes its input through to the program", func() {
		var out bytes.Buffer
		Expect(external.Exec(context.Background(), []string{"cat"}, nil, testBinary(), strings.NewReader("hello"), &out, io.Discard)).To(Succeed())
		Expect(out.String()).To(Equal("hello"))
	})

	It("returns once the program is stopped, though its input has not ended", func() {
		never, w := io.Pipe() // input that never comes
		defer w.Close()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- external.Exec(ctx, []string{"sleep", "100"}, nil, testBinary(), never, io.Discard, io.Discard)
		}()
		time.Sleep(200 * time.Millisecond)
		cancel()
		Eventually(done).WithTimeout(time.Minute).Should(Receive(MatchError(context.Canceled)))
	})

	It("returns when the program exits, though its input has not ended", func() {
		never, w := io.Pipe()
		defer w.Close()
		done := make(chan error, 1)
		go func() {
			done <- external.Exec(context.Background(), []string{"true"}, nil, testBinary(), never, io.Discard, io.Discard)
		}()
		Eventually(done).WithTimeout(time.Minute).Should(Receive(BeNil()))
	})
})
