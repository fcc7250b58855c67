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

// server returns the server.address and server.port of rawURL: its host,
// and its port or its scheme's (443 for https, 80 for http); none when it
// names no host.
func server(rawURL string) []attribute.KeyValue {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil
	}
	return serverOf(u)
}

// serverOf is server of a parsed URL.
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

// callServers finds the server of each model and embeddings call of
// events, by the call's index: that of the last exchange its time covers
// whose path is one of its kind (a chat, generateContent, Messages, … call
// for a model call; an embeddings call for one), the one that answered it
// after any retries. A call with no such exchange in the report has none.
func callServers(events []trace.Event) map[int][]attribute.KeyValue {
	var calls, exchanges []int
	for i, e := range events {
		switch e.Kind {
		case trace.KindLLM, trace.KindEmbed:
			calls = append(calls, i)
		case trace.KindHTTP:
			exchanges = append(exchanges, i)
		}
	}
	if len(calls) == 0 || len(exchanges) == 0 {
		return nil
	}
	out := make(map[int][]attribute.KeyValue, len(calls))
	paths := map[string]*url.URL{}
	for _, i := range calls {
		c := events[i]
		from, to := c.At, c.At+duration(c)
		var found *url.URL
		for _, j := range exchanges {
			x := events[j]
			if x.At < from || x.At+x.HTTP.Duration > to {
				continue
			}
			u, ok := paths[x.HTTP.URL]
			if !ok {
				u, _ = url.Parse(x.HTTP.URL)
				paths[x.HTTP.URL] = u
			}
			if u != nil && ofKind(c.Kind, u.Path) {
				found = u
			}
		}
		if found != nil {
			out[i] = serverOf(found)
		}
	}
	return out
}

// ofKind reports whether path is a call of kind: a model call's (wire.Of)
// or an embeddings call's.
func ofKind(kind trace.Kind, path string) bool {
	if kind == trace.KindEmbed {
		return wire.IsEmbeddings(path)
	}
	_, model := wire.Of(path)
	return model
}
