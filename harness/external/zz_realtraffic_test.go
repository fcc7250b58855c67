package external

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/agentreplay/testbed/harness/wire"
)

func TestZZRealTraffic(t *testing.T) {
	f, err := os.Open("/tmp/rt/traffic.jsonl")
	if err != nil {
		t.Skip(err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<20), 64<<20)
	counts := map[string]int{}
	for sc.Scan() {
		var it struct {
			File, Method, URI, Req, Ct, Resp string
			I, Status                        int
		}
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(it.URI)
		if err != nil || it.Status != 200 {
			continue
		}
		d, ok := wire.Of(u.Path)
		if !ok {
			counts["not a model path: "+u.Host] ++
			continue
		}
		where := fmt.Sprintf("%s#%d %s", it.File, it.I, u.Path)
		counts[fmt.Sprint(d)]++
		if err := wire.Validate(d, u.Path, []byte(it.Req)); err != nil {
			counts["refused"]++
			fmt.Printf("REFUSED %s: %v\n", where, err)
		}
		if _, err := wire.Decode(d, u.Path, []byte(it.Req)); err != nil {
			counts["undecoded"]++
			fmt.Printf("UNDECODED %s: %v\n", where, err)
		}
		var content string
		var calls int
		var in, out int
		if strings.Contains(it.Ct, "event-stream") {
			r, err := decodeStream(d, []byte(it.Resp))
			if err != nil {
				fmt.Printf("STREAMERR %s: %v\n", where, err)
				counts["streamerr"]++
			}
			content, calls, in, out = r.Message.Content, len(r.Message.ToolCalls), r.Usage.InputTokens, r.Usage.OutputTokens
		} else {
			r := decodeResponse(d, []byte(it.Resp))
			content, calls, in, out = r.Message.Content, len(r.Message.ToolCalls), r.Usage.InputTokens, r.Usage.OutputTokens
		}
		if content == "" && calls == 0 {
			counts["empty"]++
			fmt.Printf("EMPTY %s: %.300s\n", where, it.Resp)
		}
		if in == 0 || out == 0 {
			counts["nousage"]++
			fmt.Printf("NOUSAGE %s in=%d out=%d: %.200s\n", where, in, out, it.Resp)
		}
	}
	fmt.Println(counts)
}

func TestZZUsage(t *testing.T) {
	f, _ := os.Open("/tmp/rt/traffic.jsonl")
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<20), 64<<20)
	n := 0
	for sc.Scan() {
		var it struct {
			File, URI, Req, Ct, Resp string
			I, Status                int
		}
		json.Unmarshal(sc.Bytes(), &it)
		u, _ := url.Parse(it.URI)
		if it.Status != 200 || u == nil {
			continue
		}
		d, ok := wire.Of(u.Path)
		if !ok || strings.Contains(it.Ct, "event-stream") {
			continue
		}
		if !strings.Contains(it.Resp, "cache_read_input_tokens\": 1") && !strings.Contains(it.Resp, "cached_tokens\": 1") && !strings.Contains(it.Resp, "cachedContentTokenCount") && !strings.Contains(it.Resp, "cache_read_input_tokens\": 2") && !strings.Contains(it.Resp, "cache_creation_input_tokens\": 1") {
			continue
		}
		r := decodeResponse(d, []byte(it.Resp))
		var raw map[string]any
		json.Unmarshal([]byte(it.Resp), &raw)
		usage, _ := json.Marshal(raw["usage"])
		if raw["usage"] == nil {
			usage, _ = json.Marshal(raw["usageMetadata"])
		}
		fmt.Printf("%s in=%d out=%d cacheR=%d cacheW=%d reason=%d | %.300s\n", u.Path, r.Usage.InputTokens, r.Usage.OutputTokens, r.Usage.CacheReadTokens, r.Usage.CacheWriteTokens, r.Usage.ReasoningTokens, usage)
		n++
		if n > 12 {
			break
		}
	}
}
