package family_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/family"
	"github.com/agentreplay/testbed/agents/family/attach"
)

var _ = Describe("download_state_history", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	// download has the default profile call download_state_history once
	// with args and returns the request the model got next.
	download := func(variant map[string]any, args string) (reqAfter []string, tool string, reply family.Reply) {
		f := w.script(roleDefault, call(family.ToolHistory, args), say("done"))
		reply = ask(w.agent(variant), "history please")
		reqs := f.requests(roleDefault)
		Expect(reqs).To(HaveLen(2))
		for _, m := range afterLastTool(reqs[1]) {
			reqAfter = append(reqAfter, m.Content)
		}
		return reqAfter, lastTool(reqs[1]), reply
	}

	DescribeTable("asks Home Assistant for the window exactly as the fixtures expect",
		func(args, path, query string, entities, states int, start string) {
			_, tool, reply := download(nil, args)

			reqs := w.transport.Requests(haHost)
			Expect(reqs).To(HaveLen(1))
			Expect(reqs[0].Method).To(Equal(http.MethodGet))
			Expect(reqs[0].EscapedPath).To(Equal(path))
			Expect(reqs[0].RawQuery).To(Equal(query))
			Expect(reqs[0].Header.Get("Authorization")).To(Equal("Bearer ha-token"))

			Expect(tool).To(Equal(fmt.Sprintf("State history for %d entities (%d states) from %s to %s, saved as attachment att-1.\n[File content in following message]",
				entities, states, start, windowEnd)))
			Expect(reply.Tools).To(Equal([]string{family.ToolHistory}))
			Expect(reply.Attachments).To(Equal([]string{"att-1"}))
		},
		Entry("the pool, 5 days, in Z form",
			poolArgs,
			"/api/history/period/2026-02-24T00:00:00+00:00",
			"end_time=2026-03-01T00%3A00%3A00%2B00%3A00&filter_entity_id=sensor.pool_temperature&significant_changes_only=0",
			1, 367, poolStart),
		Entry("the pool, 5 days, in local time (UTC+11)",
			`{"entity_ids":["sensor.pool_temperature"],"start":"2026-02-24T11:00:00+11:00","end":"2026-03-01T11:00:00+11:00"}`,
			"/api/history/period/2026-02-24T00:00:00+00:00",
			"end_time=2026-03-01T00%3A00%3A00%2B00%3A00&filter_entity_id=sensor.pool_temperature&significant_changes_only=0",
			1, 367, poolStart),
		Entry("the pool, 5 days, significant changes only",
			`{"entity_ids":["sensor.pool_temperature"],"start":"2026-02-24T00:00:00Z","end":"2026-03-01T00:00:00Z","significant_changes_only":true}`,
			"/api/history/period/2026-02-24T00:00:00+00:00",
			"end_time=2026-03-01T00%3A00%3A00%2B00%3A00&filter_entity_id=sensor.pool_temperature&significant_changes_only=1",
			1, 367, poolStart),
		Entry("the living room with the default window, the last 24 hours",
			`{"entity_ids":["sensor.living_room_temperature"]}`,
			"/api/history/period/2026-02-28T00:00:00+00:00",
			"end_time=2026-03-01T00%3A00%3A00%2B00%3A00&filter_entity_id=sensor.living_room_temperature&significant_changes_only=0",
			1, 40, "2026-02-28T00:00:00+00:00"),
		Entry("four sensors, a week, ids joined with commas in the order given",
			`{"entity_ids":["sensor.pool_temperature","sensor.living_room_temperature","sensor.outdoor_temperature","sensor.pool_ph"],"start":"2026-02-22T00:00:00Z","end":"2026-03-01T00:00:00Z"}`,
			"/api/history/period/2026-02-22T00:00:00+00:00",
			"end_time=2026-03-01T00%3A00%3A00%2B00%3A00&filter_entity_id=sensor.pool_temperature%2Csensor.living_room_temperature%2Csensor.outdoor_temperature%2Csensor.pool_ph&significant_changes_only=0",
			4, 514+281+656+252, "2026-02-22T00:00:00+00:00"),
	)

	It("sends the Home Assistant token from the secrets", func() {
		w.secrets = map[string]string{"HA_TOKEN": "long-lived-token"}
		download(nil, poolArgs)
		reqs := w.transport.Requests(haHost)
		Expect(reqs).To(HaveLen(1))
		Expect(reqs[0].Header.Get("Authorization")).To(Equal("Bearer long-lived-token"))
	})

	It("saves {start_time, end_time, significant_changes_only, entities: [{entity_id, states}]} with the pool's 367 states", func() {
		after, tool, _ := download(map[string]any{"attachments": "inline"}, poolArgs)
		data := poolHistory()
		Expect(after).To(Equal([]string{fmt.Sprintf(
			"[System: File from previous tool response]\n[Description: Home Assistant history of sensor.pool_temperature]\n[Attachment ID: att-1]\n[Content (%d bytes)]:\n%s",
			len(data), data)}))

		var file map[string]json.RawMessage
		Expect(json.Unmarshal(data, &file)).To(Succeed())
		Expect(file).To(HaveLen(4))
		Expect(file).To(HaveKeyWithValue("start_time", json.RawMessage(`"`+poolStart+`"`)))
		Expect(file).To(HaveKeyWithValue("significant_changes_only", json.RawMessage(`false`)))
		Expect(file).To(HaveKeyWithValue("end_time", json.RawMessage(`"`+windowEnd+`"`)))
		var entities []struct {
			EntityID string           `json:"entity_id"`
			States   []map[string]any `json:"states"`
		}
		Expect(json.Unmarshal(file["entities"], &entities)).To(Succeed())
		Expect(entities).To(HaveLen(1))
		Expect(entities[0].EntityID).To(Equal("sensor.pool_temperature"))
		Expect(entities[0].States).To(HaveLen(367))
		Expect(entities[0].States[0]).To(HaveKeyWithValue("state", "25.8"))
		Expect(entities[0].States[366]).To(HaveKeyWithValue("last_changed", "2026-02-28T23:42:30.507847+00:00"))

		report := w.tracer.Reports(family.ToolHistory)
		Expect(report).To(HaveLen(1))
		Expect(report[0].Err).NotTo(HaveOccurred())
		Expect(report[0].Raw).To(Equal(fixture("history/pool-temperature-5d.json")), "raw is Home Assistant's answer")
		Expect(report[0].Context).To(Equal(tool + "\n" + after[0]))
	})

	It("gives jq_query the value it saved, so that '.' prints the attachment back", func() {
		f := w.script(roleDefault,
			call(family.ToolHistory, `{"entity_ids":["sensor.living_room_temperature"],"start":"2026-02-28T00:00:00Z","end":"2026-03-01T00:00:00Z"}`),
			call(family.ToolJQ, `{"attachment_id":"att-1","jq_program":"."}`),
			say("done"))
		ask(w.agent(map[string]any{"attachments": "inline"}), "living room")
		reqs := f.requests(roleDefault)
		Expect(reqs).To(HaveLen(3))
		injected := afterLastTool(reqs[1])
		Expect(injected).To(HaveLen(1))
		_, data, found := strings.Cut(injected[0].Content, " bytes)]:\n")
		Expect(found).To(BeTrue())
		Expect(data).To(ContainSubstring(`"entity_id":"sensor.living_room_temperature"`))
		// jq prints objects with sorted keys: the attachment as parsed and
		// printed again, whichever way the value was obtained.
		var parsed any
		Expect(json.Unmarshal([]byte(data), &parsed)).To(Succeed())
		printed, err := json.Marshal(parsed)
		Expect(err).NotTo(HaveOccurred())
		Expect(lastTool(reqs[2])).To(Equal(string(printed)))
	})

	It("keeps one entity per inner list, in the order asked for", func() {
		f := w.script(roleDefault,
			call(family.ToolHistory, `{"entity_ids":["sensor.pool_temperature","sensor.living_room_temperature","sensor.outdoor_temperature","sensor.pool_ph"],"start":"2026-02-22T00:00:00Z","end":"2026-03-01T00:00:00Z"}`),
			call(family.ToolJQ, `{"attachment_id":"att-1","jq_program":"[.entities[] | [.entity_id, (.states | length)]]"}`),
			say("done"))
		ask(w.agent(nil), "all sensors")
		reqs := f.requests(roleDefault)
		Expect(reqs).To(HaveLen(3))
		Expect(lastTool(reqs[2])).To(Equal(`[["sensor.pool_temperature",514],["sensor.living_room_temperature",281],["sensor.outdoor_temperature",656],["sensor.pool_ph",252]]`))
	})

	DescribeTable("says so, and saves nothing, when no states were recorded",
		func(args, want string) {
			after, tool, reply := download(nil, args)
			Expect(tool).To(Equal(want))
			Expect(after).To(BeEmpty(), "no attachment is injected")
			Expect(reply.Attachments).To(BeEmpty())
			Expect(reply.Tools).To(Equal([]string{family.ToolHistory}))

			report := w.tracer.Reports(family.ToolHistory)
			Expect(report).To(HaveLen(1))
			Expect(report[0].Err).NotTo(HaveOccurred())
			Expect(string(report[0].Raw)).To(Equal("[]"))
			Expect(report[0].Context).To(Equal(want))
		},
		Entry("a range older than the recorder keeps",
			`{"entity_ids":["sensor.pool_temperature"],"start":"2026-01-01T00:00:00Z","end":"2026-01-06T00:00:00Z"}`,
			"No states were recorded for sensor.pool_temperature between 2026-01-01T00:00:00+00:00 and 2026-01-06T00:00:00+00:00."),
		Entry("an entity Home Assistant does not have",
			`{"entity_ids":["sensor.garage_temperature"],"start":"2026-02-24T00:00:00Z","end":"2026-03-01T00:00:00Z"}`,
			"No states were recorded for sensor.garage_temperature between 2026-02-24T00:00:00+00:00 and 2026-03-01T00:00:00+00:00."),
	)

	DescribeTable("answers bad arguments with an error text, without calling Home Assistant",
		func(args, want string) {
			after, tool, reply := download(nil, args)
			Expect(tool).To(Equal(want))
			Expect(after).To(BeEmpty())
			Expect(reply.Tools).To(BeEmpty())
			Expect(reply.Attachments).To(BeEmpty())
			Expect(w.transport.Requests(haHost)).To(BeEmpty())
			report := w.tracer.Reports(family.ToolHistory)
			Expect(report).To(HaveLen(1))
			Expect(report[0].Err).To(MatchError(want))
		},
		Entry("no entity_ids", `{"start":"2026-02-24T00:00:00Z"}`,
			`Error: entity_ids is required (for example ["sensor.pool_temperature"])`),
		Entry("empty entity_ids", `{"entity_ids":[]}`,
			`Error: entity_ids is required (for example ["sensor.pool_temperature"])`),
		Entry("entity_ids that is not a list", `{"entity_ids":"sensor.pool_temperature"}`,
			`Error: entity_ids is required (for example ["sensor.pool_temperature"])`),
		Entry("a start that is not RFC 3339", `{"entity_ids":["sensor.pool_temperature"],"start":"five days ago"}`,
			`Error: start "five days ago" is not an RFC 3339 time`),
		Entry("a start without a time", `{"entity_ids":["sensor.pool_temperature"],"start":"2026-02-24"}`,
			`Error: start "2026-02-24" is not an RFC 3339 time`),
		Entry("an end that is not RFC 3339", `{"entity_ids":["sensor.pool_temperature"],"end":"now"}`,
			`Error: end "now" is not an RFC 3339 time`),
	)

	It("names the status when Home Assistant fails", func() {
		w.serveHomeAssistant(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			rw.WriteHeader(http.StatusInternalServerError)
			io.WriteString(rw, "recorder is not running")
		}))
		after, tool, reply := download(nil, poolArgs)
		Expect(tool).To(Equal("Error: Home Assistant returned HTTP 500: recorder is not running"))
		Expect(after).To(BeEmpty())
		Expect(reply.Attachments).To(BeEmpty())
		got := w.transport.Requests(haHost)
		Expect(got).To(HaveLen(1))
		Expect(got[0].EscapedPath).To(Equal("/api/history/period/2026-02-24T00:00:00+00:00"))

		report := w.tracer.Reports(family.ToolHistory)
		Expect(report).To(HaveLen(1))
		Expect(report[0].Err).To(MatchError(ContainSubstring("HTTP 500")))
		Expect(string(report[0].Raw)).To(Equal("recorder is not running"))
	})

	It("reports the stub's 404 for a window no route serves", func() {
		_, tool, _ := download(nil, `{"entity_ids":["sensor.pool_temperature"],"start":"2026-02-23T00:00:00Z","end":"2026-03-01T00:00:00Z"}`)
		Expect(tool).To(HavePrefix("Error: Home Assistant returned HTTP 404: "))
	})

	It("says so when Home Assistant's answer is not a list of lists", func() {
		w.serveHomeAssistant(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			io.WriteString(rw, `{"message":"ok"}`)
		}))
		_, tool, reply := download(nil, poolArgs)
		Expect(tool).To(HavePrefix("Error: Home Assistant's history is not a list of lists: "))
		Expect(reply.Attachments).To(BeEmpty())
	})

	It("skips the inner lists Home Assistant leaves empty", func() {
		body := bytes.Replace(fixture("history/pool-temperature-5d.json"), []byte("[["), []byte("[[],["), 1)
		w.serveHomeAssistant(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			rw.Write(body)
		}))
		after, tool, _ := download(map[string]any{"attachments": "inline"}, poolArgs)
		Expect(tool).To(HavePrefix("State history for 1 entities (367 states)"))
		Expect(after).To(HaveLen(1))
		Expect(strings.HasSuffix(after[0], "\n"+string(poolHistory()))).To(BeTrue(), "the attachment is the pool's history alone")
	})

	DescribeTable("keeps as the attachment's value what its bytes decode to",
		func(body string) {
			w.serveHomeAssistant(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				io.WriteString(rw, body)
			}))
			w.script(roleDefault, call(family.ToolHistory, poolArgs), say("done"))
			a := w.agent(nil)
			ask(a, "history please")
			atts := family.Attachments(a)
			Expect(atts).To(HaveLen(1))
			var want any
			Expect(json.Unmarshal(atts[0].Data, &want)).To(Succeed())
			got, err := atts[0].Value()
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(want))
		},
		Entry("the pool's 5 days", string(fixture("history/pool-temperature-5d.json"))),
		Entry("two entities, null states, an empty list and every kind of JSON value",
			`[[null, {"entity_id": "sensor.a", "state": "<b>&amp;</b>", "attributes": {"n": -0, "big": 1e300, "tiny": 5e-324,
			"long": 12345678901234567890, "f": 0.1, "ok": true, "none": null, "list": [1, "two", [3], {"four": 4}], "empty": {}, "no": []}}],
			[], [{"entity_id": "sensor.b", "state": "caf\u00e9 \u2028 \ud83d\ude00 ÿ", "x": "a", "x": "b"}, null]]`),
		Entry("a first state without an entity id", `[[{"state": "1"}, {"entity_id": 7}]]`),
	)

	It("makes the attachment of an answer and window once per run, and again for another window", func() {
		cache := &agents.Cache{}
		var shown []string // what the model read after each download
		downloadAs := func(variant map[string]any, args string) (family.Reply, attach.Attachment) {
			f := w.script(roleDefault, call(family.ToolHistory, args), say("done"))
			cfg := w.config(variant)
			cfg.Cache = cache
			a, err := family.New(cfg)
			Expect(err).NotTo(HaveOccurred())
			reply := ask(a, "history please")
			reqs := f.requests(roleDefault)
			after := afterLastTool(reqs[len(reqs)-1])
			Expect(after).To(HaveLen(1))
			shown = append(shown, after[0].Content)
			atts := family.Attachments(a)
			Expect(atts).To(HaveLen(1))
			return reply, atts[0]
		}
		download := func(args string) (family.Reply, attach.Attachment) { return downloadAs(nil, args) }
		_, first := download(poolArgs)
		_, again := download(poolArgs)
		Expect(shown[1]).To(Equal(shown[0]))
		Expect(shown[0]).To(ContainSubstring("Data structure (JSON Schema):"))
		downloadAs(map[string]any{"attachments": "inline"}, poolArgs)
		Expect(shown[2]).To(HaveSuffix("\n"+string(poolHistory())), "the same file shown the inline variant's way")
		Expect(again.Data).To(Equal(poolHistory()))
		v1, _ := first.Value()
		v2, _ := again.Value()
		Expect(reflect.ValueOf(v2).Pointer()).To(Equal(reflect.ValueOf(v1).Pointer()), "one value for the run")

		_, significant := download(`{"entity_ids":["sensor.pool_temperature"],"start":"2026-02-24T00:00:00Z","end":"2026-03-01T00:00:00Z","significant_changes_only":true}`)
		Expect(string(significant.Data)).To(ContainSubstring(`"significant_changes_only":true`))
		v3, _ := significant.Value()
		Expect(reflect.ValueOf(v3).Pointer()).NotTo(Equal(reflect.ValueOf(v1).Pointer()))
	})
})
