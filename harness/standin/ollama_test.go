package standin_test

import (
	"encoding/json"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin"
	"github.com/agentreplay/testbed/harness/stream"
	"github.com/agentreplay/testbed/harness/wire"
)

var _ = Describe("the stand-in speaking Ollama's native API", func() {
	var srv *standin.Server

	BeforeEach(func() {
		srv = startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
	})

	// ollamaChat is an /api/chat body asking user of the echo policy, with
	// extra fields (stream, options …) before its messages.
	ollamaChat := func(extra, user string) string {
		return `{"model": "qwen3:14b", ` + extra + `"messages": [{"role": "system", "content": "` + echoPrompt + `"}, {"role": "user", "content": "` + user + `"}],
			"tools": [{"type": "function", "function": {"name": "tide_table", "parameters": {"type": "object"}}}]}`
	}

	It("answers a call whole when it says stream: false, its tool calls' arguments JSON objects", func() {
		resp, body := wirePost(srv, http.MethodPost, "/api/chat", ollamaChat(`"stream": false, `, "call tide_table"))
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", body)
		Expect(resp.Header.Get("Content-Type")).To(HavePrefix("application/json"))
		var whole struct {
			Model   string `json:"model"`
			Message struct {
				Role      string `json:"role"`
				ToolCalls []struct {
					Function struct {
						Name      string          `json:"name"`
						Arguments json.RawMessage `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
			Done       bool   `json:"done"`
			DoneReason string `json:"done_reason"`
			Prompt     int    `json:"prompt_eval_count"`
			Eval       int    `json:"eval_count"`
		}
		Expect(json.Unmarshal(body, &whole)).To(Succeed())
		Expect(whole.Model).To(Equal("qwen3:14b"))
		Expect(whole.Message.Role).To(Equal("assistant"))
		Expect(whole.Message.ToolCalls).To(HaveLen(1))
		Expect(whole.Message.ToolCalls[0].Function.Name).To(Equal("tide_table"))
		Expect(whole.Message.ToolCalls[0].Function.Arguments).To(MatchJSON(`{"lon": 121.5, "lat": 25, "n": 1}`))
		Expect(whole.Done).To(BeTrue())
		Expect(whole.DoneReason).To(Equal("stop"))
		Expect(whole.Prompt).To(BeNumerically(">", 0))
		Expect(whole.Eval).To(BeNumerically(">", 0))
	})

	It("streams by default, as Ollama does: newline-delimited chunks that read as the whole answer", func() {
		_, wholeBody := wirePost(srv, http.MethodPost, "/api/chat", ollamaChat(`"stream": false, `, "Tide at Brest?"))
		resp, body := wirePost(srv, http.MethodPost, "/api/chat", ollamaChat(``, "Tide at Brest?"))
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", body)
		Expect(resp.Header.Get("Content-Type")).To(Equal(wire.OllamaStreamType))
		lines := strings.Split(strings.TrimSuffix(string(body), "\n"), "\n")
		Expect(len(lines)).To(BeNumerically(">", 2))
		for _, l := range lines[:len(lines)-1] {
			Expect(l).To(ContainSubstring(`"done":false`))
		}
		Expect(lines[len(lines)-1]).To(ContainSubstring(`"done":true`))
		streamed, err := wire.ReadOllama(body)
		Expect(err).NotTo(HaveOccurred())
		whole, err := wire.ReadOllama(wholeBody)
		Expect(err).NotTo(HaveOccurred())
		Expect(streamed).To(Equal(whole))
		Expect(streamed.Message.Content).To(ContainSubstring("Tide at Brest?"), "the echo policy read the request")

		// Timed as its events are: an offset a line, which a cassette keeps.
		Expect(resp.Header.Values(stream.OffsetsHeader)).To(HaveLen(len(lines)))
		timing := stream.Of(resp.Header, string(body))
		Expect(timing).NotTo(BeNil())
		Expect(timing.FirstToken).To(BeNumerically(">", 0))
		Expect(timing.TokenEvents).To(Equal(len(lines) - 1))
	})

	It("answers a completion (/api/generate) from its system prompt and prompt, its text in response, whole and streamed alike", func() {
		body := func(stream string) string {
			return `{"model": "qwen3:14b", ` + stream + `"system": "` + echoPrompt + `", "prompt": "Tide at Brest?"}`
		}
		resp, wholeBody := wirePost(srv, http.MethodPost, "/api/generate", body(`"stream": false, `))
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", wholeBody)
		var whole struct {
			Response   string `json:"response"`
			Done       bool   `json:"done"`
			DoneReason string `json:"done_reason"`
			Eval       int    `json:"eval_count"`
		}
		Expect(json.Unmarshal(wholeBody, &whole)).To(Succeed())
		Expect(whole.Response).To(ContainSubstring("Tide at Brest?"), "the echo policy read the system prompt and the prompt")
		Expect(whole.Done).To(BeTrue())
		Expect(whole.DoneReason).To(Equal("stop"))
		Expect(whole.Eval).To(BeNumerically(">", 0))
		Expect(string(wholeBody)).NotTo(ContainSubstring(`"message"`))

		resp, streamed := wirePost(srv, http.MethodPost, "/api/generate", body(``))
		Expect(resp.Header.Get("Content-Type")).To(Equal(wire.OllamaStreamType))
		Expect(strings.Count(string(streamed), "\n")).To(BeNumerically(">", 2))
		a, err := wire.ReadOllama(wholeBody)
		Expect(err).NotTo(HaveOccurred())
		b, err := wire.ReadOllama(streamed)
		Expect(err).NotTo(HaveOccurred())
		Expect(b).To(Equal(a))
		Expect(stream.Of(resp.Header, string(streamed)).FirstToken).To(BeNumerically(">", 0))
	})

	It("streams a tool call whole in a chunk of its own", func() {
		_, body := wirePost(srv, http.MethodPost, "/api/chat", ollamaChat(``, "call tide_table tide_table"))
		out, err := wire.ReadOllama(body)
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Message.ToolCalls).To(HaveLen(2))
		Expect(out.FinishReason).To(Equal(llm.FinishToolCalls))
		Expect(strings.Count(string(body), `"tool_calls"`)).To(Equal(2))
	})

	DescribeTable("thinks when asked (think true or a level), its thinking apart from its text and before it, its tokens in eval_count",
		func(path, think string) {
			req := func(extra string) string {
				if path == "/api/generate" {
					return `{"model": "qwen3:14b", ` + extra + `"system": "` + echoPrompt + `", "prompt": "Tide at Brest?"}` // no tools: text
				}
				return ollamaChat(extra, "call tide_table")
			}
			type answer struct {
				Message struct {
					Content   string `json:"content"`
					Thinking  string `json:"thinking"`
					ToolCalls []any  `json:"tool_calls"`
				} `json:"message"`
				Response string `json:"response"`
				Thinking string `json:"thinking"`
				Eval     int    `json:"eval_count"`
			}
			read := func(body []byte) answer {
				var a answer
				Expect(json.Unmarshal(body, &a)).To(Succeed(), "body %s", body)
				return a
			}
			_, plainBody := wirePost(srv, http.MethodPost, path, req(`"stream": false, `))
			resp, thinkingBody := wirePost(srv, http.MethodPost, path, req(`"stream": false, "think": `+think+`, `))
			Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", thinkingBody)
			plain, thought := read(plainBody), read(thinkingBody)
			const line = "Deciding from the request alone: "
			Expect(plain.Message.Thinking + plain.Thinking).To(BeEmpty())
			Expect(thought.Message.Thinking + thought.Thinking).To(HavePrefix(line))
			Expect(thought.Message.Content + thought.Response).To(Equal(plain.Message.Content + plain.Response))
			Expect(thought.Eval).To(BeNumerically(">", plain.Eval))
			if path == "/api/chat" {
				Expect(thought.Message.Thinking).To(Equal(line+"call tide_table."), "in the message, beside its calls")
				Expect(thought.Message.ToolCalls).To(HaveLen(1))
			}

			resp, streamed := wirePost(srv, http.MethodPost, path, req(`"think": `+think+`, `))
			lines := strings.Split(strings.TrimSuffix(string(streamed), "\n"), "\n")
			first := read([]byte(lines[0]))
			Expect(first.Message.Thinking+first.Thinking).To(HavePrefix(line), "the first chunk thinks")
			Expect(first.Message.Content + first.Response).To(BeEmpty())
			Expect(read([]byte(lines[len(lines)-1])).Eval).To(Equal(thought.Eval))
			a, err := wire.ReadOllama(streamed)
			Expect(err).NotTo(HaveOccurred())
			b, err := wire.ReadOllama(thinkingBody)
			Expect(err).NotTo(HaveOccurred())
			Expect(a).To(Equal(b))
			timing := stream.Of(resp.Header, string(streamed))
			Expect(timing.TokenEvents).To(Equal(len(lines)-2), "the thinking is no token of the answer, as the other providers' is not")
			expectInOrder(stream.Offsets(resp.Header), len(lines))
		},
		Entry("chat, think true", "/api/chat", `true`),
		Entry("chat, a level", "/api/chat", `"low"`),
		Entry("a completion, think true", "/api/generate", `true`),
	)

	It("ends an answer at options.num_predict with done_reason length", func() {
		_, body := wirePost(srv, http.MethodPost, "/api/chat", ollamaChat(`"stream": false, "options": {"num_predict": 3}, `, "Tide at Brest?"))
		out, err := wire.ReadOllama(body)
		Expect(err).NotTo(HaveOccurred())
		Expect(out.RawFinishReason).To(Equal("length"))
		Expect(out.Usage.OutputTokens).To(Equal(3))
	})

	DescribeTable("refuses what Ollama refuses, in its shape {\"error\": …}",
		func(method, path, body string, status int, want string) {
			resp, got := wirePost(srv, method, path, body)
			Expect(resp.StatusCode).To(Equal(status), "body %s", got)
			var e map[string]string
			Expect(json.Unmarshal(got, &e)).To(Succeed())
			Expect(e).To(HaveKey("error"))
			Expect(e["error"]).To(ContainSubstring(want))
		},
		Entry("a chat naming no model", http.MethodPost, "/api/chat", `{"messages": [{"role": "user", "content": "hi"}]}`, http.StatusBadRequest, "model is required"),
		Entry("a format neither json nor a schema", http.MethodPost, "/api/chat", `{"model": "m", "format": "yaml", "messages": []}`, http.StatusBadRequest, "format"),
		Entry("an endpoint it does not serve", http.MethodPost, "/api/pull", `{"model": "m"}`, http.StatusNotFound, "/api/chat"),
		Entry("a completion naming no model", http.MethodPost, "/api/generate", `{"prompt": "hi"}`, http.StatusBadRequest, "model is required"),
		Entry("a think it cannot read", http.MethodPost, "/api/chat", `{"model": "m", "think": "max", "messages": [{"role": "user", "content": "hi"}]}`, http.StatusBadRequest, `invalid think value: "max"`),
	)

	It("answers the model listing, a model's details, the version and embeddings in Ollama's shapes", func() {
		resp, body := wirePost(srv, http.MethodGet, "/api/tags", ``)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		var tags struct {
			Models []struct{ Name, Model string }
		}
		Expect(json.Unmarshal(body, &tags)).To(Succeed())
		Expect(tags.Models).To(ContainElement(HaveField("Name", "qwen3:14b")), "the price table's ollama models, by Ollama's names")

		resp, body = wirePost(srv, http.MethodPost, "/api/show", `{"model": "qwen3:14b"}`)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		var show struct{ Capabilities []string }
		Expect(json.Unmarshal(body, &show)).To(Succeed())
		Expect(show.Capabilities).To(ContainElement("tools"))

		_, body = wirePost(srv, http.MethodGet, "/api/version", ``)
		Expect(body).To(MatchJSON(`{"version": "` + wire.OllamaVersion + `"}`))

		resp, body = wirePost(srv, http.MethodPost, "/api/embed", `{"model": "nomic-embed-text", "input": ["tide tables", "wind"]}`)
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", body)
		var emb struct {
			Model      string
			Embeddings [][]float64
			Prompt     int `json:"prompt_eval_count"`
		}
		Expect(json.Unmarshal(body, &emb)).To(Succeed())
		Expect(emb.Model).To(Equal("nomic-embed-text"))
		Expect(emb.Embeddings).To(HaveLen(2))
		Expect(emb.Embeddings[0]).NotTo(BeEmpty())
		Expect(emb.Prompt).To(BeNumerically(">", 0))
	})

	It("answers Ollama's older embeddings endpoint (…/api/embeddings: one prompt, one vector, the one /api/embed gives its text)", func() {
		_, body := wirePost(srv, http.MethodPost, "/api/embed", `{"model": "all-minilm", "input": "tide tables"}`)
		var emb struct{ Embeddings [][]float64 }
		Expect(json.Unmarshal(body, &emb)).To(Succeed())

		resp, body := wirePost(srv, http.MethodPost, "/api/embeddings", `{"model": "all-minilm", "prompt": "tide tables"}`)
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", body)
		var old struct{ Embedding []float64 }
		Expect(json.Unmarshal(body, &old)).To(Succeed())
		Expect(old.Embedding).To(Equal(emb.Embeddings[0]))

		_, body = wirePost(srv, http.MethodPost, "/api/embeddings", `{"model": "all-minilm", "prompt": ""}`)
		Expect(body).To(MatchJSON(`{"embedding": []}`), "an empty prompt, as Ollama answers it")
		resp, body = wirePost(srv, http.MethodPost, "/api/embeddings", `{"prompt": "tide tables"}`)
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(body).To(MatchJSON(`{"error": "model is required"}`))
	})
})
