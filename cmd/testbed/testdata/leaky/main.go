// Command leaky is an agent outside testbed for the redaction specs
// (redact_test.go), spoken to by the command driver in JSON lines. It reads
// secrets from the JSON file its first argument names and, each turn, sends
// them where a careless agent would: in a POST to its vault upstream (the
// URL's query, the JSON body, its headers), in the system and user prompts
// of a streamed chat completion, whose stand-in answer echoes the start of
// the user's message, split across the stream's chunks. It answers with the
// reassembled text. A turn whose input says "archive" also fetches a
// gzip-encoded upstream answer, asking for it compressed.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "leaky:", err)
		os.Exit(1)
	}
}

func run() error {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		return err
	}
	var s map[string]string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var turn struct {
			Input string `json:"input"`
		}
		if err := json.Unmarshal(in.Bytes(), &turn); err != nil {
			return err
		}
		raw, err := lookup(s)
		if err != nil {
			return err
		}
		if strings.Contains(turn.Input, "archive") {
			if raw, err = archive(); err != nil {
				return err
			}
		}
		text, err := chat(s, turn.Input)
		if err != nil {
			return err
		}
		if err := out.Encode(map[string]any{"text": text, "tools": []map[string]any{{
			"name": "vault.lookup", "args": map[string]string{"tenant": s["pointer"], "query": turn.Input + " " + s["github"]},
			"raw": raw, "context": raw,
		}}}); err != nil {
			return err
		}
	}
	return in.Err()
}

// lookup POSTs to the vault upstream with secrets in the query, the body
// and the headers, and returns its answer.
func lookup(s map[string]string) (string, error) {
	q := url.Values{"api_key": {s["query_param"]}, "plain": {s["stripe"]}, "sig": {s["sig"]}, "q": {"status"}}
	body, _ := json.Marshal(map[string]any{
		"metadata":   map[string]string{"tenant": s["pointer"]},
		"aws":        map[string]string{"id": s["aws_id"], "secret": s["aws_secret"]},
		"dsn":        s["url_credential"],
		"blob":       s["base64"],
		"jwt":        s["jwt"],
		"pem":        s["pem"],
		"slack":      s["slack"],
		"fine":       s["github_pat"],
		"account":    s["account"],
		"google_key": s["google"],
	})
	req, err := http.NewRequest(http.MethodPost, os.Getenv("VAULT_BASE_URL")+"/v1/lookup?"+q.Encode(), bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+s["bearer"])
	req.Header.Set("X-Tenant-Token", s["pointer"])
	return send(req)
}

// archive GETs the vault's gzip-encoded archive, asking for it compressed.
func archive() (string, error) {
	req, err := http.NewRequest(http.MethodGet, os.Getenv("VAULT_BASE_URL")+"/v1/archive", nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept-Encoding", "gzip")
	return send(req)
}

func send(req *http.Request) (string, error) {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// chat asks the model, streamed, with secrets in both prompts, and returns
// the answer's text as the stream's chunks carry it.
func chat(s map[string]string, input string) (string, error) {
	user := s["anthropic"] + " " + input + " " + strings.Join([]string{s["openai"], s["aws_id"], s["aws_secret"], s["ghp"],
		"Bearer " + s["bearer"], s["url_credential"], s["base64"], s["stripe"], s["account"], s["pem"]}, " ")
	body, _ := json.Marshal(map[string]any{
		"model":  os.Getenv("TESTBED_MODEL"),
		"stream": true,
		"messages": []map[string]string{
			{"role": "system", "content": "You answer for tenant " + os.Getenv("TENANT_SECRET") + "."},
			{"role": "user", "content": user},
		},
	})
	req, err := http.NewRequest(http.MethodPost, os.Getenv("OPENAI_BASE_URL")+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+os.Getenv("OPENAI_API_KEY"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return "", fmt.Errorf("model: %s: %s", resp.Status, b)
	}
	var text strings.Builder
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		data, ok := strings.CutPrefix(lines.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if json.Unmarshal([]byte(data), &chunk) == nil {
			for _, c := range chunk.Choices {
				text.WriteString(c.Delta.Content)
			}
		}
	}
	return text.String(), lines.Err()
}
