package family_test

import (
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/family"
)

// people is the fixture of the upstream jq tests (upstreams.md §3.1).
const people = `[{"id":1,"name":"Alice","city":"New York"},{"id":2,"name":"Bob","city":"Boston"},{"id":3,"name":"Charlie","city":"Chicago"}]`

func peopleAttachment() agents.Attachment {
	return agents.Attachment{Name: "people.json", MIME: "application/json", Data: []byte(people)}
}

var _ = Describe("jq_query", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	// query has the default profile call jq_query once with args and
	// returns the tool message the model read next, and the reply.
	query := func(args string, atts ...agents.Attachment) (string, family.Reply) {
		f := w.script(roleDefault, call(family.ToolJQ, args), say("done"))
		reply := ask(w.agent(nil), "query it", atts...)
		reqs := f.requests(roleDefault)
		Expect(reqs).To(HaveLen(2))
		return lastTool(reqs[1]), reply
	}

	DescribeTable("returns one result as the value and several as a list",
		func(program, want string) {
			got, reply := query(jsonArgs(map[string]string{"attachment_id": "att-1", "jq_program": program}), peopleAttachment())
			Expect(got).To(Equal(want))
			Expect(reply.Tools).To(Equal([]string{family.ToolJQ}))
			Expect(reply.Error).To(BeEmpty())

			reports := w.tracer.Reports(family.ToolJQ)
			Expect(reports).To(HaveLen(1))
			Expect(reports[0].Err).NotTo(HaveOccurred())
			Expect(string(reports[0].Raw)).To(Equal(people))
			Expect(reports[0].Context).To(Equal(want))
		},
		Entry("the length", "length", `3`),
		Entry("one field", ".[0].name", `"Alice"`),
		Entry("one list built by map", "map(.name)", `["Alice","Bob","Charlie"]`),
		Entry("three results as a list", ".[].name", `["Alice","Bob","Charlie"]`),
		Entry("the first and last ids", "[.[0].id, .[-1].id]", `[1,3]`),
		Entry("one result of a filter", `.[] | select(.name == "Bob") | .city`, `"Boston"`),
		Entry("no result as an empty list", "empty", `[]`),
	)

	DescribeTable("answers bad input with an error text",
		func(args string, atts []agents.Attachment, match OmegaMatcher) {
			got, reply := query(args, atts...)
			Expect(got).To(match)
			Expect(reply.Tools).To(BeEmpty(), "a failed call is not a tool used")

			reports := w.tracer.Reports(family.ToolJQ)
			Expect(reports).To(HaveLen(1))
			Expect(reports[0].Err).To(MatchError(got))
			Expect(reports[0].Context).To(Equal(got))
		},
		Entry("an unknown attachment id",
			`{"attachment_id":"att-99","jq_program":"length"}`, nil,
			Equal("Error: Attachment with ID att-99 not found.")),
		Entry("an attachment that is CSV",
			`{"attachment_id":"att-1","jq_program":"length"}`,
			[]agents.Attachment{attachment("attachments/energy-usage.csv", "text/csv", "")},
			HavePrefix("Error: Attachment is not valid JSON. Parse error: invalid character")),
		Entry("JSON that stops inside an object",
			`{"attachment_id":"att-1","jq_program":"length"}`,
			[]agents.Attachment{attachment("attachments/broken-large.json", "application/json", "")},
			Equal("Error: Attachment is not valid JSON. Parse error: unexpected end of JSON input")),
		Entry("a program that does not parse",
			`{"attachment_id":"att-1","jq_program":".[0"}`, []agents.Attachment{peopleAttachment()},
			HavePrefix("Error: Invalid jq query. ")),
		Entry("a program that calls an undefined function",
			`{"attachment_id":"att-1","jq_program":"nosuchfunction(1)"}`, []agents.Attachment{peopleAttachment()},
			SatisfyAll(HavePrefix("Error: Invalid jq query. "), ContainSubstring("nosuchfunction"))),
		Entry("a program that fails while running",
			`{"attachment_id":"att-1","jq_program":".[0] + 1"}`, []agents.Attachment{peopleAttachment()},
			HavePrefix("Error: jq query failed: ")),
		Entry("no program",
			`{"attachment_id":"att-1"}`, []agents.Attachment{peopleAttachment()},
			Equal("Error: attachment_id and jq_program are required.")),
		Entry("arguments that are not an object",
			`"length"`, []agents.Attachment{peopleAttachment()},
			Equal("Error: attachment_id and jq_program are required.")),
	)

	It("stops a query that runs longer than its bound", Label("slow"), func() {
		got, reply := query(`{"attachment_id":"att-1","jq_program":"[range(1e9)] | length"}`, peopleAttachment())
		Expect(got).To(HavePrefix("Error: jq query took longer than "))
		Expect(got).To(HaveSuffix("; narrow it"))
		Expect(reply.Tools).To(BeEmpty())
	})

	DescribeTable("refuses output larger than its bound",
		func(program string) {
			got, reply := query(jsonArgs(map[string]string{"attachment_id": "att-1", "jq_program": program}), peopleAttachment())
			Expect(got).To(Equal("Error: jq result is larger than 8 MiB; select fewer fields or records"))
			Expect(reply.Tools).To(BeEmpty())
			Expect(reply.Attachments).To(Equal([]string{"att-1"}), "nothing is saved")
		},
		Entry("one result", `"x" * 9000000`),
		Entry("many results that add up", `range(10) | "x" * 1000000`),
	)

	Describe("the 100 KiB safety net", func() {
		// stringDoc is a JSON attachment whose .s is n bytes of "x", so that
		// the jq result of ".s" is n+2 bytes long.
		stringDoc := func(n int) agents.Attachment {
			return agents.Attachment{Name: "big.json", MIME: "application/json",
				Data: []byte(`{"s":"` + strings.Repeat("x", n) + `"}`)}
		}

		It("passes a result just under 100 KiB to the model as it is", func() {
			got, reply := query(`{"attachment_id":"att-1","jq_program":".s"}`, stringDoc(100*1024-3))
			Expect(got).To(HaveLen(100*1024 - 1))
			Expect(got).To(HavePrefix(`"xxx`))
			Expect(reply.Attachments).To(Equal([]string{"att-1"}))
		})

		It("saves a result of 100 KiB as an attachment the model can query", func() {
			f := w.script(roleDefault,
				call(family.ToolJQ, `{"attachment_id":"att-1","jq_program":".s"}`),
				call(family.ToolJQ, `{"attachment_id":"att-2","jq_program":"length"}`),
				say("done"))
			reply := ask(w.agent(nil), "query it", stringDoc(100*1024-2))

			notice := "Tool result from 'jq_query' was too large (102400 bytes) and was saved as attachment att-2. Use the 'jq_query' tool to query it."
			reqs := f.requests(roleDefault)
			Expect(reqs).To(HaveLen(3))
			Expect(lastTool(reqs[1])).To(Equal(notice))
			Expect(lastTool(reqs[2])).To(Equal("102398"), "att-2 holds the JSON string itself")
			Expect(reply.Attachments).To(Equal([]string{"att-1", "att-2"}))

			reports := w.tracer.Reports(family.ToolJQ)
			Expect(reports).To(HaveLen(2))
			Expect(reports[0].Context).To(Equal(notice))
			Expect(reports[0].Err).NotTo(HaveOccurred())
		})

		It("saves the whole pool history, asked for with '.', as the next attachment", func() {
			f := w.script(roleDefault,
				call(family.ToolHistory, poolArgs),
				call(family.ToolJQ, `{"attachment_id":"att-1","jq_program":"."}`),
				call(family.ToolJQ, `{"attachment_id":"att-2","jq_program":".entities[0].states | length"}`),
				say("done"))
			reply := ask(w.agent(map[string]any{"attachments": "schema"}), "raw history please")

			reqs := f.requests(roleDefault)
			Expect(reqs).To(HaveLen(4))
			Expect(lastTool(reqs[2])).To(MatchRegexp(`^Tool result from 'jq_query' was too large \(\d{6} bytes\) and was saved as attachment att-2\. Use the 'jq_query' tool to query it\.$`))
			Expect(lastTool(reqs[3])).To(Equal("367"))
			Expect(reply.Attachments).To(Equal([]string{"att-1", "att-2"}))
			for _, r := range reqs {
				b, err := json.Marshal(r)
				Expect(err).NotTo(HaveOccurred())
				Expect(string(b)).NotTo(ContainSubstring(poolMinAt), "no request holds the readings")
			}
		})

		It("leaves a download's tool message alone however large the history", func() {
			f := w.script(roleDefault, call(family.ToolHistory, poolArgs), say("done"))
			ask(w.agent(map[string]any{"attachments": "inline"}), "raw")
			Expect(lastTool(f.requests(roleDefault)[1])).To(HavePrefix(
				fmt.Sprintf("State history for 1 entities (367 states) from %s to %s, saved as attachment att-1.", poolStart, windowEnd)))
		})
	})
})
