package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/provider"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/external"
	"github.com/agentreplay/testbed/harness/files"
	"github.com/agentreplay/testbed/harness/proxy"
	"github.com/agentreplay/testbed/harness/runner"
)

const agentDoc = `Usage: testbed agent NAME [--root .]

Runs a built-in agent as an agent outside testbed would run: it reads the
scenario's turns as JSON lines on stdin, answers each with a JSON line on
stdout, and reaches its model and upstreams by the base URLs in its
environment (OPENAI_BASE_URL, GEMINI_BASE_URL or ANTHROPIC_BASE_URL, <NAME>_BASE_URL per
upstream, TESTBED_PROVIDER, TESTBED_MODEL and TESTBED_API, TESTBED_NOW,
TESTBED_CLOCK_URL, TESTBED_VARIANT, TESTBED_STREAM), as the contract in package
harness/external says. It reports the notes and tool calls it traces with
each reply; a tool whose raw payload is an upstream answer it read whole is
reported by the name the proxy gave that answer (raw_from), not its bytes. Being built in, it knows its logical URLs: it keeps them, and
its transport takes each request to the session (as the runner's
through-proxy mode does), so that its errors name them as in-process. It reads every turn before it answers: a suite runs it with
agent: {name: …, command: [testbed, agent, NAME], all_turns: true}; a spec
checks that the results equal the in-process run's. It serves run after run
until stdin ends, each with a new agent, so keep_alive: variant works too,
and keep_alive: agent: a run's first line that carries "env" sets its
variables (the variant's model and config) over those it started with.

Examples:
  testbed agent odbchat`

// cmdAgent is 'testbed agent'.
func cmdAgent(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var root string
	fs := newFlags("agent", agentDoc, stderr)
	fs.StringVar(&root, "root", ".", "project folder holding scenarios/ and fixtures/")
	names, err := parseWithFiles(fs, args)
	if err != nil {
		return err
	}
	if len(names) != 1 {
		return withCode(exitUsage, errors.New("give one built-in agent's name, like: testbed agent odbchat"))
	}
	entry, ok := all.Registry()[names[0]]
	if !ok {
		return withCode(exitUsage, fmt.Errorf("no built-in agent %q (agents: %s)", names[0], strings.Join(all.Names(), ", ")))
	}
	// A program serves its variant's runs with a heap of a few megabytes,
	// which the collector would scan again after every few megabytes
	// allocated: unless GOGC says otherwise, it lets the heap grow to five
	// times what is live (11% less CPU through the proxy for the family
	// agent, docs/performance.md).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	// A program kept alive for its variant (keep_alive: variant) gets its
	// runs one after the other on the same stdin: each is served by a new
	// agent and tracer, sharing only what the runner's scenarios share: one
	// snapshot of the data and prompt folders, and what LoadOnce builds from
	// their contents (the Vega-Lite schema, the knowledge bases).
	cache := &agents.Cache{}
	data := runner.Snapshot(filepath.Join(root, "fixtures", entry.Info.Name))
	prompts := runner.Snapshot(filepath.Join(root, "scenarios"))
	turns := newTurnReader(stdin)
	for first := true; ; first = false {
		in, env, err := turns.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return withCode(exitUsage, err)
		}
		// A program that serves any variant (keep_alive: agent) is told
		// each run's variables in its first line, over those it started with.
		getenv := func(k string) string {
			if v, ok := env[k]; ok {
				return v
			}
			return os.Getenv(k)
		}
		// TESTBED_NOW is this run's clock at its start when the run's
		// line says it, or the program started for this run.
		started := first || env["TESTBED_NOW"] != ""
		if err := serveRun(ctx, entry, root, shared{cache, data, prompts}, in, getenv, started, stdout); err != nil {
			return err
		}
	}
}

// shared is what the runs a program serves share.
type shared struct {
	cache         *agents.Cache
	data, prompts fs.FS
}

// serveRun answers one scenario run's turns with a new agent configured
// from the environment getenv reads (whose TESTBED_NOW is the run's clock
// at its start when started is true).
func serveRun(ctx context.Context, entry agents.Entry, root string, sh shared, in agents.Input, getenv func(string) string, started bool, stdout io.Writer) error {
	cfg, tr, err := agentConfig(ctx, entry.Info, root, getenv, started)
	if err != nil {
		return withCode(exitUsage, err)
	}
	cfg.Cache, cfg.Data, cfg.Prompts = sh.cache, sh.data, sh.prompts
	a, err := entry.New(cfg)
	if err != nil {
		return withCode(exitUsage, err)
	}
	ans, runErr := a.Run(ctx, in)
	enc := json.NewEncoder(stdout)
	for i := range in.Turns {
		out := map[string]any{"text": "", "notes": tr.notes[i], "tools": tr.tools[i]}
		if i < len(ans.Replies) {
			out["text"], out["data"] = ans.Replies[i].Text, ans.Replies[i].Data
		}
		if err := enc.Encode(out); err != nil {
			return err
		}
	}
	return runErr
}

