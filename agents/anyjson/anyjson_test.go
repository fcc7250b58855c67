package anyjson_test

import (
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/anyjson"
)

// tricky holds inputs on every edge of the grammar and of unquoting: each
// must decode to exactly what encoding/json makes of it, error included.
var tricky = []string{
	`null`, `true`, `false`, `0`, `-0`, `1`, `-1`, `12.5`, `1e3`, `1E+3`, `1e-7`, `-1.5e-300`,
	`123456789012345`, `1234567890123456789`, `9007199254740993`, `1e400`, `-1e400`, `0.1`,
	`123.456`, `-0.0`, `0.000123`, `1e22`, `1e23`, `1E+22`, `2.5E-3`, `12345678901234.5e8`, `123456789012345.6`,
	`0.30000000000000004`, `1.7976931348623157e308`, `4.9e-324`, `0.0000000000000000000000001`, `1e-22`, `1e-23`,
	`100000000000000000000000e-2`, `1.50000000000000000000`, `9.999999999999999e22`, `1e0000000000000000005`,
	`""`, `"plain"`, `"tab\tand\\slash\/"`, `"\u00e9\u2028"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`,
	`"\ud83d\u0041"`, `"\ude00\ud83d"`, `"\ud83d\ud83d\ude00"`, "\"caf\xc3\xa9\"", "\"bad\xffbyte\"",
	"\"bad\xff\\nafter\"", "\"\xed\xa0\x80\"", `"\'"`, `"\x"`, `"\u12"`, `"\u12g4"`, "\"ctl\x01\"", "\"del\x7f\"",
	`[]`, `{}`, `[1,2,[3,{"a":[]}]]`, `{"a":1,"a":2}`, `{"b":{"c":null},"a":[true,false]}`,
	` [ 1 , 2 ] `, "\t{\n\"a\" :\r1}\n", `[1,]`, `{"a":1,}`, `{,}`, `[`, `{"a"`, `{"a":}`, `{"a" 1}`, `{1:2}`,
	`01`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`, `tru`, `truex`, `nul`, `[true false]`, `1 2`, ``, ` `,
	`"unterminated`, `[1}`, `{"a":1]`, "\xef\xbb\xbf1", `{"<&>":"<&>"}`,
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat("[", 5000) + strings.Repeat("]", 5000),
}

// stdDecode is what encoding/json makes of data.
func stdDecode(data []byte) (any, error) {
	var v any
	err := json.Unmarshal(data, &v)
	return v, err
}

