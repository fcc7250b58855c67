package tokens_test

import (
	"encoding/json"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/tokens"
)

func mustNew(encoding string) *tokens.Counter {
	GinkgoHelper()
	c, err := tokens.New(encoding)
	Expect(err).NotTo(HaveOccurred())
	return c
}

var _ = Describe("New", func() {
	It("defaults to o200k_base", func() {
		Expect(mustNew("").Encoding()).To(Equal(tokens.EncodingO200K))
	})

	It("accepts cl100k_base", func() {
		Expect(mustNew(tokens.EncodingCL100K).Encoding()).To(Equal(tokens.EncodingCL100K))
	})

	It("rejects an unknown encoding, naming the allowed ones", func() {
		c, err := tokens.New("p50k_base")
		Expect(c).To(BeNil())
		Expect(err).To(MatchError(ContainSubstring(`"p50k_base"`)))
		Expect(err).To(MatchError(ContainSubstring(tokens.EncodingO200K)))
		Expect(err).To(MatchError(ContainSubstring(tokens.EncodingCL100K)))
	})
})

var _ = Describe("Count", func() {
	DescribeTable("known counts",
		func(text string, o200k, cl100k int) {
			Expect(mustNew(tokens.EncodingO200K).Count(text)).To(Equal(o200k))
			Expect(mustNew(tokens.EncodingCL100K).Count(text)).To(Equal(cl100k))
		},
		Entry("empty", "", 0, 0),
		Entry("hello world", "hello world", 2, 2),
		Entry("English sentence", "The quick brown fox jumps over the lazy dog.", 10, 10),
		Entry("Chinese sentence", "現在台灣周遭海溫多少？", 10, 15),
		Entry("JSON", `{"bbox":[118.0,20.0,123.5,26.5]}`, 19, 19),
		Entry("special token as plain text", "<|endoftext|>", 7, 7),
	)

	// A run of one character class is one piece to the encoder, whose
	// byte-pair merge is quadratic in a piece's length: 100 KB of "x" took
	// 20 s before long pieces were merged 4 KB at a time. A 100 KB run
	// counts as 25 runs of 4 KB.
	DescribeTable("counts a 100 KB run of one class as its 4 KB cuts",
		func(unit string) {
			c := mustNew("")
			whole := c.Count(strings.Repeat(unit, (100<<10)/len(unit)))
			cut := c.Count(strings.Repeat(unit, 4096/len(unit)))
			Expect(whole).To(Equal(25 * cut))
		},
		Entry("one letter", "x"),
		Entry("white space", " "),
		Entry("punctuation", ".*[("),
		Entry("a two-byte letter", "é"),
	)

	It("counts long runs of text without white space, punctuation and Han alike", func() {
		c := mustNew("")
		for _, text := range []string{strings.Repeat(".*[(?", 20<<10), strings.Repeat("海溫", 100<<10/6), "a " + strings.Repeat("é", 50<<10) + " b"} {
			n := c.Count(text)
			Expect(n).To(BeNumerically(">", 0))
			Expect(n).To(BeNumerically("<=", len(text)))
		}
	})

	It("counts a long run within a token per cut of counting it whole", func() {
		c := mustNew("")
		whole := c.Count(strings.Repeat("ab", 3000)) // 6 KB: cut once
		Expect(whole).To(BeNumerically("~", 2*c.Count(strings.Repeat("ab", 1500)), 2))
	})

	// long is a text above the cache threshold whose count differs from
	// other's although both have the same length.
	long := strings.Repeat("hello world ", 20)
	other := strings.Repeat("x", len(long))

	It("gives the same count cached as uncached", func() {
		c := mustNew("")
		first := c.Count(long)
		Expect(first).To(BeNumerically(">", 20))
		Expect(c.Count(long)).To(Equal(first))
		Expect(mustNew("").Count(long)).To(Equal(first))
	})

	It("counts bytes as Count counts the same text, cached or not", func() {
		for _, text := range []string{"hi there", long, other, "caf\xe9 not UTF-8 " + long} {
			fresh := mustNew("")
			Expect(fresh.CountBytes([]byte(text))).To(Equal(mustNew("").Count(text)), text)
			Expect(fresh.Count(text)).To(Equal(fresh.CountBytes([]byte(text))), "a second time")
		}
	})

	It("tells apart cached texts of the same length", func() {
		c := mustNew("")
		Expect(len(other)).To(Equal(len(long)))
		Expect(c.Count(long)).NotTo(Equal(c.Count(other)))
		Expect(c.Count(other)).To(Equal(mustNew("").Count(other)))
	})

	It("is safe and consistent under concurrent use", func() {
		texts := []string{long, other, "short", "", strings.Repeat(`{"k":1},`, 50)}
		want := make([]int, len(texts))
		fresh := mustNew("")
		for i, t := range texts {
			want[i] = fresh.Count(t)
		}
		c := mustNew("")
		var wg sync.WaitGroup
		got := make([][]int, 16)
		for g := range got {
			wg.Go(func() {
				for range 20 {
					for _, t := range texts {
						got[g] = append(got[g], c.Count(t))
					}
				}
			})
		}
		wg.Wait()
		for g := range got {
			Expect(got[g]).To(HaveLen(20 * len(texts)))
			for i, n := range got[g] {
				Expect(n).To(Equal(want[i%len(texts)]))
			}
		}
	})
})

