package standin

import (
	"io"
	"net/http"
	"regexp"
	"slices"
	"time"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/wire"
)

// Fault kinds the stand-in can inject.
const (
	FaultRateLimit   = "429"       // 429 with Retry-After
	FaultServer      = "500"       // 500 with an error body
	FaultUnavailable = "503"       // 503 with Retry-After
	FaultTimeout     = "timeout"   // no answer in time: see TimeoutAfter
	FaultMalformed   = "malformed" // a 200 whose JSON is cut off (a streamed call: FaultStreamMalformed)
	FaultTruncated   = "truncated" // an answer cut at the token limit
	// FaultUnknownTool calls a tool that does not exist, and FaultBadArgs
	// calls the right tool with arguments its schema does not allow; in
	// JSON protocols (a router's or planner's plan) the tool's name or
	// arguments are changed in the JSON. A request the fault cannot apply
	// to is answered normally.
	FaultUnknownTool = "unknown_tool"
	FaultBadArgs     = "bad_args"
	// FaultExtraField adds a field no contract declares (ExtraField) to the
	// first object inside the first tool call's arguments, or inside an
	// answer that is JSON, as a model that strays from the format it was
	// given does; a string holding a JSON object (a chart spec) counts as
	// one. An answer with no such object is answered normally.
	FaultExtraField = "extra_field"
)

// TimeoutAfter is how long the stand-in models a call that times out. It
// answers 504 with FaultHeader "timeout" after that modelled time; the
// runner turns such a response into a client timeout error, the same in
// recording and in replay.
const TimeoutAfter = 30 * time.Second

// Faults returns every fault kind the stand-in knows.
func Faults() []string {
	return []string{FaultRateLimit, FaultServer, FaultUnavailable, FaultTimeout, FaultMalformed, FaultTruncated, FaultUnknownTool, FaultBadArgs, FaultExtraField,
		FaultStreamCut, FaultStreamMalformed, FaultStreamNoDone, FaultSlowFirstToken}
}

// FaultMarker in the last user message asks for a fault by name, such as
// "testbed:fault=429": a scenario names the fault it tests in its own input,
// so the stand-in still decides from the request alone.
const FaultMarker = "testbed:fault="

var markerRe = regexp.MustCompile(regexp.QuoteMeta(FaultMarker) + `([a-z0-9_]+)`)

// fault returns the fault a request asks for in FaultHeader or by marker,
// else a drawn one.
func (s *Server) fault(asked string, r Request) string {
	if slices.Contains(Faults(), asked) {
		return asked
	}
	if m := markerRe.FindStringSubmatch(r.LastUser()); m != nil && slices.Contains(Faults(), m[1]) {
		return m[1]
	}
	return s.drawFault()
}

func (s *Server) drawFault() string {
	if s.opts.FaultRate <= 0 {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rng.Float64() >= s.opts.FaultRate {
		return ""
	}
	return s.opts.Faults[s.rng.Intn(len(s.opts.Faults))]
}

// writeFault answers with the named fault in dialect d.
func (s *Server) writeFault(w http.ResponseWriter, d wire.Encoder, fault string, r Request, in int) {
	lat := s.opts.Latency.Of(in, 0)
	w.Header().Set(cassette.FaultHeader, fault)
	switch fault {
	case FaultRateLimit:
		w.Header().Set("Retry-After", "2")
		writeFailure(w, d, http.StatusTooManyRequests, "rate limit reached (injected fault)", lat)
	case FaultServer:
		writeFailure(w, d, http.StatusInternalServerError, "internal error (injected fault)", lat)
	case FaultUnavailable:
		w.Header().Set("Retry-After", "1")
		writeFailure(w, d, http.StatusServiceUnavailable, "the model is overloaded (injected fault)", lat)
	case FaultTimeout:
		writeFailure(w, d, http.StatusGatewayTimeout, "no answer within "+TimeoutAfter.String()+" (injected fault)", TimeoutAfter)
	case FaultMalformed:
		if d.Events != nil {
			// A streamed call: its stream with an event's JSON cut in half,
			// as FaultStreamMalformed sends it (and says so).
			msg := llm.Message{Role: llm.RoleAssistant, Content: "An answer whose stream breaks in the middle."}
			s.stream(w, d, r.Model, msg, wire.End{}, in, s.counter.Output(msg), nil, FaultStreamMalformed)
			return
		}
		w.Header().Set(cassette.LatencyHeader, lat.String())
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, d.Malformed)
	case FaultTruncated:
		msg := llm.Message{Role: llm.RoleAssistant, Content: `{"decision": "mc`}
		if d.Events != nil {
			s.stream(w, d, r.Model, msg, wire.End{Truncated: true}, in, 4, nil, "")
			return
		}
		resp, err := d.Completion(r.Model, msg, wire.End{Truncated: true}, in, 4)
		if err != nil {
			writeFailure(w, d, http.StatusInternalServerError, err.Error(), lat)
			return
		}
		w.Header().Set(cassette.LatencyHeader, s.opts.Latency.Of(in, 4).String())
		writeJSON(w, http.StatusOK, resp)
	}
}
