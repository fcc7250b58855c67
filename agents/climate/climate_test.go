package climate_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/agenttest"
	"github.com/agentreplay/testbed/agents/climate"
	"github.com/agentreplay/testbed/agents/llm"
)

var _ = Describe("a conversation", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	It("carries the tool results of one turn into the next", func() {
		replies := run(w.agent(ours), "Show me the inventories for New York", "Open the 2022 one")

		Expect(names(replies[0])).To(Equal([]string{climate.ToolCitySearch}))
		Expect(replies[0].Text).To(ContainSubstring("I found 3 inventories"))
		Expect(replies[0].Text).To(ContainSubstring("Which one should I open?"))
		Expect(names(replies[1])).To(Equal([]string{climate.ToolInventory}))
		Expect(replies[1].Tools[0].Arguments).To(MatchJSON(`{"inventory_id":"` + idNewYork2022 + `"}`))
		Expect(replies[1].Text).To(ContainSubstring("51.1 million tCO2e"))

		reqs := w.model.Requests()
		Expect(reqs).To(HaveLen(4))
		second := reqs[2] // the second turn's first model call
		var users []string
		for _, m := range second.Messages {
			if m.Role == llm.RoleUser {
				users = append(users, m.Content)
			}
		}
		Expect(users).To(Equal([]string{"Show me the inventories for New York", "Open the 2022 one"}))
		Expect(second.Messages[0].Role).To(Equal(llm.RoleSystem))
		tools := toolMessages(second)
		Expect(tools).To(HaveLen(1))
		Expect(tools[0].Name).To(Equal(climate.ToolCitySearch))
		Expect(tools[0].Content).To(Equal(w.tracer.Reports("")[0].Context))
		var ids []string
		for _, inv := range listed(decodeEnvelope(tools[0].Content)) {
			ids = append(ids, inv.ID)
		}
		Expect(ids).To(Equal([]string{idNewYork2023, idNewYork2022, idNewYork2021}))
		// the first turn's answer is in the history too
		Expect(second.Messages[len(second.Messages)-2].Content).To(Equal(replies[0].Text))

		Expect(w.tracer.Noted(agents.NoteTurn)).To(Equal([]any{0, 1}))
		Expect(w.tracer.Noted(agents.NoteRoute)).To(Equal([]any{
			agents.Route{Mode: "tool", Tool: climate.ToolCitySearch},
			agents.Route{Mode: "tool", Tool: climate.ToolInventory},
		}))
	})

	It("sends the system prompt, the five tools and the sampling settings on every call", func() {
		ask(w.agent(ours), "Show me the inventories for New York")
		for _, req := range w.model.Requests() {
			Expect(req.Messages[0].Role).To(Equal(llm.RoleSystem))
			Expect(req.Messages[0].Content).To(HavePrefix("You are Climate Advisor"))
			var tools []string
			for _, t := range req.Tools {
				tools = append(tools, t.Name)
				Expect(json.Valid(t.Parameters)).To(BeTrue(), t.Name)
			}
			Expect(tools).To(ConsistOf(climate.ToolUserInventories, climate.ToolCitySearch, climate.ToolInventory,
				climate.ToolDatasources, climate.ToolVectorSearch))
			Expect(*req.Temperature).To(Equal(0.1))
			Expect(req.MaxTokens).To(Equal(1024))
		}
	})

	It("answers a product question with no tool and a one-call turn", func() {
		reply := ask(w.agent(ours), "How do I upload a spreadsheet to CityCatalyst?")
		Expect(reply.Tools).To(BeEmpty())
		Expect(reply.Error).To(BeEmpty())
		Expect(w.model.Requests()).To(HaveLen(1))
		Expect(w.tracer.Noted(agents.NoteRoute)).To(Equal([]any{agents.Route{Mode: "answer"}}))
		var data map[string]any
		Expect(json.Unmarshal(mustJSON(reply), &data)).To(Succeed())
		Expect(data).To(HaveKeyWithValue("text", reply.Text))
		Expect(data).To(HaveKey("tools_used"))
		Expect(data).NotTo(HaveKey("error"))
	})

	It("says the model could not be reached when it answers 500, and goes on with the next turn", func() {
		w.transport.Route(modelHost, agenttest.HostOf(httptestServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			rw.Header().Set("Content-Type", "application/json")
			rw.WriteHeader(http.StatusInternalServerError)
			io.WriteString(rw, `{"error":{"message":"upstream exploded","type":"server_error"}}`)
		}))))
		replies := run(w.agent(ours), "Show me the inventories for New York", "Which inventories do I have?")
		for _, r := range replies {
			Expect(r.Text).To(ContainSubstring("could not reach the language model"))
			Expect(r.Error).To(ContainSubstring("HTTP 500"))
			Expect(r.Tools).To(BeEmpty())
		}
		Expect(w.transport.Requests(modelHost)).To(HaveLen(2), "one attempt per turn, no retries")
		Expect(w.transport.Requests(ccHost)).To(BeEmpty())
	})

	DescribeTable("stops after max_steps model calls when the model never stops calling tools",
		func(variant map[string]any, steps int) {
			w.useModel(&fake{Next: func(int, llm.Request) llm.Message {
				return toolCallMessage(climate.ToolUserInventories, `{}`)
			}})
			reply := ask(w.agent(variant), "Which inventories do I have?")
			Expect(reply.Error).To(Equal("max_steps"))
			Expect(reply.Text).To(ContainSubstring("could not finish"))
			Expect(reply.Tools).To(HaveLen(steps))
			Expect(w.model.Requests()).To(HaveLen(steps))
			Expect(w.transport.Requests(ccHost)).To(HaveLen(steps))
		},
		Entry("max_steps 2", map[string]any{"max_steps": 2}, 2),
		Entry("max_steps 1", map[string]any{"max_steps": 1}, 1),
		Entry("the default, 6", nil, 6),
	)
})

