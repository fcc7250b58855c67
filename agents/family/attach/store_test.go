package attach_test

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/family/attach"
)

var _ = Describe("Store", func() {
	var s *attach.Store
	BeforeEach(func() { s = attach.NewStore() })

	It("gives ids att-1, att-2, … in order of Put", func() {
		a := s.Put("a.json", "application/json", "first", []byte(`[]`))
		b := s.Put("b.csv", "text/csv", "", []byte("x\n1\n"))
		Expect([]string{a.ID, a.Name, a.MIME, a.Description, string(a.Data)}).To(Equal([]string{"att-1", "a.json", "application/json", "first", "[]"}))
		Expect(b.ID).To(Equal("att-2"))
		Expect(b.Size()).To(Equal(4))
		Expect(s.All()).To(Equal([]attach.Attachment{a, b}))
	})

	It("finds attachments by id, and only those", func() {
		a := s.Put("a.json", "application/json", "", []byte(`{}`))
		got, ok := s.Get("att-1")
		Expect(ok).To(BeTrue())
		Expect(got).To(Equal(a))
		for _, id := range []string{"att-2", "att-0", "1", ""} {
			_, ok := s.Get(id)
			Expect(ok).To(BeFalse(), id)
		}
	})

	It("keeps the value PutValue is given as the attachment's value, with a copy of the data", func() {
		data := []byte(`{"n": 1}`)
		value := map[string]any{"n": 1.0}
		a := s.PutValue("v.json", "application/json", "given", data, value)
		data[1] = 'X'
		Expect(a.ID).To(Equal("att-1"))
		Expect(string(a.Data)).To(Equal(`{"n": 1}`))
		got, err := a.Value()
		Expect(err).NotTo(HaveOccurred())
		Expect(reflect.ValueOf(got).Pointer()).To(Equal(reflect.ValueOf(value).Pointer()), "the value given, not a parse of the data")
		stored, _ := s.Get("att-1")
		Expect(attach.Inject(stored, attach.ModeInline)).To(ContainSubstring(`{"n": 1}`))
	})

	It("parses a stored attachment's JSON once and shares the value between copies", func() {
		a := s.Put("h.json", "application/json", "", []byte(`{"states": [{"state": "21.5", "n": 2}]}`))
		v, err := a.Value()
		Expect(err).NotTo(HaveOccurred())
		Expect(v).To(Equal(map[string]any{"states": []any{map[string]any{"state": "21.5", "n": 2.0}}}))
		got, _ := s.Get(a.ID)
		again, err := got.Value()
		Expect(err).NotTo(HaveOccurred())
		Expect(reflect.ValueOf(again).Pointer()).To(Equal(reflect.ValueOf(v).Pointer()), "the same map, not a second parse")
	})

	DescribeTable("stores a tool's text result as JSON exactly when json.Valid says it is",
		func(text, mime string) {
			a := s.PutResult("jq_query-result", "result of jq_query", text)
			Expect(a.MIME).To(Equal(mime))
			Expect(string(a.Data)).To(Equal(text))
			Expect(a.ValidJSON()).To(Equal(mime == "application/json"))
			got, _ := s.Get(a.ID)
			Expect(got.MIME).To(Equal(mime))
			Expect(got.ValidJSON()).To(Equal(a.ValidJSON()))
		},
		Entry("an object", `{"a":[1,2]}`, "application/json"),
		Entry("a number beyond float64, valid but not parsed", `[1e999]`, "application/json"),
		Entry("invalid UTF-8 in a string, which json.Valid accepts", "[\"\xff\"]", "application/json"),
		Entry("prose", "No states were recorded.", "text/plain"),
		Entry("a cut-off list", `[1,`, "text/plain"),
		Entry("two values", `{} {}`, "text/plain"),
	)

	It("returns the parse error of data that is not JSON, every time", func() {
		a := s.Put("h.json", "application/json", "", []byte(`{"states": [`))
		for range 2 {
			_, err := a.Value()
			Expect(err).To(MatchError("unexpected end of JSON input"))
		}
	})

	It("parses an attachment made without a Store too", func() {
		v, err := attach.Attachment{Data: []byte(`[1, "two"]`)}.Value()
		Expect(err).NotTo(HaveOccurred())
		Expect(v).To(Equal([]any{1.0, "two"}))
	})

	It("renders a stored attachment once per mode, as an unstored copy renders", func() {
		data := []byte(`[` + strings.Repeat(`{"state": "21.5", "entity_id": "sensor.pool"},`, 400) + `{"state": "22"}]`)
		a := s.Put("h.json", "application/json", "pool", data)
		unstored := attach.Attachment{ID: a.ID, Name: a.Name, MIME: a.MIME, Description: a.Description, Data: data}
		for range 2 {
			for _, mode := range []attach.Mode{attach.ModeSchema, attach.ModeInline, attach.ModePlaceholder} {
				Expect(attach.Inject(a, mode)).To(Equal(attach.Inject(unstored, mode)), string(mode))
			}
		}
		Expect(attach.Inject(a, attach.ModeSchema)).NotTo(Equal(attach.Inject(a, attach.ModeInline)))
	})

	It("is empty when new", func() {
		Expect(s.All()).To(BeEmpty())
	})

	It("keeps its own copy of the data", func() {
		data := []byte("hello")
		s.Put("h.txt", "text/plain", "", data)
		data[0] = 'j'
		got, _ := s.Get("att-1")
		Expect(string(got.Data)).To(Equal("hello"))
	})

	It("keeps its list when a caller changes the one All returned", func() {
		s.Put("a", "text/plain", "", nil)
		all := s.All()
		all[0].ID = "changed"
		Expect(s.All()[0].ID).To(Equal("att-1"))
	})

	It("is safe for concurrent use, giving every Put its own id", Label("race"), func() {
		const writers, each = 16, 50
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				for i := range each {
					a := s.Put(fmt.Sprintf("w%d-%d", w, i), "text/plain", "", []byte{byte(w), byte(i)})
					got, ok := s.Get(a.ID)
					Expect(ok).To(BeTrue())
					Expect(got).To(Equal(a))
					_ = s.All()
				}
			})
		}
		wg.Wait()

		all := s.All()
		Expect(all).To(HaveLen(writers * each))
		names := map[string]bool{}
		for i, a := range all {
			Expect(a.ID).To(Equal(fmt.Sprintf("att-%d", i+1)))
			names[a.Name] = true
		}
		Expect(names).To(HaveLen(writers * each))
	})
})
