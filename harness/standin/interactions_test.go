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

var _ = Describe("the stand-in speaking Gemini's Interactions API", func() {
	var srv *standin.Server

	BeforeEach(func() {
		srv = startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
	})

	// interaction is a request to create an interaction asking user of the
	// echo policy, with extra fields first.
	interaction := func(extra, user string) string {
		return `{"model": "gemini-3.5-flash", ` + extra + `"system_instruction": "` + echoPrompt + `", "input": "` + user + `",
			"tools": [{"type": "function", "name": "tide_table", "parameters": {"type": "object"}}]}`
	}

	It("answers POST …/v1beta/interactions and …/v1/interactions, whole and streamed alike, the stream timed", func() {
		for _, path := range []string{"/v1beta/interactions", "/v1/interactions"} {
			resp, whole := wirePost(srv, http.MethodPost, path, interaction(``, "call tide_table"))
			Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", whole)
			Expect(resp.Header.Get("Content-Type")).To(HavePrefix("application/json"))
			a, err := wire.ReadInteractions(whole)
			Expect(err).NotTo(HaveOccurred())
			Expect(a.FinishReason).To(Equal(llm.FinishToolCalls))
			Expect(a.Message.ToolCalls).To(HaveLen(1))

			resp, streamed := wirePost(srv, http.MethodPost, path, interaction(`"stream": true, `, "call tide_table"))
			Expect(resp.Header.Get("Content-Type")).To(Equal("text/event-stream"))
			b, err := wire.ReadInteractions(streamed)
			Expect(err).NotTo(HaveOccurred())
			Expect(b.Message.ToolCalls[0].Name).To(Equal("tide_table"))
			Expect(b.Message.ToolCalls[0].Arguments).To(MatchJSON(a.Message.ToolCalls[0].Arguments))
			Expect(b.Usage).To(Equal(a.Usage))
			timing := stream.Of(resp.Header, string(streamed))
			Expect(timing).NotTo(BeNil())
			Expect(timing.FirstToken).To(BeNumerically(">", 0))
		}
	})

	It("times a streamed answer that thinks in order: the thought, the text after it, the end last", func() {
		resp, streamed := wirePost(srv, http.MethodPost, "/v1beta/interactions",
			interaction(`"stream": true, "generation_config": {"thinking_summaries": "auto"}, `, "what is the tide at Brest, in a few words?"))
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", streamed)
		Expect(string(streamed)).To(ContainSubstring(`"thought_summary"`))
		expectInOrder(stream.Offsets(resp.Header), len(stream.Parse(string(streamed))))
	})

	It("answers the get or delete of an interaction it does not keep, a cancel, and an unknown previous_interaction_id with Gemini's 404", func() {
		for _, c := range []struct{ method, path, body string }{
			{http.MethodGet, "/v1beta/interactions/v1_abc", ``},
			{http.MethodDelete, "/v1beta/interactions/v1_abc", ``},
			{http.MethodPost, "/v1beta/interactions/v1_abc/cancel", `{}`},
			{http.MethodPost, "/v1beta/interactions", `{"model": "m", "previous_interaction_id": "v1_never", "input": "and?"}`},
		} {
			resp, body := wirePost(srv, c.method, c.path, c.body)
			Expect(resp.StatusCode).To(Equal(http.StatusNotFound), "%s %s: %s", c.method, c.path, body)
			var e struct {
				Error struct{ Status, Message string }
			}
			Expect(json.Unmarshal(body, &e)).To(Succeed())
			Expect(e.Error.Status).To(Equal("NOT_FOUND"))
			Expect(e.Error.Message).To(Or(ContainSubstring("previous_interaction_id"), ContainSubstring("was not found"), ContainSubstring("no background interaction to cancel")))
		}
	})

	It("gets a stored interaction as it answered it, whole or streamed, with its input when asked (include_input)", func() {
		_, created := wirePost(srv, http.MethodPost, "/v1beta/interactions", interaction(``, "call tide_table"))
		var it struct{ ID string }
		Expect(json.Unmarshal(created, &it)).To(Succeed())
		resp, got := wirePost(srv, http.MethodGet, "/v1beta/interactions/"+it.ID, ``)
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", got)
		Expect(got).To(MatchJSON(created))

		_, got = wirePost(srv, http.MethodGet, "/v1/interactions/"+it.ID+"?include_input=true", ``)
		var withInput struct{ ID, Input string }
		Expect(json.Unmarshal(got, &withInput)).To(Succeed())
		Expect(withInput).To(Equal(struct{ ID, Input string }{it.ID, "call tide_table"}))

		resp, streamed := wirePost(srv, http.MethodPost, "/v1beta/interactions", interaction(`"stream": true, `, "call tide_table"))
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		fromStream, err := wire.ReadInteractions(streamed)
		Expect(err).NotTo(HaveOccurred())
		var created2 struct {
			Interaction struct{ ID string } `json:"interaction"`
		}
		_, first, _ := strings.Cut(string(streamed), "data: ")
		first, _, _ = strings.Cut(first, "\n")
		Expect(json.Unmarshal([]byte(first), &created2)).To(Succeed(), string(streamed))
		resp, got = wirePost(srv, http.MethodGet, "/v1beta/interactions/"+created2.Interaction.ID, ``)
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", got)
		whole, err := wire.ReadInteractions(got)
		Expect(err).NotTo(HaveOccurred())
		Expect(whole.Message.ToolCalls).To(HaveLen(1))
		Expect(whole.Message.ToolCalls[0].ID).To(Equal(fromStream.Message.ToolCalls[0].ID))
		Expect(whole.Usage).To(Equal(fromStream.Usage))
	})

	It("forgets an interaction it is asked to delete, and keeps none created with store: false", func() {
		_, created := wirePost(srv, http.MethodPost, "/v1beta/interactions", interaction(``, "call tide_table"))
		var it struct{ ID string }
		Expect(json.Unmarshal(created, &it)).To(Succeed())
		resp, body := wirePost(srv, http.MethodDelete, "/v1beta/interactions/"+it.ID, ``)
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", body)
		Expect(body).To(MatchJSON(`{}`))
		resp, _ = wirePost(srv, http.MethodGet, "/v1beta/interactions/"+it.ID, ``)
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		resp, _ = wirePost(srv, http.MethodPost, "/v1beta/interactions", `{"model": "m", "previous_interaction_id": "`+it.ID+`", "input": "and?"}`)
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))

		_, created = wirePost(srv, http.MethodPost, "/v1beta/interactions", interaction(`"store": false, `, "call tide_table"))
		Expect(json.Unmarshal(created, &it)).To(Succeed())
		resp, _ = wirePost(srv, http.MethodGet, "/v1beta/interactions/"+it.ID, ``)
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
	})

	It("refuses to stream a stored interaction again, in Gemini's shape", func() {
		_, created := wirePost(srv, http.MethodPost, "/v1beta/interactions", interaction(``, "call tide_table"))
		var it struct{ ID string }
		Expect(json.Unmarshal(created, &it)).To(Succeed())
		resp, body := wirePost(srv, http.MethodGet, "/v1beta/interactions/"+it.ID+"?stream=true", ``)
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(string(body)).To(ContainSubstring("INVALID_ARGUMENT"))
	})

	It("continues the conversation of an interaction it answered (previous_interaction_id)", func() {
		_, first := wirePost(srv, http.MethodPost, "/v1beta/interactions", interaction(``, "call tide_table"))
		var it struct {
			ID    string
			Steps []struct{ ID, Name string }
		}
		Expect(json.Unmarshal(first, &it)).To(Succeed())
		next := `{"model": "gemini-3.5-flash", "system_instruction": "` + echoPrompt + `", "previous_interaction_id": "` + it.ID + `",
			"input": [{"type": "function_result", "call_id": "` + it.Steps[0].ID + `", "name": "tide_table", "result": "high water 14:52"}]}`
		resp, body := wirePost(srv, http.MethodPost, "/v1beta/interactions", next)
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", body)
		a, err := wire.ReadInteractions(body)
		Expect(err).NotTo(HaveOccurred())
		Expect(a.Message.Content).To(ContainSubstring("call tide_table"), "the echo policy saw the first input")
		Expect(a.Message.Content).To(ContainSubstring("high water 14:52"))
	})
})
