package tokens_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/agentreplay/testbed/harness/tokens"
)

// mixedText returns about size bytes of English, Chinese and JSON, the same
// on every call.
func mixedText(size int) string {
	english := strings.Fields("the sea surface temperature near Taiwan is rising this week according to the latest satellite analysis and forecast models")
	chinese := []string{"現在", "台灣", "周遭", "海溫", "多少", "颱風", "路徑", "預報", "今天", "明天", "溫度", "降雨", "。", "，"}
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for b.Len() < size {
		switch r.IntN(3) {
		case 0:
			for range 12 {
				b.WriteString(english[r.IntN(len(english))])
				b.WriteByte(' ')
			}
			b.WriteString(".\n")
		case 1:
			for range 16 {
				b.WriteString(chinese[r.IntN(len(chinese))])
			}
			b.WriteString("\n")
		case 2:
			fmt.Fprintf(&b, `{"date":"2025-11-%02d","bbox":[%.1f,%.1f,%.1f,%.1f],"mean_sst_c":%.2f,"ok":true}`+"\n",
				1+r.IntN(28), 100+r.Float64()*50, r.Float64()*40, 100+r.Float64()*50, r.Float64()*40, 15+r.Float64()*15)
		}
	}
	return b.String()
}

var sink int

func BenchmarkCount(b *testing.B) {
	text := mixedText(1 << 20)
	for _, enc := range []string{tokens.EncodingO200K, tokens.EncodingCL100K} {
		c, err := tokens.New(enc)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(enc+"/cold", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			i := 0
			for b.Loop() {
				i++
				sink = c.Count(strconv.Itoa(i) + text) // a new text each time: never cached
			}
		})
		b.Run(enc+"/cached", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			sink = c.Count(text)
			for b.Loop() {
				sink = c.Count(text)
			}
		})
	}
}

// BenchmarkNew shows that Counters share their encoding: after the first New,
// which parses the BPE file (60-150 ms), each New costs microseconds.
func BenchmarkNew(b *testing.B) {
	for _, enc := range []string{tokens.EncodingO200K, tokens.EncodingCL100K} {
		b.Run(enc, func(b *testing.B) {
			for b.Loop() {
				if _, err := tokens.New(enc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
