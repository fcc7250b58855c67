package otlp

// The server a call was made to (server.address and server.port): the host
// of the logical URL the run recorded, the provider's and not testbed's
// loopback proxy, which a report never names.

import (
	"net/url"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"

	"github.com/agentreplay/testbed/harness/trace"
	"github.com/agentreplay/testbed/harness/wire"
)

// serverOf returns the server.address and server.port of u: its host,
// and its port or its scheme's (443 for https, 80 for http); none when it
// names no host.
func serverOf(u *url.URL) []attribute.KeyValue {
	if u.Hostname() == "" {
		return nil
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		switch u.Scheme {
		case "https":
			port = 443
		case "http":
			port = 80
		default:
			return []attribute.KeyValue{semconv.ServerAddress(u.Hostname())}
		}
	}
	return []attribute.KeyValue{semconv.ServerAddress(u.Hostname()), semconv.ServerPort(port)}
}

// Kinds of an exchange by its path: a model call's (wire.Of) or an
// embeddings call's (wire.IsEmbeddings).
const (
	pathModel = 1 << iota
	pathEmbed
)

// servers returns the server of each exchange, model call and embeddings
// call of events, by index: an exchange's is its URL's; a call's is that of
// the last exchange its time covers whose path is one of its kind (a chat,
// generateContent, Messages, … call for a model call; an embeddings call
// for one), the one that answered it after any retries. A call with no
// such exchange in the report has none.
func servers(events []trace.Event) [][]attribute.KeyValue {
	out := make([][]attribute.KeyValue, len(events))
	kinds := make([]uint8, len(events))
	calls := false
	for i, e := range events {
		switch e.Kind {
		case trace.KindHTTP:
			u, err := url.Parse(e.HTTP.URL)
			if err != nil {
				continue
			}
			out[i] = serverOf(u)
			if _, model := wire.Of(u.Path); model {
				kinds[i] |= pathModel
			}
			if wire.IsEmbeddings(u.Path) {
				kinds[i] |= pathEmbed
			}
		case trace.KindLLM, trace.KindEmbed:
			calls = true
		}
	}
	if !calls {
		return out
	}
	for i, c := range events {
		want := uint8(pathModel)
		switch c.Kind {
		case trace.KindLLM:
		case trace.KindEmbed:
			want = pathEmbed
		default:
			continue
		}
		from, to := c.At, c.At+duration(c)
		for j, x := range events {
			if kinds[j]&want != 0 && x.At >= from && x.At+x.HTTP.Duration <= to {
				out[i] = out[j]
			}
		}
	}
	return out
}
