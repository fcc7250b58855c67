//go:build unix

package external_test

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/external"
)

// hijacked runs the fake web service once, with the spec playing another
// process on the machine: the service's command writes each PORT it is
// given to a file and waits, before it starts listening, until the spec has
// passed that port on; the spec first takes the ports take says it should,
// with how.
func hijacked(take func(attempt int) bool, how func(port int)) (agents.Answer, []int, error) {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	ports, passed := filepath.Join(dir, "ports"), filepath.Join(dir, "passed")
	spec := service("json")
	spec.Env["PORTS_FILE"], spec.Env["PASSED_FILE"] = ports, passed
	spec.Command = []string{"sh", "-c", `echo "$PORT" >> "$PORTS_FILE"
until grep -qx "$PORT" "$PASSED_FILE" 2>/dev/null; do sleep 0.01; done
exec "$0"`, os.Args[0]}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(done)
		seen := 0
		for {
			lines := strings.Fields(readOr(ports))
			for ; seen < len(lines); seen++ {
				port, err := strconv.Atoi(lines[seen])
				Expect(err).NotTo(HaveOccurred())
				if take(seen) {
					how(port)
				}
				f, err := os.OpenFile(passed, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				Expect(err).NotTo(HaveOccurred())
				fmt.Fprintln(f, port)
				Expect(f.Close()).To(Succeed())
			}
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	ans, _, _, err := runOnce(spec, "a", "hello")
	close(stop)
	<-done
	var given []int
	for _, l := range strings.Fields(readOr(ports)) {
		p, _ := strconv.Atoi(l)
		given = append(given, p)
	}
	return ans, given, err
}

// readOr is the file's text, or "" when it cannot be read.
func readOr(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// listenOn makes the spec's process listen on port with a web service
// that is not the agent.
func listenOn(port int) {
	GinkgoHelper()
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	Expect(err).NotTo(HaveOccurred())
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"text": "not the agent"}`)
	})}
	go srv.Serve(ln)
	DeferCleanup(srv.Close)
}

// connectFrom holds port with a connection from it, which nothing listens
// on but nobody else can bind.
func connectFrom(port int) {
	GinkgoHelper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(ln.Close)
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}}
	c, err := d.Dial("tcp", ln.Addr().String())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(c.Close)
}

var _ = Describe("a service whose port another process takes before it listens", func() {
	first := func(attempt int) bool { return attempt == 0 }

	It("is not mistaken for the service: testbed starts the service again on a fresh port, and the run talks to it", func() {
		ans, given, err := hijacked(first, listenOn)
		Expect(err).NotTo(HaveOccurred())
		Expect(ans.Replies).To(HaveLen(1))
		Expect(ans.Replies[0].Text).To(MatchRegexp(`^turn 0 of tb-[0-9a-f]{16}$`), "the agent's own reply")
		Expect(given).To(HaveLen(2))
		Expect(given[1]).NotTo(Equal(given[0]))
	})

	It("when the service cannot bind it (a connection holds it), starts the service again on a fresh port", func() {
		ans, given, err := hijacked(first, connectFrom)
		Expect(err).NotTo(HaveOccurred())
		Expect(ans.Replies[0].Text).To(MatchRegexp(`^turn 0 of tb-[0-9a-f]{16}$`))
		Expect(given).To(HaveLen(2))
	})

	It("gives up after three ports, saying each was taken and by whom", func() {
		_, given, err := hijacked(func(int) bool { return true }, listenOn)
		Expect(given).To(HaveLen(3))
		Expect(err).To(HaveOccurred())
		msg := err.Error()
		Expect(msg).To(HavePrefix("the agent's service found no port of its own in 3 tries, each taken by another process before it listened: "))
		who := "another process"
		if runtime.GOOS == "linux" {
			who = fmt.Sprintf("another process (pid %d, ", os.Getpid())
		}
		for _, p := range given {
			Expect(msg).To(ContainSubstring(fmt.Sprintf("port %d was taken by %s", p, who)))
		}
	})
})

var _ = Describe("a service's port that accepts a connection and then has no listener", func() {
	DescribeTable("is not taken for the service listening: testbed waits on, and says the service never listened",
		func(hook func(func(int)) func()) {
			if runtime.GOOS != "linux" {
				Skip("only Linux says who listens on a port")
			}
			ports := filepath.Join(GinkgoT().TempDir(), "ports")
			spec := service("json")
			spec.StartTimeout = 2 * time.Second
			spec.Env["PORTS_FILE"] = ports
			spec.Command = []string{"sh", "-c", `echo "$PORT" > "$PORTS_FILE"; exec sleep 30`}
			var mu sync.Mutex
			var ln net.Listener
			closed := 0
			// Another process listens on the port a moment: it is gone by the
			// time testbed asks who listens there.
			DeferCleanup(hook(func(int) {
				mu.Lock()
				defer mu.Unlock()
				if ln != nil {
					ln.Close()
					ln, closed = nil, closed+1
				}
			}))
			stop := make(chan struct{})
			defer close(stop)
			go func() {
				defer GinkgoRecover()
				for {
					if port, err := strconv.Atoi(strings.TrimSpace(readOr(ports))); err == nil {
						l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
						Expect(err).NotTo(HaveOccurred())
						mu.Lock()
						ln = l
						mu.Unlock()
						return
					}
					select {
					case <-stop:
						return
					case <-time.After(5 * time.Millisecond):
					}
				}
			}()
			_, _, _, err := runOnce(spec, "a", "hello")
			Expect(err).To(MatchError(MatchRegexp(`^the agent's service did not listen on 127\.0\.0\.1:\d+ within 2s \(command `)))
			mu.Lock()
			defer mu.Unlock()
			Expect(closed).To(Equal(1), "testbed connected to the other process's listener")
		},
		Entry("gone before testbed reads which sockets listen", external.SetAfterDial),
		Entry("gone while testbed looks for the socket's holder", external.SetAfterTable),
	)
})