// agentConfig is a built-in agent's configuration from the environment an
// outside agent gets (getenv reads it). With started, TESTBED_NOW is the
// run's clock until its first call, which need not be read from the
// session.
func agentConfig(ctx context.Context, info agents.Info, root string, getenv func(string) string, started bool) (agents.Config, *turnTracer, error) {
	ep := info.Model
	if p, m := getenv("TESTBED_PROVIDER"), getenv("TESTBED_MODEL"); p != "" && m != "" {
		ep.Provider, ep.Model, ep.API = p, m, getenv("TESTBED_API") // the variant's model
	}
	ep.Stream = getenv("TESTBED_STREAM") == "true"
	if ep.Provider == llm.ProviderAzure {
		ep.APIVersion = getenv("OPENAI_API_VERSION")
	}
	ep.BaseURL = getenv(proxy.BaseURLEnv(ep.Provider))
	if ep.BaseURL == "" {
		return agents.Config{}, nil, fmt.Errorf("no model base URL in the environment (%s, for provider %s)", proxy.BaseURLEnv(ep.Provider), ep.Provider)
	}
	// The agent keeps its logical URLs, and its transport takes each
	// request to the session's path for it (proxy.Client), so that its
	// errors and prompts name them as they do in-process.
	session := proxy.Session{Upstreams: info.Upstreams}
	base := strings.TrimSuffix(ep.BaseURL, "/v1")
	logical := getenv("TESTBED_MODEL_URL")
	if logical == "" {
		logical = info.Model.BaseURL
	}
	session.SetModel(llm.Endpoint{Provider: ep.Provider, BaseURL: logical})
	if e := info.Embeddings; e != nil && e.BaseURL != logical {
		session.Embeddings = e.BaseURL
	}
	ep.BaseURL = logical
	tr := &turnTracer{notes: map[int][]external.Note{}, tools: map[int][]map[string]any{}, http: http.DefaultClient, turnURL: getenv("TESTBED_TURN_URL")}
	now, err := time.Parse(time.RFC3339Nano, getenv("TESTBED_NOW"))
	if err != nil {
		now, started = time.Now(), false
	}
	clock := func() time.Time { return now }
	var transport http.RoundTripper = answerWatch{seen: &tr.answers, next: staleWatch{tr: tr, next: proxy.NewClient(base, session)}}
	if u := getenv("TESTBED_CLOCK_URL"); u != "" {
		// Every call the agent makes goes through hc, so the clock
		// knows of each one that moves it.
		rc := &runClock{hc: http.DefaultClient, url: u, def: now, known: started, at: now}
		clock, transport = rc.Now, clockWatch{clock: rc, next: transport}
	}
	hc := &http.Client{Transport: roleHeader{transport}}
	sdk, err := provider.New(ctx, ep, cassette.PlaceholderKey, hc)
	if err != nil {
		return agents.Config{}, nil, err
	}
	model := roleClient{sdk}
	var embedder llm.Embedder
	if e := info.Embeddings; e != nil {
		if embedder, err = provider.NewEmbedder(*e, cassette.PlaceholderKey, hc); err != nil {
			return agents.Config{}, nil, err
		}
	}
	upstreams := info.Upstreams
	var variant map[string]any
	if v := getenv("TESTBED_VARIANT"); v != "" && v != "null" {
		if err := json.Unmarshal([]byte(v), &variant); err != nil {
			return agents.Config{}, nil, fmt.Errorf("TESTBED_VARIANT: %w", err)
		}
	}
	secrets := map[string]string{}
	for _, k := range info.Keys {
		secrets[k] = cassette.PlaceholderKey
	}
	return agents.Config{
		Model: model, Endpoint: ep, Embedder: embedder, HTTP: hc, Clock: clock,
		Tracer: tr, Upstreams: upstreams, Variant: variant, Secrets: secrets,
		Data: files.DirFS(filepath.Join(root, "fixtures", info.Name)), Prompts: files.DirFS(filepath.Join(root, "scenarios")),
	}, tr, nil
}

// turnReader reads scenario runs' turns from a program's stdin.
type turnReader struct{ sc *bufio.Scanner }

func newTurnReader(r io.Reader) *turnReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	return &turnReader{sc: sc}
}

