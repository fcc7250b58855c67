package cassette_test

import (
	"net/http"
	"os"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/agentreplay/testbed/harness/cassette"
)

// BenchmarkRedact measures the detector on the interactions of committed
// cassettes, as a recording applies it to each (request headers, URL and
// body, response headers and body, a stream reassembled) and as a replay
// applies it to a live request that is not byte for byte as recorded
// (URL and body). One op is one interaction; the figure per call is ns/op.
func BenchmarkRedact(b *testing.B) {
	for _, c := range []struct{ name, path string }{
		{"streamed", "../../cassettes/climate/streaming/datasources-new-york-2023.yaml"},
		{"whole", "../../cassettes/climate/untrimmed/datasources-new-york-2023.yaml"},
	} {
		data, err := os.ReadFile(c.path)
		if err != nil {
			b.Fatal(err)
		}
		var f struct {
			Interactions []struct {
				Request struct {
					Body    string      `yaml:"body"`
					URL     string      `yaml:"url"`
					Headers http.Header `yaml:"headers"`
				} `yaml:"request"`
				Response struct {
					Body    string      `yaml:"body"`
					Headers http.Header `yaml:"headers"`
				} `yaml:"response"`
			} `yaml:"interactions"`
		}
		if err := yaml.Unmarshal(data, &f); err != nil {
			b.Fatal(err)
		}
		d, err := cassette.NewDetector([]string{"sk-proj-not-in-these-cassettes-0123456789"}, cassette.KeyVariables(), nil)
		if err != nil {
			b.Fatal(err)
		}
		bytes := 0
		for _, in := range f.Interactions {
			bytes += len(in.Request.Body) + len(in.Response.Body)
		}
		b.Run(c.name+"/record", func(b *testing.B) {
			b.SetBytes(int64(bytes / len(f.Interactions)))
			for i := 0; b.Loop(); i++ {
				in := f.Interactions[i%len(f.Interactions)]
				d.RequestHeaders(in.Request.Headers)
				d.URL(in.Request.URL)
				d.Body(in.Request.Headers, in.Request.Body)
				d.ResponseHeaders(in.Response.Headers)
				d.Body(in.Response.Headers, in.Response.Body)
			}
		})
		b.Run(c.name+"/replay-request", func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				in := f.Interactions[i%len(f.Interactions)]
				d.URL(in.Request.URL)
				d.Body(in.Request.Headers, in.Request.Body)
			}
		})
	}
}
