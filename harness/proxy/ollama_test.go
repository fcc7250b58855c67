package proxy_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/proxy"
	"github.com/agentreplay/testbed/harness/wire"
)

const logicalOllama = "http://localhost:11434"

var _ = Describe("the proxy's Ollama route", func() {
	var p *proxy.Proxy

	BeforeEach(func() {
		p = startProxy()
	})

	DescribeTable("routes Ollama's native API to the server's logical base URL",
		func(s proxy.Session, path, want string) {
			Expect(routed(p, s, path)).To(Equal(want))
		},
		Entry("chat", proxy.Session{Ollama: logicalOllama}, "/api/chat", logicalOllama+"/api/chat"),
		Entry("a model's details", proxy.Session{Ollama: logicalOllama}, "/api/show", logicalOllama+"/api/show"),
		Entry("OpenAI beside it", proxy.Session{Model: logicalModel, Ollama: logicalOllama}, "/v1/chat/completions", logicalModel+"/chat/completions"),
	)

	It("sets the session's base URL, in OLLAMA_HOST (the official clients) and OLLAMA_BASE_URL (LangChain.js), by the endpoint's provider", func() {
		var s proxy.Session
		s.SetModel(llm.Endpoint{Provider: llm.ProviderOllama, BaseURL: logicalOllama})
		Expect(s).To(Equal(proxy.Session{Ollama: logicalOllama}))
		Expect(proxy.ModelEnv(llm.Endpoint{Provider: llm.ProviderOllama}, "http://127.0.0.1:1/s/x")).To(Equal(map[string]string{
			"OLLAMA_HOST": "http://127.0.0.1:1/s/x", "OLLAMA_BASE_URL": "http://127.0.0.1:1/s/x"}))
	})

	It("answers a call it cannot route in Ollama's error shape", func() {
		id, base := p.Open(proxy.Session{Model: logicalModel, Transport: &urls{}})
		DeferCleanup(p.End, id)
		resp, err := http.Post(base+"/api/chat", "application/json", strings.NewReader(`{"model": "qwen3:14b", "messages": []}`))
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		Expect(resp.StatusCode).To(BeNumerically(">=", 400))
		var body map[string]any
		Expect(json.NewDecoder(resp.Body).Decode(&body)).To(Succeed())
		Expect(body).To(HaveLen(1))
		Expect(body["error"]).To(ContainSubstring("/api/… (Ollama)"))
	})
})

var _ = Describe("an Ollama client through the proxy", func() {
	It("records its calls, streamed and whole, under the logical URL, and replays them byte for byte", func() {
		p := startProxy()
		path, session := greeterSessions(p, "qwen3:14b", func(s *proxy.Session) { s.Ollama = logicalOllama })
		// An outside agent posting to $OLLAMA_HOST/api/chat: streamed (the
		// default), then whole.
		ask := func(base string) []string {
			GinkgoHelper()
			var got []string
			for _, stream := range []string{``, `"stream": false, `} {
				resp, err := http.Post(base+"/api/chat", "application/json", strings.NewReader(`{"model": "qwen3:14b", `+stream+
					`"messages": [{"role": "system", "content": "`+greeterPrompt+`"}, {"role": "user", "content": "Ahoy"}]}`))
				Expect(err).NotTo(HaveOccurred())
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				Expect(err).NotTo(HaveOccurred())
				Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", body)
				got = append(got, resp.Header.Get("Content-Type"), string(body))
			}
			return got
		}
		id, base := session(cassette.ModeRecord)
		recorded := ask(base)
		Expect(p.End(id)).To(Succeed())
		Expect(recorded[0]).To(Equal(wire.OllamaStreamType))
		streamed, err := wire.ReadOllama([]byte(recorded[1]))
		Expect(err).NotTo(HaveOccurred())
		Expect(streamed.Message.Content).To(Equal("You said: Ahoy"))
		data := string(must(readFile(path)))
		Expect(data).To(ContainSubstring("url: " + logicalOllama + "/api/chat"))
		Expect(data).NotTo(ContainSubstring("127.0.0.1"))

		id, base = session(cassette.ModeReplay)
		Expect(ask(base)).To(Equal(recorded))
		Expect(p.End(id)).To(Succeed())
	})
})