var _ = Describe("the variant config", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	DescribeTable("is refused, naming the key",
		func(variant map[string]any, key string) {
			_, err := climate.New(w.config(variant))
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(key))
		},
		Entry("an unknown key", map[string]any{"trimm": "ours"}, `"trimm"`),
		Entry("an unknown trim value", map[string]any{"trim": "some"}, `trim "some"`),
		Entry("trim of the wrong type", map[string]any{"trim": 3}, "trim"),
		Entry("top_k 0", map[string]any{"top_k": 0}, "top_k"),
		Entry("a negative top_k", map[string]any{"top_k": -3}, "top_k"),
		Entry("top_k as a string", map[string]any{"top_k": "3"}, "top_k"),
		Entry("max_steps 0", map[string]any{"max_steps": 0}, "max_steps"),
		Entry("a prompt without a prompt folder", map[string]any{"prompt": "short.md"}, "short.md"),
	)

	DescribeTable("is accepted",
		func(variant map[string]any) {
			_, err := climate.New(w.config(variant))
			Expect(err).NotTo(HaveOccurred())
		},
		Entry("none", nil),
		Entry("empty", map[string]any{}),
		Entry("the untrimmed variant", none),
		Entry("the trimmed variant", ours),
		Entry("the seed-trimmer variant", seed),
		Entry("every key", map[string]any{"trim": "ours", "top_k": 2, "min_score": 0.5, "max_steps": 3}),
	)

	It("reads a variant's prompt from the prompt folder", func() {
		cfg := w.config(map[string]any{"prompt": "short.md"})
		cfg.Prompts = fstest.MapFS{"short.md": {Data: []byte("You are Climate Advisor. Be brief.")}}
		a, err := climate.New(cfg)
		Expect(err).NotTo(HaveOccurred())
		ask(a, "Hello!")
		Expect(w.model.Requests()[0].Messages[0].Content).To(Equal("You are Climate Advisor. Be brief."))

		cfg.Variant = map[string]any{"prompt": "missing.md"}
		_, err = climate.New(cfg)
		Expect(err).To(MatchError(ContainSubstring("missing.md")))
	})

	It("needs a data folder with a knowledge base", func() {
		cfg := w.config(nil)
		cfg.Data = nil
		_, err := climate.New(cfg)
		Expect(err).To(MatchError(ContainSubstring("kb/")))

		cfg.Data = fstest.MapFS{"README.md": {Data: []byte("no kb")}}
		_, err = climate.New(cfg)
		Expect(err).To(MatchError(ContainSubstring("kb/")))
	})

	It("calls the CityCatalyst base URL given in Upstreams", func() {
		cfg := w.config(ours)
		cfg.Upstreams = map[string]string{"citycatalyst": "https://cc.example.test/"}
		w.transport.Route("cc.example.test", w.transport.Target(ccHost))
		a, err := climate.New(cfg)
		Expect(err).NotTo(HaveOccurred())
		reply := ask(a, "Which inventories do I have?")
		Expect(reply.Text).To(ContainSubstring("I found 13 inventories"))
		Expect(w.transport.Requests(ccHost)).To(BeEmpty())
		reqs := w.transport.Requests("cc.example.test")
		Expect(reqs).To(HaveLen(1))
		Expect(reqs[0].Path).To(Equal("/api/v1/user/inventories/"))
	})
})

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	return b
}
