package wire_test

import (
	"context"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/anthropic"
	"github.com/agentreplay/testbed/agents/llm/gemini"
	"github.com/agentreplay/testbed/agents/llm/llmtest"
	"github.com/agentreplay/testbed/agents/llm/openai"
	"github.com/agentreplay/testbed/harness/wire"
)

func double(v float64) *float64 { return &v }
func integer(v int) *int        { return &v }

// settings are what a request read from the wire says of how the model
// is to answer.
type settings struct {
	Temperature  *float64
	Sampling     llm.Sampling
	Conversation string
}

func settingsOf(r wire.Request) settings {
	return settings{Temperature: r.Temperature, Sampling: r.Sampling, Conversation: r.Conversation}
}

const gemini25 = "/v1beta/models/gemini-2.5-flash:generateContent"

var _ = DescribeTable("an outside agent's request settings, read from the wire as the request gave them",
	func(d wire.Dialect, path, body string, want settings) {
		r, err := wire.Decode(d, path, []byte(body))
		Expect(err).NotTo(HaveOccurred())
		Expect(settingsOf(r)).To(Equal(want))
	},
	Entry("Chat Completions: temperature, top_p, a stop string, seed, the penalties and n", wire.Chat, "/v1/chat/completions",
		`{"model": "m", "messages": [{"role": "user", "content": "tide?"}], "temperature": 0.3, "top_p": 0.9, "stop": "END",
		"seed": 7, "frequency_penalty": 0.5, "presence_penalty": -0.25, "n": 3}`,
		settings{Temperature: double(0.3), Sampling: llm.Sampling{TopP: double(0.9), Stop: []string{"END"}, Seed: integer(7),
			FrequencyPenalty: double(0.5), PresencePenalty: double(-0.25), Choices: 3}}),
	Entry("Chat Completions: stop as an array, n of one", wire.Chat, "/v1/chat/completions",
		`{"model": "m", "messages": [{"role": "user", "content": "tide?"}], "stop": ["a", "b"], "n": 1}`,
		settings{Sampling: llm.Sampling{Stop: []string{"a", "b"}, Choices: 1}}),
	Entry("Chat Completions: none given", wire.Chat, "/v1/chat/completions",
		`{"model": "m", "messages": [{"role": "user", "content": "tide?"}]}`, settings{}),
	Entry("Responses: temperature, top_p and a conversation by its id", wire.Responses, "/v1/responses",
		`{"model": "m", "input": "tide?", "temperature": 1, "top_p": 0.5, "conversation": "conv_harbour"}`,
		settings{Temperature: double(1), Sampling: llm.Sampling{TopP: double(0.5)}, Conversation: "conv_harbour"}),
	Entry("Responses: a conversation as an object", wire.Responses, "/v1/responses",
		`{"model": "m", "input": "tide?", "conversation": {"id": "conv_harbour"}}`, settings{Conversation: "conv_harbour"}),
	Entry("Responses: a previous_response_id names a response, no conversation", wire.Responses, "/v1/responses",
		`{"model": "m", "input": "tide?", "previous_response_id": "resp_1"}`, settings{}),
	Entry("Anthropic: temperature, top_p, top_k and stop_sequences", wire.Anthropic, "/v1/messages",
		`{"model": "m", "max_tokens": 100, "messages": [{"role": "user", "content": "tide?"}], "temperature": 0,
		"top_p": 0.8, "top_k": 40, "stop_sequences": ["\n\nDone"]}`,
		settings{Temperature: double(0), Sampling: llm.Sampling{TopP: double(0.8), TopK: double(40), Stop: []string{"\n\nDone"}}}),
	Entry("Gemini: generationConfig's temperature, topP, topK (a float, as SDKs send it), stopSequences, seed, penalties and candidateCount",
		wire.Gemini, gemini25, `{"contents": [{"role": "user", "parts": [{"text": "tide?"}]}], "generationConfig": {"temperature": 0.2,
		"topP": 0.95, "topK": 40.0, "stopSequences": ["x"], "seed": 11, "frequencyPenalty": 0.1, "presencePenalty": 0.2, "candidateCount": 2}}`,
		settings{Temperature: double(0.2), Sampling: llm.Sampling{TopP: double(0.95), TopK: double(40), Stop: []string{"x"}, Seed: integer(11),
			FrequencyPenalty: double(0.1), PresencePenalty: double(0.2), Choices: 2}}),
	Entry("Gemini: the same by their snake_case names", wire.Gemini, gemini25,
		`{"contents": [{"role": "user", "parts": [{"text": "tide?"}]}], "generation_config": {"temperature": 0.2,
		"top_p": 0.95, "top_k": 40, "stop_sequences": ["x"], "seed": 11, "frequency_penalty": 0.1, "presence_penalty": 0.2, "candidate_count": 2}}`,
		settings{Temperature: double(0.2), Sampling: llm.Sampling{TopP: double(0.95), TopK: double(40), Stop: []string{"x"}, Seed: integer(11),
			FrequencyPenalty: double(0.1), PresencePenalty: double(0.2), Choices: 2}}),
	Entry("Ollama: options' temperature, top_p, top_k, seed, stop and penalties", wire.Ollama, "/api/chat",
		`{"model": "m", "messages": [{"role": "user", "content": "tide?"}], "options": {"temperature": 0.7, "top_p": 0.9,
		"top_k": 20, "seed": 3, "stop": ["</s>"], "frequency_penalty": 1, "presence_penalty": 1.5}}`,
		settings{Temperature: double(0.7), Sampling: llm.Sampling{TopP: double(0.9), TopK: double(20), Seed: integer(3), Stop: []string{"</s>"},
			FrequencyPenalty: double(1), PresencePenalty: double(1.5)}}),
	Entry("Interactions: generation_config's temperature, top_p, seed, stop_sequences and penalties", wire.Interactions, "/v1beta/interactions",
		`{"model": "gemini-2.5-flash", "input": "tide?", "generation_config": {"temperature": 0.4, "top_p": 0.85, "seed": 5,
		"stop_sequences": ["x"], "frequency_penalty": 0.3, "presence_penalty": -0.5, "max_output_tokens": 50}}`,
		settings{Temperature: double(0.4), Sampling: llm.Sampling{TopP: double(0.85), Seed: integer(5), Stop: []string{"x"},
			FrequencyPenalty: double(0.3), PresencePenalty: double(-0.5)}}),
	Entry("Interactions: none given", wire.Interactions, "/v1beta/interactions",
		`{"model": "gemini-2.5-flash", "input": "tide?", "generation_config": {"max_output_tokens": 50}}`, settings{}),
)

