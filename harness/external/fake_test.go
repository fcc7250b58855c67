package external_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentreplay/testbed/harness/external"
)

// fakeAgent is the agent of kind the specs start (the test binary, with
// FAKE_AGENT=kind), listening on 127.0.0.1:$PORT. Each turn it GETs
// $NOTES_BASE_URL/turn/<input>, an upstream call its run's cassette must
// see, and answers with what it was given and its process id.
func fakeAgent(kind string) int {
	if f := os.Getenv("PID_FILE"); f != "" {
		os.WriteFile(f, []byte(strconv.Itoa(hostPID())), 0o644)
	}
	switch kind {
	case "exit":
		fmt.Fprintln(os.Stderr, "config missing: NOTES_TOKEN")
		return 3
	case "no-port":
		time.Sleep(time.Hour)
		return 0
	case "phone-home": // looks a host up as it starts, before it listens, as a library's import does
		net.LookupHost("huggingface.co")
		kind = "text"
	}
	addr := "127.0.0.1:" + os.Getenv("PORT")
	fetch := func(input string) string {
		resp, err := http.Get(os.Getenv("NOTES_BASE_URL") + "/turn/" + input)
		if err != nil {
			return err.Error()
		}
		defer resp.Body.Close()
		return resp.Status
	}
	if kind == "mcp-stdio" { // an MCP server on stdin and stdout; no port
		fmt.Fprintln(os.Stderr, "echo server ready on stdio")
		if os.Getenv("BANNER") != "" { // a library's banner on stdout, as a stray console.log writes it
			fmt.Println(os.Getenv("BANNER"))
		}
		if err := echoServer(fetch).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		return 0
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /chat", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Input, Session string
			Turn           int
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
			return
		}
		upstream := fetch(in.Input)
		if in.Input == "hang" {
			kind = "slow"
		}
		switch kind {
		case "status":
			http.Error(w, "model overloaded", http.StatusServiceUnavailable)
		case "not-json":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, "<html>oops</html>")
		case "rpc-error": // a JSON-RPC server refusing the request
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc": "2.0", "id": 1, "error": {"code": -32009, "message": "requested A2A protocol version '0.3' is not supported"}}`)
		case "slow":
			time.Sleep(time.Hour)
		case "text":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprintf(w, "you said %s", in.Input)
		case "escape": // the input is a URL, called without the proxy as well
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprintf(w, "%s | %s", upstream, direct(in.Input))
		case "sse":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: start\ndata: {\"type\":\"start\"}\n\ndata: {\"delta\":\"you \"}\n\n")
			w.(http.Flusher).Flush()
			fmt.Fprintf(w, "data: {\"choices\":[],\"delta\":{\"content\":\"said \"}}\n\ndata: %s\n\ndata: [DONE]\n\n", in.Input)
		default:
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{
				"answer": map[string]any{"text": fmt.Sprintf("you said %s", in.Input)},
				"text":   fmt.Sprintf("turn %d of %s", in.Turn, in.Session),
				"pid":    hostPID(), "upstream": upstream, "header": r.Header.Get("X-Conversation"),
				"notes": []map[string]any{{"key": "route", "value": map[string]any{"mode": "chat"}}},
			})
		}
	})
	// What it was sent, whole: {"text": "echoed", "body": …}.
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		var body any
		json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"text": "echoed", "body": body})
	})
	// An A2A agent streaming its answer (message/stream): the task, its
	// working status, the answer as an artifact in two chunks, and the
	// completed status, each a JSON-RPC response in an event.
	mux.HandleFunc("POST /a2a-stream", func(w http.ResponseWriter, r *http.Request) {
		var rpc struct {
			ID     any `json:"id"`
			Params struct {
				Message struct{ Parts []struct{ Text string } }
			}
		}
		json.NewDecoder(r.Body).Decode(&rpc)
		w.Header().Set("Content-Type", "text/event-stream")
		for _, result := range []map[string]any{
			{"kind": "task", "id": "t1", "status": map[string]any{"state": "submitted"}},
			{"kind": "status-update", "taskId": "t1", "status": map[string]any{"state": "working", "message": map[string]any{"parts": []any{map[string]any{"kind": "text", "text": "thinking"}}}}},
			{"kind": "artifact-update", "taskId": "t1", "artifact": map[string]any{"artifactId": "a", "parts": []any{map[string]any{"kind": "text", "text": "you said "}}}},
			{"kind": "artifact-update", "taskId": "t1", "append": true, "artifact": map[string]any{"artifactId": "a", "parts": []any{map[string]any{"kind": "text", "text": rpc.Params.Message.Parts[0].Text}}}},
			{"kind": "status-update", "taskId": "t1", "status": map[string]any{"state": "completed"}, "final": true},
		} {
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": rpc.ID, "result": result})
			fmt.Fprintf(w, "data: %s\n\n", b)
			w.(http.Flusher).Flush()
		}
	})
	// An A2A agent: JSON-RPC message/send, answered with a Message on
	// even turns and a completed Task (the answer its last artifact) on
	// odd ones, as A2A servers do.
	mux.HandleFunc("POST /a2a", func(w http.ResponseWriter, r *http.Request) {
		var rpc struct {
			ID     any    `json:"id"`
			Method string `json:"method"`
			Params struct {
				Message struct {
					MessageID string `json:"messageId"`
					ContextID string `json:"contextId"`
					Parts     []struct{ Kind, Text string }
				}
			}
		}
		if err := json.NewDecoder(r.Body).Decode(&rpc); err != nil || rpc.Method != "message/send" || len(rpc.Params.Message.Parts) != 1 {
			http.Error(w, fmt.Sprintf("bad request: %v %q", err, rpc.Method), http.StatusBadRequest)
			return
		}
		m := rpc.Params.Message
		upstream := fetch(m.Parts[0].Text)
		text := map[string]any{"kind": "text", "text": fmt.Sprintf("%s in %s: you said %s (%s)", m.MessageID, m.ContextID, m.Parts[0].Text, upstream)}
		result := map[string]any{"kind": "message", "role": "agent", "messageId": "reply-" + m.MessageID, "contextId": m.ContextID, "parts": []any{text}}
		if turn, _ := rpc.ID.(float64); int(turn)%2 == 1 {
			result = map[string]any{"kind": "task", "id": "task-" + m.MessageID, "contextId": m.ContextID,
				"status":    map[string]any{"state": "completed", "message": map[string]any{"kind": "message", "role": "agent", "parts": []any{map[string]any{"kind": "text", "text": "done"}}}},
				"artifacts": []any{map[string]any{"artifactId": "draft", "parts": []any{map[string]any{"kind": "text", "text": "draft"}}}, map[string]any{"artifactId": "answer", "parts": []any{text}}}}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": rpc.ID, "result": result})
	})
	server := echoServer(fetch)
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	mux.Handle("/sse", mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return server }, nil))
	if err := http.ListenAndServe(addr, mux); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// echoServer is the fake agent's MCP server: its tool echo GETs the
