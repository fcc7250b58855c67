package wire_test

import (
	"fmt"
	"net/url"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/wire"
)

var _ = Describe("Threads", func() {
	It("keeps the latest answers only, so a long recording's memory stays bounded", func() {
		var t wire.Threads
		answer := func(n int) string {
			GinkgoHelper()
			call, err := t.Read(wire.Responses, "/v1/responses", fmt.Appendf(nil, `{"model": "m", "input": "question %d"}`, n), 1)
			Expect(err).NotTo(HaveOccurred())
			resp, err := call.Encoder.Completion("m", llm.Message{Role: llm.RoleAssistant, Content: "ok"}, wire.End{}, 1, 1)
			Expect(err).NotTo(HaveOccurred())
			return resp.(map[string]any)["id"].(string)
		}
		continues := func(id string) error {
			_, err := t.Read(wire.Responses, "/v1/responses", []byte(`{"model": "m", "previous_response_id": "`+id+`", "input": "and?"}`), 1)
			return err
		}
		first, second := answer(0), answer(1)
		for n := 2; n <= wire.MaxKept; n++ {
			answer(n)
		}
		Expect(continues(first)).To(MatchError("Previous response with id '" + first + "' not found."))
		Expect(continues(second)).To(Succeed())
	})
})

var _ = Describe("Threads' conversations", func() {
	var t *wire.Threads
	BeforeEach(func() { t = &wire.Threads{} })
	create := func(body string) string {
		GinkgoHelper()
		status, resp := t.Conversations("POST", "/v1/conversations", nil, []byte(body))
		Expect(status).To(Equal(200), fmt.Sprint(resp))
		return resp.(map[string]any)["id"].(string)
	}
	get := func(id string) int {
		status, _ := t.Conversations("GET", "/v1/conversations/"+id, nil, nil)
		return status
	}
	items := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"type": "message", "role": "user", "content": "item %d"}`, i)
		}
		return `{"items": [` + b.String() + `]}`
	}

	It("keeps the latest conversations only, so a long recording's memory stays bounded", func() {
		first, second := create(`{}`), create(`{}`)
		for n := 2; n < wire.MaxConversations; n++ {
			create(`{}`)
		}
		Expect(get(first)).To(Equal(200))
		last := create(`{}`)
		Expect(get(first)).To(Equal(404))
		Expect(get(second)).To(Equal(200))
		Expect(get(last)).To(Equal(200))
	})

	It("forgets the oldest conversation past the items all of them hold, then the oldest items of the one in use", func() {
		old, used := create(items(20)), create(`{}`)
		add := func() {
			GinkgoHelper()
			status, resp := t.Conversations("POST", "/v1/conversations/"+used+"/items", nil, []byte(items(20)))
			Expect(status).To(Equal(200), fmt.Sprint(resp))
		}
		for range (wire.MaxConversationItemsKept - 20) / 20 {
			add()
		}
		Expect(get(old)).To(Equal(200))
		add()
		Expect(get(old)).To(Equal(404))
		add() // used alone now holds more than the bound: its oldest items go
		status, resp := t.Conversations("GET", "/v1/conversations/"+used+"/items", url.Values{"order": {"asc"}, "limit": {"1"}}, nil)
		Expect(status).To(Equal(200))
		held := ((wire.MaxConversationItemsKept-20)/20 + 2) * 20
		dropped := held - wire.MaxConversationItemsKept // fewer than a batch
		first := resp.(map[string]any)["data"].([]map[string]any)[0]
		Expect(first["content"]).To(Equal([]any{map[string]any{"type": "input_text", "text": fmt.Sprintf("item %d", dropped)}}))
	})

	It("never gives a new conversation the id of one it keeps, however many bodies it has counted", func() {
		var last string
		for n := 0; n <= 4*wire.MaxConversations; n++ {
			last = create(fmt.Sprintf(`{"metadata": {"n": "%d"}}`, n))
		}
		again := create(fmt.Sprintf(`{"metadata": {"n": "%d"}}`, 4*wire.MaxConversations))
		Expect(again).NotTo(Equal(last))
		Expect(get(last)).To(Equal(200))
		Expect(get(again)).To(Equal(200))
	})
})