var _ = Describe("a built-in agent's request settings", func() {
	// adapters are the built-in adapters over a server at base, with the
	// dialect of what they send.
	type adapter struct {
		dialect wire.Dialect
		client  func(base string, hc *http.Client) llm.Client
	}
	adapters := map[string]adapter{
		"chat": {wire.Chat, func(base string, hc *http.Client) llm.Client { return openai.New(base+"/v1", "gpt-4.1-mini", "k", hc) }},
		"responses": {wire.Responses, func(base string, hc *http.Client) llm.Client {
			return openai.NewResponses(base+"/v1", "gpt-4.1-mini", "k", hc)
		}},
		"anthropic": {wire.Anthropic, func(base string, hc *http.Client) llm.Client {
			c, err := anthropic.New(base, "claude-sonnet-4-5", "k", hc)
			Expect(err).NotTo(HaveOccurred())
			return c
		}},
		"gemini": {wire.Gemini, func(base string, hc *http.Client) llm.Client {
			c, err := gemini.New(context.Background(), base, "gemini-2.5-flash", "k", hc)
			Expect(err).NotTo(HaveOccurred())
			return c
		}},
	}
	// send has the adapter named name send req, and returns the requests the
	// server got and the adapter's error.
	send := func(name string, req llm.Request) ([]llmtest.Request, error) {
		GinkgoHelper()
		srv := llmtest.NewServer(http.StatusInternalServerError, `{"error": {"message": "unused", "type": "server_error"}}`)
		DeferCleanup(srv.Close)
		_, err := adapters[name].client(srv.URL, srv.Client()).Chat(context.Background(), req)
		return srv.Requests(), err
	}
	user := []llm.Message{{Role: llm.RoleUser, Content: "tide?"}}

	DescribeTable("are sent as the wire reads them back, each API's that it takes",
		func(name string, given settings) {
			req := llm.Request{Messages: user, MaxTokens: 100, Temperature: given.Temperature, Sampling: given.Sampling}
			reqs, _ := send(name, req)
			Expect(reqs).To(HaveLen(1))
			r, err := wire.Decode(adapters[name].dialect, reqs[0].Path, reqs[0].Body)
			Expect(err).NotTo(HaveOccurred())
			Expect(settingsOf(r)).To(Equal(given))
		},
		Entry("Chat Completions", "chat", settings{Temperature: double(0.3), Sampling: llm.Sampling{TopP: double(0.9), Stop: []string{"END", "STOP"},
			Seed: integer(7), FrequencyPenalty: double(0.5), PresencePenalty: double(-0.25)}}),
		Entry("the Responses API", "responses", settings{Temperature: double(0.3), Sampling: llm.Sampling{TopP: double(0.9)}}),
		Entry("Anthropic's Messages", "anthropic", settings{Temperature: double(0.3), Sampling: llm.Sampling{TopP: double(0.9), TopK: double(40), Stop: []string{"END"}}}),
		Entry("Gemini's generateContent", "gemini", settings{Temperature: double(0.5), Sampling: llm.Sampling{TopP: double(0.5), TopK: double(40), Stop: []string{"END"},
			Seed: integer(7), FrequencyPenalty: double(0.5), PresencePenalty: double(-0.25)}}),
	)

	DescribeTable("are refused, before anything is sent, where the API has no field for them",
		func(name string, req llm.Request, named string) {
			req.Messages = user
			reqs, err := send(name, req)
			Expect(err).To(MatchError(ContainSubstring(named)))
			Expect(reqs).To(BeEmpty())
		},
		Entry("top_k over Chat Completions", "chat", llm.Request{Sampling: llm.Sampling{TopK: double(40)}}, "top_k"),
		Entry("several choices over Chat Completions, whose answer holds one", "chat", llm.Request{Sampling: llm.Sampling{Choices: 2}}, "choices"),
		Entry("stop over the Responses API", "responses", llm.Request{Sampling: llm.Sampling{Stop: []string{"END"}}}, "stop"),
		Entry("a conversation over the Responses API, which keeps none", "responses", llm.Request{Conversation: "conv_harbour"}, "conversation"),
		Entry("a seed over Anthropic", "anthropic", llm.Request{Sampling: llm.Sampling{Seed: integer(7)}}, "seed"),
		Entry("a fractional top_k over Anthropic", "anthropic", llm.Request{Sampling: llm.Sampling{TopK: double(2.5)}}, "top_k"),
		Entry("several candidates over Gemini", "gemini", llm.Request{Sampling: llm.Sampling{Choices: 2}}, "choices"),
	)
})