var _ = Describe("Decode", func() {
	It("gives encoding/json's value and error for every edge of the grammar", func() {
		for _, in := range tricky {
			want, wantErr := stdDecode([]byte(in))
			got, err := anyjson.Decode([]byte(in))
			Expect(fmtErr(err)).To(Equal(fmtErr(wantErr)), "input %q", clip(in))
			Expect(reflect.DeepEqual(got, want)).To(BeTrue(), "input %q: got %#v, want %#v", clip(in), got, want)
		}
	})

	It("keeps the last of repeated keys and makes empty containers, not nil", func() {
		v, err := anyjson.Decode([]byte(`{"a":1,"a":[],"b":{}}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(v).To(Equal(map[string]any{"a": []any{}, "b": map[string]any{}}))
	})

	It("reads generated numbers of every length and exponent exactly as encoding/json does", func() {
		r := rand.New(rand.NewPCG(3, 4))
		for i := range 20000 {
			var b strings.Builder
			if r.IntN(2) == 0 {
				b.WriteByte('-')
			}
			b.WriteString(strconv.FormatUint(r.Uint64()>>r.IntN(64), 10))
			if r.IntN(2) == 0 {
				b.WriteString("." + strings.Repeat("0", r.IntN(4)) + strconv.FormatUint(r.Uint64()>>r.IntN(64), 10))
			}
			if r.IntN(2) == 0 {
				b.WriteString([]string{"e", "E", "e+", "e-", "E-"}[r.IntN(5)] + strconv.Itoa(r.IntN(40)))
			}
			in := b.String()
			want, wantErr := stdDecode([]byte(in))
			got, err := anyjson.Decode([]byte(in))
			Expect(fmtErr(err)).To(Equal(fmtErr(wantErr)), "number %d: %s", i, in)
			Expect(math.Float64bits(got.(float64))).To(Equal(math.Float64bits(want.(float64))), "number %d: %s", i, in)
		}
	})

	It("reads numbers as float64, exactly as strconv does", func() {
		v, err := anyjson.Decode([]byte(`[9007199254740993, 0.30000000000000004, -0]`))
		Expect(err).NotTo(HaveOccurred())
		Expect(v).To(Equal([]any{9007199254740992.0, 0.30000000000000004, math.Copysign(0, -1)}))
		Expect(math.Signbit(v.([]any)[2].(float64))).To(BeTrue())
	})
})

var _ = Describe("DecodeObject", func() {
	DescribeTable("is json.Unmarshal into a map[string]any",
		func(in string) {
			var want map[string]any
			wantErr := json.Unmarshal([]byte(in), &want)
			got, err := anyjson.DecodeObject([]byte(in))
			Expect(fmtErr(err)).To(Equal(fmtErr(wantErr)))
			Expect(got).To(Equal(want))
		},
		Entry("an object", `{"a":{"b":[1,"x"]}}`),
		Entry("null, a nil map", `null`),
		Entry("a list, a type error", `[1]`),
		Entry("a string, a type error", `"x"`),
		Entry("broken JSON, a syntax error", `{"a":`),
	)
})

var _ = Describe("Marshal", func() {
	It("writes what encoding/json writes for every decodable edge", func() {
		for _, in := range tricky {
			v, err := stdDecode([]byte(in))
			if err != nil {
				continue
			}
			want, _ := json.Marshal(v)
			got, err := anyjson.Marshal(v)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(got)).To(Equal(string(want)), "input %q", clip(in))
		}
	})

	DescribeTable("writes what encoding/json writes",
		func(v any) {
			want, wantErr := json.Marshal(v)
			got, err := anyjson.Marshal(v)
			Expect(fmtErr(err)).To(Equal(fmtErr(wantErr)))
			Expect(string(got)).To(Equal(string(want)))
		},
		Entry("keys sorted, HTML escaped", map[string]any{"z": 1.0, "<a>": "x&y", "b": nil}),
		Entry("controls, quotes, separators and bad UTF-8", "\x00\x1f\b\f\n\r\t\"\\\u2028\u2029\xff\x7fé"),
		Entry("floats at the format cutoffs", []any{1e-6, 9.99e-7, 1e21, 1e20, -1e-9, 123456789.125, 5e-324, math.MaxFloat64}),
		Entry("ints from jq", []any{0, -3, math.MaxInt64}),
		Entry("nil containers", []any{[]any(nil), map[string]any(nil)}),
		Entry("other types, through encoding/json", map[string]any{"n": json.Number("12"), "big": big.NewInt(7), "s": []string{"a"}, "st": struct{ A int }{1}}),
		Entry("NaN, an error", []any{math.NaN()}),
		Entry("+Inf inside a map, an error", map[string]any{"x": math.Inf(1)}),
		Entry("a bad json.Number, an error", []any{json.Number("1x")}),
	)

	It("appends to what it is given and leaves it alone on an error", func() {
		b, err := anyjson.Append([]byte("x="), map[string]any{"a": []any{true}})
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal(`x={"a":[true]}`))
		b, err = anyjson.Append([]byte("x="), []any{1.0, math.Inf(-1)})
		Expect(err).To(HaveOccurred())
		Expect(string(b)).To(Equal("x="))
	})
})

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

var _ = Describe("DecodeUnique", func() {
	DescribeTable("is Decode for JSON that repeats no key, and false otherwise",
		func(in string, ok bool) {
			v, got := anyjson.DecodeUnique([]byte(in))
			Expect(got).To(Equal(ok))
			if ok {
				want, err := stdDecode([]byte(in))
				Expect(err).NotTo(HaveOccurred())
				Expect(v).To(Equal(want))
			}
		},
		Entry("an object", `{"a":[1,{"b":null}],"c":"x"}`, true),
		Entry("the same key in two objects", `[{"a":1},{"a":2}]`, true),
		Entry("a repeated key", `{"a":1,"a":2}`, false),
		Entry("a repeated key deep inside", `[{"x":{"a":1,"b":2,"a":3}}]`, false),
		Entry("a key repeated through an escape", `{"a":1,"\u0061":2}`, false),
		Entry("broken JSON", `{"a":`, false),
		Entry("a number out of range", `[1e999]`, false),
	)
})

var _ = Describe("CaseExact", func() {
	DescribeTable("tells whether encoding/json would match a key to a name that differs from it",
		func(in string, names []string, exact bool) {
			m, err := anyjson.DecodeObject([]byte(in))
			Expect(err).NotTo(HaveOccurred())
			Expect(anyjson.CaseExact(m, names...)).To(Equal(exact))
		},
		Entry("the names themselves", `{"lon":1,"sst":2,"other":3}`, []string{"lon", "sst"}, true),
		Entry("a name in capitals", `{"SST":2}`, []string{"sst"}, false),
		Entry("a name with the Kelvin sign for k", `{"\u212ay":1}`, []string{"ky"}, false),
		Entry("a longer key", `{"sst_anomaly":1}`, []string{"sst"}, true),
	)

	It("matches as encoding/json does", func() {
		var v struct{ Ky int }
		Expect(json.Unmarshal([]byte(`{"\u212ay":1}`), &v)).To(Succeed())
		Expect(v.Ky).To(Equal(1)) // encoding/json folds the Kelvin sign, as CaseExact assumes
	})
})

var _ = Describe("List", func() {
	strs := func(_ int, e any) (string, bool) {
		s, ok := e.(string)
		return s, ok || e == nil
	}

	It("copies a list element by element, with the index", func() {
		var at []int
		got, ok := anyjson.List([]any{"a", nil, "c"}, func(i int, e any) (string, bool) {
			at = append(at, i)
			return strs(i, e)
		})
		Expect(ok).To(BeTrue())
		Expect(got).To(Equal([]string{"a", "", "c"}))
		Expect(at).To(Equal([]int{0, 1, 2}))
	})

	It("makes null a nil slice and an empty list an empty one, as encoding/json does", func() {
		got, ok := anyjson.List(nil, strs)
		Expect(ok).To(BeTrue())
		Expect(got).To(BeNil())
		got, ok = anyjson.List([]any{}, strs)
		Expect(ok).To(BeTrue())
		Expect(got).To(BeEmpty())
		Expect(got).NotTo(BeNil())
	})

	It("refuses what is not a list, and a list with an element each refuses", func() {
		_, ok := anyjson.List("x", strs)
		Expect(ok).To(BeFalse())
		_, ok = anyjson.List([]any{"a", 1.0}, strs)
		Expect(ok).To(BeFalse())
	})
})
