package standin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/standin"
)

// serve sends body to h in-process and returns the recorded response.
func serve(h http.Handler, body []byte) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", bytes.NewReader(body)))
	return rec
}

func newStandin(opts standin.Options) *standin.Server {
	if opts.Policies == nil {
		opts.Policies = standin.Policies()
	}
	srv, err := standin.New(opts)
	Expect(err).NotTo(HaveOccurred())
	return srv
}

func decode(rec *httptest.ResponseRecorder) completion {
	var c completion
	Expect(json.Unmarshal(rec.Body.Bytes(), &c)).To(Succeed(), "body %s", rec.Body.String())
	return c
}

var _ = Describe("Server", func() {
	Describe("latency and usage", func() {
		It("reports usage for a request", func() {
			resp := chat(client(startStandin(standin.Options{})), routerRequest("現在台灣周遭海溫多少？", true))
			Expect(resp.Usage.InputTokens).To(BeNumerically(">", 0))
			Expect(resp.Usage.OutputTokens).To(BeNumerically(">", 0))
			Expect(resp.FinishReason).To(Equal("stop"))
			Expect(resp.Model).To(Equal("gemma3:4b"))
		})

		It("carries the modelled latency of the usage it reported", func() {
			rec := serve(newStandin(standin.Options{}), wireBody(routerRequest("現在台灣周遭海溫多少？", true)))
			Expect(rec.Code).To(Equal(http.StatusOK))
			c := decode(rec)
			Expect(c.Usage.PromptTokens).To(BeNumerically(">", 0))
			Expect(c.Usage.CompletionTokens).To(BeNumerically(">", 0))
			want := standin.DefaultLatency().Of(c.Usage.PromptTokens, c.Usage.CompletionTokens)
			Expect(rec.Header().Get(cassette.LatencyHeader)).To(Equal(want.String()))
		})

		It("uses the latency model it was given", func() {
			lat := standin.Latency{Fixed: time.Second, PerInputToken: time.Millisecond, PerOutputToken: 10 * time.Millisecond}
			rec := serve(newStandin(standin.Options{Latency: lat}), wireBody(routerRequest("GHRSST 是什麼？", false)))
			c := decode(rec)
			Expect(rec.Header().Get(cassette.LatencyHeader)).To(Equal(lat.Of(c.Usage.PromptTokens, c.Usage.CompletionTokens).String()))
		})

		It("models a longer prompt as slower", func() {
			srv := newStandin(standin.Options{})
			short := serve(srv, wireBody(routerRequest("台灣海峽昨天的海溫", false)))
			long := serve(srv, wireBody(routerRequest("台灣海峽昨天的海溫", true)))
			cs, cl := decode(short), decode(long)
			Expect(cl.Usage.PromptTokens).To(BeNumerically(">", cs.Usage.PromptTokens))
			Expect(cl.Choices[0].Message.Content).To(Equal(cs.Choices[0].Message.Content))
			ds, err := time.ParseDuration(short.Header().Get(cassette.LatencyHeader))
			Expect(err).NotTo(HaveOccurred())
			dl, err := time.ParseDuration(long.Header().Get(cassette.LatencyHeader))
			Expect(err).NotTo(HaveOccurred())
			Expect(dl).To(BeNumerically(">", ds))
		})
	})

	Describe("faults", func() {
		post := func(srv *standin.Server, body []byte) (*http.Response, []byte) {
			resp, err := http.Post(srv.URL()+"/v1/chat/completions", "application/json", bytes.NewReader(body))
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			Expect(err).NotTo(HaveOccurred())
			return resp, b
		}

		It("answers 429 with Retry-After when told to rate-limit every call", func() {
			srv := startStandin(standin.Options{FaultRate: 1, Faults: []string{standin.FaultRateLimit}})
			resp, _ := post(srv, wireBody(routerRequest("現在台灣周遭海溫多少？", false)))
			Expect(resp.StatusCode).To(Equal(http.StatusTooManyRequests))
			Expect(resp.Header.Get("Retry-After")).NotTo(BeEmpty())

			_, err := client(srv).Chat(context.Background(), routerRequest("現在台灣周遭海溫多少？", false))
			var se *llm.StatusError
			Expect(errors.As(err, &se)).To(BeTrue(), "got %v", err)
			Expect(se.Code).To(Equal(http.StatusTooManyRequests))
		})

		It("answers 500 for the server fault", func() {
			rec := serve(newStandin(standin.Options{FaultRate: 1, Faults: []string{standin.FaultServer}}),
				wireBody(routerRequest("現在台灣周遭海溫多少？", false)))
			Expect(rec.Code).To(Equal(http.StatusInternalServerError))
		})

		It("sends a body that does not parse for the malformed fault", func() {
			srv := startStandin(standin.Options{FaultRate: 1, Faults: []string{standin.FaultMalformed}})
			resp, body := post(srv, wireBody(routerRequest("現在台灣周遭海溫多少？", false)))
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			var v any
			Expect(json.Unmarshal(body, &v)).NotTo(Succeed())

			_, err := client(srv).Chat(context.Background(), routerRequest("現在台灣周遭海溫多少？", false))
			Expect(err).To(HaveOccurred())
		})

		It("cuts the answer off for the truncated fault", func() {
			rec := serve(newStandin(standin.Options{FaultRate: 1, Faults: []string{standin.FaultTruncated}}),
				wireBody(routerRequest("現在台灣周遭海溫多少？", false)))
			c := decode(rec)
			Expect(c.Choices[0].FinishReason).To(Equal("length"))
			var v any
			Expect(json.Unmarshal([]byte(c.Choices[0].Message.Content), &v)).NotTo(Succeed())
		})

		It("injects no fault at rate 0", func() {
			srv := newStandin(standin.Options{Faults: []string{standin.FaultServer}})
			for range 20 {
				Expect(serve(srv, wireBody(routerRequest("現在台灣周遭海溫多少？", false))).Code).To(Equal(http.StatusOK))
			}
		})

		// faulted returns, for n calls, whether each answer differs from the
		// clean one.
		faulted := func(opts standin.Options, n int) []bool {
			body := wireBody(routerRequest("現在台灣周遭海溫多少？", false))
			clean := serve(newStandin(standin.Options{}), body).Body.String()
			srv := newStandin(opts)
			var out []bool
			for range n {
				rec := serve(srv, body)
				out = append(out, rec.Code != http.StatusOK || rec.Body.String() != clean)
			}
			return out
		}

		It("injects faults at the same call indexes for the same seed", func() {
			opts := standin.Options{FaultRate: 0.5, Seed: 7}
			a, b := faulted(opts, 40), faulted(opts, 40)
			Expect(a).To(Equal(b))
			Expect(a).To(ContainElement(true))
			Expect(a).To(ContainElement(false))

			other := faulted(standin.Options{FaultRate: 0.5, Seed: 8}, 40)
			Expect(other).NotTo(Equal(a))
		})
	})

	It("answers an unknown system prompt with the generic policy, and says so in PolicyHeader", func() {
		req := llm.Request{Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are a pirate."},
			{Role: llm.RoleUser, Content: "Ahoy"},
		}}
		rec := serve(newStandin(standin.Options{}), wireBody(req))
		Expect(rec.Code).To(Equal(http.StatusOK))
		Expect(rec.Header().Get(cassette.PolicyHeader)).To(Equal(standin.GenericName))
		Expect(decode(rec).Choices[0].Message.Content).To(Equal(`You said: "Ahoy". I have no tools, so this is all I can answer. Let me know if there is anything else I can help you with.`))
	})

	It("leaves PolicyHeader off the answers of an agent's own policy", func() {
		rec := serve(newStandin(standin.Options{}), wireBody(routerRequest("現在台灣周遭海溫多少？", true)))
		Expect(rec.Code).To(Equal(http.StatusOK))
		Expect(rec.Header().Values(cassette.PolicyHeader)).To(BeEmpty())
	})

	It("reads a json_schema response format as JSON mode with its schema", func() {
		body := `{"model": "m", "messages": [{"role": "user", "content": "Rate Oslo"}],
			"response_format": {"type": "json_schema", "json_schema": {"name": "r", "schema": {"type": "object", "properties": {"city": {"type": "string"}}}}}}`
		rec := serve(newStandin(standin.Options{}), []byte(body))
		Expect(rec.Code).To(Equal(http.StatusOK))
		Expect(decode(rec).Choices[0].Message.Content).To(MatchJSON(`{"city": "Oslo"}`))
	})

	It("refuses, without the generic policy, an unknown system prompt with a 400 naming harness/standin and the prompt, marked as no policy", func() {
		req := llm.Request{Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are a pirate."},
			{Role: llm.RoleUser, Content: "Ahoy"},
		}}
		all := standin.Policies()
		rec := serve(newStandin(standin.Options{Policies: all[:len(all)-1]}), wireBody(req))
		Expect(rec.Code).To(Equal(http.StatusBadRequest))
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		Expect(json.Unmarshal(rec.Body.Bytes(), &e)).To(Succeed())
		Expect(e.Error.Message).To(ContainSubstring("harness/standin"))
		Expect(e.Error.Message).To(HavePrefix(cassette.NoPolicyCause + ` this prompt (system prompt "You are a pirate.", tools: []);`))
		Expect(rec.Header().Get(cassette.PolicyHeader)).To(Equal(cassette.NoPolicy), "a recording knows not to keep it")
	})

	It("refuses what is not POST …/chat/completions", func() {
		srv := newStandin(standin.Options{})
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/chat/completions", nil))
		Expect(rec.Code).To(Equal(http.StatusNotFound))
		Expect(serve(srv, []byte("{not json")).Code).To(Equal(http.StatusBadRequest))
	})

	It("listens on 127.0.0.1 only", func() {
		srv := startStandin(standin.Options{})
		u, err := url.Parse(srv.URL())
		Expect(err).NotTo(HaveOccurred())
		host, port, err := net.SplitHostPort(u.Host)
		Expect(err).NotTo(HaveOccurred())
		Expect(host).To(Equal("127.0.0.1"))
		Expect(port).NotTo(Equal("0"))
	})
})