// next reads the next run's turns: lines until the count the first one
// gives, and the variables the first one carries (keep_alive: agent). It
// returns io.EOF when stdin ends before a run starts.
func (t *turnReader) next() (in agents.Input, env map[string]string, err error) {
	for t.sc.Scan() {
		var line struct {
			Turns       int    `json:"turns"`
			Input       string `json:"input"`
			Attachments []struct {
				Name, MIME, Description, Data string
			} `json:"attachments"`
			Env map[string]string `json:"env"`
		}
		if err := json.Unmarshal(t.sc.Bytes(), &line); err != nil {
			return in, env, fmt.Errorf("a turn that is not JSON: %w", err)
		}
		if len(in.Turns) == 0 {
			env = line.Env
		}
		in.Turns = append(in.Turns, line.Input)
		for _, a := range line.Attachments {
			data, err := base64.StdEncoding.DecodeString(a.Data)
			if err != nil {
				return in, env, fmt.Errorf("attachment %s: %w", a.Name, err)
			}
			in.Attachments = append(in.Attachments, agents.Attachment{Name: a.Name, MIME: a.MIME, Description: a.Description, Data: data})
		}
		if len(in.Turns) >= line.Turns {
			return in, env, nil
		}
	}
	if err := t.sc.Err(); err != nil {
		return in, env, err
	}
	if len(in.Turns) == 0 {
		return in, env, io.EOF
	}
	return in, env, errors.New("stdin ended before every turn of the scenario arrived")
}

// turnTracer keeps what the agent traces, by turn, to report with replies.
type turnTracer struct {
	http    *http.Client
	turnURL string // where to say which turn the agent starts, if anywhere
	turn    int
	notes   map[int][]external.Note
	tools   map[int][]map[string]any
	// stale are the proxy's diagnoses of the calls the cassette lacked
	// (see staleWatch).
	mu    sync.Mutex
	stale []string
	// answers are the upstream answers the proxy named, as read.
	answers answers
}

// staleWatch keeps the diagnosis of every call the proxy could not answer
// from the cassette (proxy.MissHeader), for a server that must say that its answer
// is stale rather than what the agent makes of a failed call.
type staleWatch struct {
	tr   *turnTracer
	next http.RoundTripper
}

func (w staleWatch) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := w.next.RoundTrip(req)
	if err != nil || resp.Header.Get(proxy.MissHeader) == "" {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	// Every provider's error shape the proxy answers in has error.message.
	var problem struct {
		Error struct{ Message string }
	}
	if err == nil && json.Unmarshal(body, &problem) == nil {
		if msg, ok := strings.CutPrefix(problem.Error.Message, "testbed proxy: "); ok {
			w.tr.mu.Lock()
			w.tr.stale = append(w.tr.stale, msg)
			w.tr.mu.Unlock()
		}
	}
	return resp, nil
}

func (t *turnTracer) Tool(name string, args json.RawMessage, raw []byte, context string, err error) {
	tool := map[string]any{"name": name, "args": args, "context": context}
	if from, ok := t.answers.nameOf(raw); ok {
		tool["raw_from"] = from // testbed has these bytes: the line need not carry them
	} else {
		tool["raw"] = string(raw)
	}
	if err != nil {
		tool["error"] = err.Error()
	}
	t.tools[t.turn] = append(t.tools[t.turn], tool)
}

func (t *turnTracer) Note(key string, value any) {
	if key == agents.NoteTurn {
		if n, ok := value.(int); ok {
			t.turn = n
			if t.turnURL != "" {
				if resp, err := t.http.Post(fmt.Sprintf("%s?n=%d", t.turnURL, n), "text/plain", nil); err == nil {
					resp.Body.Close()
				}
			}
		}
		return
	}
	t.notes[t.turn] = append(t.notes[t.turn], external.Note{Key: key, Value: value})
}

// roleKey carries a model call's role from roleClient to roleHeader.
type roleKey struct{}

// roleClient passes each call's role down to the transport.
type roleClient struct{ next llm.Client }

func (c roleClient) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	return c.next.Chat(context.WithValue(ctx, roleKey{}, req.Role), req)
}

// roleHeader sends the role of the model call a request belongs to in
// external.RoleHeader, which the wire does not otherwise carry.
type roleHeader struct{ next http.RoundTripper }

func (t roleHeader) RoundTrip(req *http.Request) (*http.Response, error) {
	if role, ok := req.Context().Value(roleKey{}).(string); ok && role != "" {
		req = req.Clone(req.Context())
		req.Header.Set(external.RoleHeader, role)
	}
	return t.next.RoundTrip(req)
}
