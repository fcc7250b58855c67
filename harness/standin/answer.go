package standin

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/standin/generic"
	"github.com/agentreplay/testbed/harness/standin/policy"
	"github.com/agentreplay/testbed/harness/wire"
)

// serveCount answers a token count of dialect d: the input tokens of the
// request it carries, counted as a call's input is, with the request id
// header the dialect's answers carry.
func (s *Server) serveCount(w http.ResponseWriter, r *http.Request, d wire.Dialect) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, d, http.StatusBadRequest, err.Error(), 0)
		return
	}
	req, manage, err := s.threads.ReadCount(d, body)
	if err != nil {
		status, header, refused := wire.Refusal(d, body, 0, err)
		maps.Copy(w.Header(), header)
		writeErrorBody(w, status, 0, refused)
		return
	}
	maps.Copy(w.Header(), wire.RequestHeader(d, body, 0))
	count := func(msgs []llm.Message) int {
		return s.counter.Request(llm.Request{Messages: msgs, Tools: req.Tools}).Total()
	}
	n := count(req.Messages)
	if manage != nil {
		writeJSON(w, http.StatusOK, wire.ManagedCountBody(count(manage(req.Messages, count)), n))
		return
	}
	writeJSON(w, http.StatusOK, wire.CountBody(d, n))
}

// serve answers a model call in dialect d: a request the real API
// refuses with its refusal, else the policies' answer.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, d wire.Dialect) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, d, http.StatusBadRequest, err.Error(), 0)
		return
	}
	sample := sampleOf(r)
	call, err := s.threads.Read(d, r.URL.Path, body, sample)
	if err != nil {
		status, header, refused := wire.Refusal(d, body, sample, err)
		maps.Copy(w.Header(), header)
		writeErrorBody(w, status, 0, refused)
		return
	}
	for k, vs := range call.Encoder.Header {
		w.Header()[k] = vs
	}
	call.Encoder.Array = d == wire.Gemini && call.Encoder.Events != nil && r.URL.Query().Get("alt") != "sse"
	s.respond(w, call.Encoder, call.Request, sample, r.Header.Get(cassette.FaultHeader))
}

// respond answers req in dialect d: the fault it asks for (in FaultHeader
// or by marker) or draws, else the answer of the first policy that accepts
// it, sampled as sample (see SampleHeader).
func (s *Server) respond(w http.ResponseWriter, d wire.Encoder, req Request, sample int, asked string) {
	count := func(msgs []llm.Message) int {
		return s.counter.Request(llm.Request{Messages: msgs, Tools: req.Tools}).Total()
	}
	if d.Context != nil {
		// The model reads the conversation as the request asks it
		// managed: compacted, its old tool results cleared.
		req.Messages = d.Context(req.Messages, count)
	}
	in := count(req.Messages)
	fault := s.fault(asked, req)
	if fault != "" && !answers(fault) {
		s.writeFault(w, d, fault, req, in)
		return
	}
	// The policy decides among the tools the request lets it call (none
	// under tool_choice none), and its answer keeps the calls the request
	// allows (the first, when it allows one at a time); one that must call
	// a tool and did not calls one the generic policy's way.
	offered := req.Offered()
	p := s.policy(offered)
	if p == nil {
		w.Header().Set(cassette.PolicyHeader, cassette.NoPolicy)
		writeFailure(w, d, http.StatusBadRequest, noPolicy(offered), s.opts.Latency.Of(in, 0))
		return
	}
	smp := newSampler(sample, offered)
	msg, rule, err := policy.AnswerOf(p, smp.view(offered))
	if err != nil && smp != nil {
		// A misread the policy cannot follow: a model still answers.
		msg, rule, err = policy.AnswerOf(p, offered)
	}
	if err != nil {
		writeFailure(w, d, http.StatusInternalServerError, p.Name()+": "+err.Error(), s.opts.Latency.Of(in, 0))
		return
	}
	by := p.Name()
	switch limited := req.Choice.Limit(msg); {
	case req.Choice.Required && len(limited.ToolCalls) == 0:
		if forced, ok := generic.Required(offered); ok {
			msg, rule, by = forced, generic.RequiredRule, generic.Name
		}
	case len(msg.ToolCalls) > 0 && len(limited.ToolCalls) == 0 && limited.Content == "":
		// The policy only called tools the request does not let it call:
		// the generic policy answers what the request offers instead.
		if alt, name, err := policy.AnswerOf(generic.New(), offered); err == nil {
			msg, rule, by = alt, name, generic.Name
		}
	}
	msg = req.Choice.Limit(msg)
	msg = smp.reword(msg)
	if by == generic.Name {
		// Recordings say that their answers came from the plumbing stand-in.
		w.Header().Set(cassette.PolicyHeader, generic.Name)
	}
	if rule != "" {
		w.Header().Set(cassette.RuleHeader, rule)
	}
	if fault != "" {
		var applied bool
		if msg, applied = misuse(msg, fault); applied {
			w.Header().Set(cassette.FaultHeader, fault)
		}
	}
	// A model given stop sequences stops at the first it writes, and one
	// given a token limit where it reaches it.
	var end wire.End
	msg, end.Stop = req.StopAt(msg)
	out := s.counter.Output(msg)
	msg, out, end.Truncated, err = req.LimitAt(msg, out)
	if err != nil {
		writeFailure(w, d, http.StatusInternalServerError, err.Error(), s.opts.Latency.Of(in, 0))
		return
	}
	if d.Events != nil {
		s.stream(w, d, req.Model, msg, end, in, out, smp, fault)
		return
	}
	resp, err := d.Completion(req.Model, msg, end, in, out)
	if err != nil {
		writeFailure(w, d, http.StatusInternalServerError, p.Name()+": "+err.Error(), s.opts.Latency.Of(in, 0))
		return
	}
	lat := smp.jitter(s.opts.Latency.Of(in, out))
	if fault == FaultSlowFirstToken {
		w.Header().Set(cassette.FaultHeader, fault)
		lat += SlowFirstToken
	}
	w.Header().Set(cassette.LatencyHeader, lat.String())
	writeJSON(w, http.StatusOK, resp)
}

// stream answers msg as dialect d's event stream, shaped by fault.
func (s *Server) stream(w http.ResponseWriter, d wire.Encoder, model string, msg llm.Message, end wire.End, in, out int, smp *sampler, fault string) {
	events, err := d.Events(model, msg, end, in, out)
	if err != nil {
		writeFailure(w, d, http.StatusInternalServerError, err.Error(), s.opts.Latency.Of(in, 0))
		return
	}
	s.writeStream(w, events, d, in, out, smp, fault)
}

func (s *Server) policy(r Request) Policy {
	for _, p := range s.opts.Policies {
		if p.Accepts(r) {
			return p
		}
	}
	return nil
}

// noPolicy is the message of the answer to a request no policy accepts:
// what the request was (the start of its system prompt, its tools), so that
// the prompt edit that lost the policy is found.
func noPolicy(req Request) string {
	var tools []string
	for _, t := range req.Tools {
		tools = append(tools, t.Name)
	}
	system := []rune(req.System())
	if len(system) > 80 {
		system = append(system[:80], '…')
	}
	return fmt.Sprintf("%s this prompt (system prompt %q, tools: [%s]); add one in harness/standin, or undo the prompt edit that lost it",
		cassette.NoPolicyCause, string(system), strings.Join(tools, ", "))
}