var _ = Describe("Request", func() {
	var c *tokens.Counter
	BeforeEach(func() { c = mustNew("") })

	params := json.RawMessage(`{
		"type": "object",
		"properties": {"bbox": {"type": "array", "items": {"type": "number"}}},
		"required": ["bbox"]
	}`)
	tool := llm.Tool{Name: "ghrsst_bbox_mean", Description: "Mean SST in a box <lon,lat>.", Parameters: params}
	full := llm.Request{
		Tools: []llm.Tool{tool},
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You answer questions about ocean temperature."},
			{Role: llm.RoleUser, Content: "SST near Japan?"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "ghrsst_bbox_mean", Arguments: json.RawMessage(`{"bbox":[129,30,146,46]}`)}}},
			{Role: llm.RoleTool, ToolCallID: "c1", Content: `{"mean_sst_c":21.4,"date":"2025-11-06"}`},
			{Role: llm.RoleAssistant, Content: "About 21.4 °C."},
			{Role: llm.RoleUser, Content: "現在台灣周遭海溫多少？"},
		},
	}

	It("splits a full request by part", func() {
		p := c.Request(full)
		Expect(p.System).To(Equal(c.Count("system") + c.Count("You answer questions about ocean temperature.")))
		Expect(p.Tools).To(Equal(c.Count(`{"type":"function","function":{"name":"ghrsst_bbox_mean","description":"Mean SST in a box <lon,lat>.","parameters":{"properties":{"bbox":{"items":{"type":"number"},"type":"array"}},"required":["bbox"],"type":"object"}}}`)),
			"the schema's keys sorted, as the OpenAI SDK sends it")
		Expect(p.History).To(Equal(c.Count("user") + c.Count("SST near Japan?") +
			c.Count("assistant") + c.Count("ghrsst_bbox_mean") + c.Count(`{"bbox":[129,30,146,46]}`) +
			c.Count("assistant") + c.Count("About 21.4 °C.")))
		Expect(p.ToolResults).To(Equal(c.Count("tool") + c.Count("c1") + c.Count(`{"mean_sst_c":21.4,"date":"2025-11-06"}`)))
		Expect(p.User).To(Equal(c.Count("user") + c.Count("現在台灣周遭海溫多少？")))
		Expect(p.Overhead).To(Equal(3*len(full.Messages) + 3))
		Expect(p.Total()).To(Equal(p.System + p.Tools + p.History + p.ToolResults + p.User + p.Overhead))
		for _, n := range []int{p.System, p.Tools, p.History, p.ToolResults, p.User} {
			Expect(n).To(BeNumerically(">", 0))
		}
	})

	DescribeTable("parts that are absent count zero",
		func(req llm.Request, want func(p, q int) bool) {
			p := c.Request(req)
			Expect(p.Overhead).To(Equal(3*len(req.Messages) + 3))
			Expect(p.Total()).To(Equal(p.System + p.Tools + p.History + p.ToolResults + p.User + p.Overhead))
			Expect(p.System).To(BeZero())
			Expect(p.Tools).To(BeZero())
			Expect(p.ToolResults).To(BeZero())
			Expect(want(p.User, p.History)).To(BeTrue(), "user %d, history %d", p.User, p.History)
		},
		Entry("empty request", llm.Request{}, func(u, h int) bool { return u == 0 && h == 0 }),
		Entry("single user message", llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}},
			func(u, h int) bool { return u > 0 && h == 0 }),
		Entry("ends with an assistant message", llm.Request{Messages: []llm.Message{
			{Role: llm.RoleUser, Content: "hi"}, {Role: llm.RoleAssistant, Content: "hello"},
		}}, func(u, h int) bool { return u == 0 && h > 0 }),
	)

	It("adds one token of overhead for a named message", func() {
		named := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Name: "alice", Content: "21.4"}}}
		p := c.Request(named)
		Expect(p.Overhead).To(Equal(3 + 1 + 3))
		Expect(p.User).To(Equal(c.Count("user") + c.Count("alice") + c.Count("21.4")))
	})

	It("counts a tool result's call id, which is sent, not its name, which is not", func() {
		res := llm.Request{Messages: []llm.Message{{Role: llm.RoleTool, Name: "ghrsst_bbox_mean", ToolCallID: "call_7", Content: "21.4"}}}
		p := c.Request(res)
		Expect(p.Overhead).To(Equal(3 + 3))
		Expect(p.ToolResults).To(Equal(c.Count("tool") + c.Count("call_7") + c.Count("21.4")))
	})

	It("counts each tool once per Counter, telling apart tools whose parts only split the same text differently", func() {
		tools := []llm.Tool{
			tool,
			{Name: "ghrsst", Description: "_bbox_mean Mean SST in a box <lon,lat>.", Parameters: params},
			{Name: "ghrsst_bbox_mean Mean SST", Description: " in a box <lon,lat>.", Parameters: params},
			{Name: "ghrsst_bbox_mean", Description: "Mean SST in a box <lon,lat>.", Parameters: json.RawMessage(`{"type":"object"}`)},
		}
		alone := make([]int, len(tools))
		for i, t := range tools {
			alone[i] = mustNew("").Request(llm.Request{Tools: []llm.Tool{t}}).Tools
		}
		Expect(alone).To(ContainElement(Not(Equal(alone[0]))), "tools that count differently, or the spec proves nothing")
		for range 2 {
			for i, t := range tools {
				Expect(c.Request(llm.Request{Tools: []llm.Tool{t}}).Tools).To(Equal(alone[i]), t.Name)
			}
		}
	})

	It("counts in the Counter's own encoding", func() {
		cl := mustNew(tokens.EncodingCL100K)
		p, q := c.Request(full), cl.Request(full)
		Expect(q.Overhead).To(Equal(p.Overhead))
		Expect(q.User).To(BeNumerically(">", p.User), "cl100k_base spends more tokens on Chinese")
	})
})

var _ = Describe("Output", func() {
	It("counts content and tool calls", func() {
		c := mustNew("")
		m := llm.Message{Role: llm.RoleAssistant, Content: "Checking.", ToolCalls: []llm.ToolCall{
			{ID: "a", Name: "ghrsst_bbox_mean", Arguments: json.RawMessage(`{"bbox":[118.0,20.0,123.5,26.5]}`)},
			{ID: "b", Name: "rag_search", Arguments: json.RawMessage(`{"q":"SST"}`)},
		}}
		Expect(c.Output(m)).To(Equal(c.Count("Checking.") +
			c.Count("ghrsst_bbox_mean") + 19 + c.Count("rag_search") + c.Count(`{"q":"SST"}`)))
		Expect(c.Output(llm.Message{})).To(BeZero())
		Expect(c.Output(llm.Message{Content: "hello world"})).To(Equal(2))
	})
})
