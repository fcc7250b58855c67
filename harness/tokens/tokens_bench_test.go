package tokens_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/agentreplay/testbed/agents/llm"
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

// coldCount numbers the texts of BenchmarkCount's cold runs. It is never
// reset, so that no run, however many -count asks for, meets a text an
// earlier one left in the Counter's cache.
var coldCount int

// BenchmarkCount counts 256 KB of mixed text per operation (read MB/s):
// cold (a text never seen, so no cache answers), with tiktoken-go's encoder
// side by side on the same text, and cached; and, cold, 256 KB of a real
// Home Assistant history, the one-line JSON that most of a replay's
// counting reads.
func BenchmarkCount(b *testing.B) {
	text := mixedText(256 << 10)
	history, err := os.ReadFile(filepath.Join(repoRoot, "fixtures", "family", "history", "all-sensors-7d.json"))
	if err != nil {
		b.Fatal(err)
	}
	history = history[:256<<10]
	for _, enc := range []string{tokens.EncodingO200K, tokens.EncodingCL100K} {
		c, err := tokens.New(enc)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(enc+"/cold", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				coldCount++
				sink = c.Count(strconv.Itoa(coldCount) + text) // a new text each time: never cached
			}
		})
		b.Run(enc+"/cold-json", func(b *testing.B) {
			b.SetBytes(int64(len(history)))
			for b.Loop() {
				coldCount++
				sink = c.Count(strconv.Itoa(coldCount) + string(history))
			}
		})
		b.Run(enc+"/tiktoken-go", func(b *testing.B) {
			// The reference: tiktoken-go's own encoder on the same text.
			ref := reference(enc)
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				sink = len(ref.EncodeOrdinary(text))
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

// conversation returns the requests of one agent conversation of n calls:
// the same system prompt and tool schemas on every call, and a history that
// grows by a user message, an assistant tool call and a ~1 KB tool result
// per call, as an agent loop sends it.
func conversation(n int) []llm.Request {
	system := mixedText(2 << 10)
	var tools []llm.Tool
	for i := range 8 {
		tools = append(tools, llm.Tool{
			Name:        fmt.Sprintf("tool_%d", i),
			Description: "Returns the sea surface temperature of a bounding box on a date, in degrees Celsius.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"bbox":{"type":"array","items":{"type":"number"}},"date":{"type":"string"}},"required":["bbox"]}`),
		})
	}
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: system}}
	reqs := make([]llm.Request, 0, n)
	for i := range n {
		msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("What was the temperature on day %d?", i)})
		reqs = append(reqs, llm.Request{Messages: slices.Clone(msgs), Tools: tools})
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: fmt.Sprintf("call_%d", i), Name: "tool_1", Arguments: json.RawMessage(`{"bbox":[118,21.5,121.5,26]}`)}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: fmt.Sprintf("call_%d", i), Name: "tool_1", Content: mixedText(1 << 10)[i%7:]},
		)
	}
	return reqs
}

// BenchmarkConversation counts the input tokens of every call of one
// conversation of n calls with a fresh Counter (the encoding is shared): how
// counting grows with history length. Without a cache each call re-counts
// the whole history, so the cost grows with the square of n.
func BenchmarkConversation(b *testing.B) {
	for _, n := range []int{1, 10, 50} {
		reqs := conversation(n)
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c, err := tokens.New(tokens.EncodingO200K)
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range reqs {
					sink += c.Request(r).Total()
				}
			}
		})
	}
}

// BenchmarkEncodingBuild is what BenchmarkNew avoids: tiktoken-go building
// an encoding from its embedded BPE file, as GetEncoding does on every call,
// and (…/testbed) this package reading the same file into its ranks, as New
// does once per process.
func BenchmarkEncodingBuild(b *testing.B) {
	for _, enc := range []string{tokens.EncodingO200K, tokens.EncodingCL100K} {
		b.Run(enc+"/testbed", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := tokens.BuildEncoding(enc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	for _, enc := range []string{tokens.EncodingO200K, tokens.EncodingCL100K} {
		b.Run(enc, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tiktoken.GetEncoding(enc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