// query's upstream turn (fetch) and answers what it was given, noting a
// route in its result's _meta.
func echoServer(fetch func(string) string) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "fake", Version: "0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(ctx context.Context, _ *mcp.CallToolRequest, in struct {
		Query string `json:"query"`
		Turn  int    `json:"turn"`
	}) (*mcp.CallToolResult, map[string]any, error) {
		upstream := fetch(in.Query)
		switch in.Query {
		case "fail":
			return nil, nil, fmt.Errorf("the cassette is stale")
		case "crash":
			fmt.Fprintln(os.Stderr, "panic: the index is gone")
			os.Exit(2)
		case "blocks": // an answer in two text blocks, no structure
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Oslo is at -3.2 °C."}, &mcp.TextContent{Text: "Anything else?"}}}, nil, nil
		}
		res := &mcp.CallToolResult{Meta: mcp.Meta{external.MetaNotes: []map[string]any{{"key": "route", "value": map[string]any{"mode": "tool", "tool": "echo"}}}}}
		return res, map[string]any{"text": "you said " + in.Query, "turn": in.Turn, "pid": hostPID(), "upstream": upstream}, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "echo-args"}, func(ctx context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, map[string]any, error) {
		return nil, map[string]any{"text": "echoed", "args": args}, nil
	})
	return server
}

// direct GETs url without a proxy, whatever HTTP_PROXY says (as Node's
// fetch does), and says "reached" or why not.
func direct(url string) string {
	c := &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: 20 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return err.Error()
	}
	resp.Body.Close()
	return "reached"
}

// hostPID is the fake agent's process id as testbed sees it: in the PID
// namespace testbed starts it in, Getpid is the namespace's (2), while
// /proc, the host's, names the process by the host's id.
func hostPID() int {
	if self, err := os.Readlink("/proc/self"); err == nil {
		if pid, err := strconv.Atoi(self); err == nil {
			return pid
		}
	}
	return os.Getpid()
}
