package external

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"
)

// HTTP describes an agent that is a web service: each user turn is POSTed
// to URL and the response is the reply.
type HTTP struct {
	// URL is where turns are POSTed; {{port}} is the service's PORT.
	URL string
	// Body is the request's template: a string (sent as text), or a map or
	// slice of plain values (sent as JSON); nil sends {"input":
	// "{{input}}", "session": "{{session}}", "turn": "{{turn}}"} (and
	// "attachments" on a first turn that has them). A string that is one
	// placeholder alone takes its type in JSON; {{attachments}} alone in a
	// list stands for its items.
	Body any
	// Headers are the request's headers; their values may hold
	// placeholders.
	Headers map[string]string
	// Reply is a jq path to the reply's text in a JSON response (default:
	// .text of an object, or the string the response is).
	Reply string
	// Attachment is the template of one attachment, filled in with
	// {{name}}, {{mime}}, {{description}} and {{data}} (base64) for each
	// item of {{attachments}}; nil gives the JSON-lines shape.
	Attachment any
}

// web is a conversation with a web service.
type web struct {
	spec    *HTTP
	reply   *replyPath
	vars    vars
	in      []string
	client  *http.Client
	timeout time.Duration
}

// ask POSTs turn i and reads the response to its end.
func (c *web) ask(ctx context.Context, i int) (turnOut, error) {
	v := c.vars.at(i, c.in[i])
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	body, ctype, err := c.body(v)
	if err != nil {
		return turnOut{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.text(c.spec.URL), bytes.NewReader(body))
	if err != nil {
		return turnOut{}, err
	}
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Accept", "application/json, text/event-stream, text/plain")
	for k, val := range c.spec.Headers {
		req.Header.Set(k, v.text(val))
	}
	out, err := c.read(req)
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		return out, fmt.Errorf("the agent did not answer within %s", c.timeout)
	}
	return out, err
}

// body is the request's body and its content type.
func (c *web) body(v vars) ([]byte, string, error) {
	t := c.spec.Body
	if t == nil {
		body := map[string]any{"input": "{{input}}", "session": "{{session}}", "turn": "{{turn}}"}
		if len(v.files) > 0 {
			body["attachments"] = "{{attachments}}"
		}
		t = body
	}
	if s, ok := t.(string); ok {
		return []byte(v.text(s)), "text/plain; charset=utf-8", nil
	}
	b, err := json.Marshal(v.value(t))
	return b, "application/json", err
}

// read sends req and reads its response as a reply.
func (c *web) read(req *http.Request) (turnOut, error) {
	var out turnOut
	resp, err := c.client.Do(req)
	if err != nil {
		return out, fmt.Errorf("POST %s: %w", req.URL, err)
	}
	defer resp.Body.Close()
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "text/event-stream" && resp.StatusCode/100 == 2 {
		text, err := readEvents(resp.Body, c.reply)
		if err != nil {
			return out, fmt.Errorf("reading the agent's event stream: %w", err)
		}
		out.Text = &text
		return out, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return out, fmt.Errorf("reading the agent's answer: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return out, fmt.Errorf("the agent answered %s to POST %s: %s", resp.Status, req.URL, clip(strings.TrimSpace(string(body))))
	}
	isJSON := mt == "application/json" || strings.HasSuffix(mt, "+json")
	if !isJSON && c.reply == nil {
		text := string(body)
		out.Text = &text
		return out, nil
	}
	out, err = fromJSON(body, c.reply)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF) {
		why := "its Content-Type says JSON"
		if !isJSON {
			why = "reply: " + c.reply.expr + " needs JSON"
		}
		return out, fmt.Errorf("the agent answered %q that is not JSON (%s): %s", mt, why, clip(string(body)))
	}
	return out, err
}

// readEvents reads a server-sent event stream to its end: the text is the
// data of its events, joined; an event whose data is a JSON object gives
// its text, delta or content field (or delta.content), or with path the
// strings path finds in it, and "[DONE]" nothing.
func readEvents(r io.Reader, path *replyPath) (string, error) {
	var text strings.Builder
	var data []string
	var err error
	found, events, last := false, 0, ""
	flush := func() {
		if len(data) > 0 && err == nil {
			last = strings.Join(data, "\n")
			s, ok, e := eventText(last, path)
			text.WriteString(s)
			found, err, events = found || ok, e, events+1
		}
		data = nil
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			flush()
			continue
		}
		if d, ok := strings.CutPrefix(line, "data:"); ok {
			data = append(data, strings.TrimPrefix(d, " "))
		}
	}
	flush()
	if err = cmp.Or(err, sc.Err()); err == nil && path != nil && !found {
		// As a body given whole whose path finds nothing: the stream did
		// not say what the path looks for (a task that failed, say).
		err = fmt.Errorf("reply path %s found no text in the %d events of the stream; the last: %s", path.expr, events, clip(last))
	}
	return text.String(), err
}

// eventText is what one event's data adds to the text: by path, the
// strings it finds in the data's JSON, joined, and whether it found any.
func eventText(data string, path *replyPath) (string, bool, error) {
	if data == "[DONE]" {
		return "", false, nil
	}
	var obj map[string]any
	if json.Unmarshal([]byte(data), &obj) != nil {
		return data, true, nil
	}
	if path != nil {
		var text strings.Builder
		found := false
		iter := path.code.Run(obj)
		for {
			v, ok := iter.Next()
			if !ok {
				return text.String(), found, nil
			}
			if err, isErr := v.(error); isErr {
				return "", false, fmt.Errorf("reply path %s on the event %s: %w", path.expr, clip(data), err)
			}
			if s, isString := v.(string); isString {
				text.WriteString(s)
				found = true
			}
		}
	}
	for _, k := range []string{"text", "delta", "content"} {
		if s, ok := obj[k].(string); ok {
			return s, true, nil
		}
	}
	if d, ok := obj["delta"].(map[string]any); ok {
		if s, ok := d["content"].(string); ok {
			return s, true, nil
		}
	}
	return "", false, nil
}

// end lets the conversation's connections go; the service is stopped with
// its program.
func (c *web) end() error {
	c.client.CloseIdleConnections()
	return nil
}
