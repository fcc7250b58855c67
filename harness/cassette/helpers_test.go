package cassette_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"gopkg.in/yaml.v3"

	"github.com/agentreplay/testbed/harness/cassette"
)

// upstream is a loopback JSON server. It answers the n-th request with
// answers[n] (or {"answer":"extra"} once they run out), sets the latency
// header to latency[n] when that is not empty, and remembers what it got.
type upstream struct {
	*httptest.Server
	answers []string
	latency []string

	mu   sync.Mutex
	seen []*http.Request // with Body replaced by the bytes read
	body []string
}

func newUpstream(answers ...string) *upstream {
	u := &upstream{answers: answers}
	u.Server = httptest.NewServer(http.HandlerFunc(u.serve))
	DeferCleanup(u.Close)
	return u
}

func (u *upstream) serve(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	n := len(u.seen)
	u.seen = append(u.seen, r.Clone(r.Context()))
	u.body = append(u.body, string(b))
	u.mu.Unlock()
	answer := `{"answer":"extra"}`
	if n < len(u.answers) {
		answer = u.answers[n]
	}
	if n < len(u.latency) && u.latency[n] != "" {
		w.Header().Set(cassette.LatencyHeader, u.latency[n])
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, answer)
}

// requests returns how many requests the server has answered.
func (u *upstream) requests() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.seen)
}

// request returns the i-th request the server got and its body.
func (u *upstream) request(i int) (*http.Request, string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.seen[i], u.body[i]
}

// bodies returns the bodies of every request the server got.
func (u *upstream) bodies() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.body...)
}

// post sends a JSON body through rt with an http.Client, as the agents do,
// and returns the response body.
func post(rt http.RoundTripper, url, body string, header ...string) (string, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := (&http.Client{Transport: rt}).Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return string(b), nil
}

// mustPost is post that expects success.
func mustPost(rt http.RoundTripper, url, body string, header ...string) string {
	GinkgoHelper()
	got, err := post(rt, url, body, header...)
	Expect(err).NotTo(HaveOccurred())
	return got
}

// onDisk is a cassette file as read back without the package under test.
type onDisk struct {
	Version      int              `yaml:"version"`
	Provenance   map[string]any   `yaml:"provenance"`
	Interactions []onDiskExchange `yaml:"interactions"`
}

type onDiskExchange struct {
	Request struct {
		Method  string              `yaml:"method"`
		URL     string              `yaml:"url"`
		Body    string              `yaml:"body"`
		Headers map[string][]string `yaml:"headers"`
	} `yaml:"request"`
	Response struct {
		Code     int                 `yaml:"code"`
		Body     string              `yaml:"body"`
		Headers  map[string][]string `yaml:"headers"`
		Duration time.Duration       `yaml:"duration"`
	} `yaml:"response"`
}

func readOnDisk(path string) onDisk {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	var f onDisk
	Expect(yaml.Unmarshal(data, &f)).To(Succeed())
	return f
}

// observed collects the exchanges a Transport reports.
type observed struct {
	mu sync.Mutex
	xs []cassette.Exchange
}

func (o *observed) add(e cassette.Exchange) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.xs = append(o.xs, e)
}

func (o *observed) all() []cassette.Exchange {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]cassette.Exchange(nil), o.xs...)
}

func (o *observed) durations() []time.Duration {
	var ds []time.Duration
	for _, e := range o.all() {
		ds = append(ds, e.Duration)
	}
	return ds
}

// names lists the entries of dir.
func names(dir string) []string {
	GinkgoHelper()
	entries, err := os.ReadDir(dir)
	Expect(err).NotTo(HaveOccurred())
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}
