package standin

import "time"

// Latency is the model of how long a call takes, in two parts: the time to
// first token (a fixed cost plus a cost per input token, the prompt's
// processing, so longer prompts are slower to start) and a time per output
// token after it.
type Latency struct {
	Fixed          time.Duration // time to first token of an empty prompt
	PerInputToken  time.Duration // prompt processing, per input token
	PerOutputToken time.Duration // generation, per output token
}

// FirstToken returns the modelled time to first token of a call with in
// input tokens.
func (l Latency) FirstToken(in int) time.Duration {
	return l.Fixed + time.Duration(in)*l.PerInputToken
}

// Of returns the modelled duration of a call: its time to first token, then
// out output tokens.
func (l Latency) Of(in, out int) time.Duration {
	return l.FirstToken(in) + time.Duration(out)*l.PerOutputToken
}

// DefaultLatency models a small local model (a 4B model on a workstation GPU):
// 120 ms fixed to first token, prompt processing at 2,500 tokens/s (400 µs
// a token, also before the first token) and generation at 40 tokens/s (25 ms
// a token).
func DefaultLatency() Latency {
	return Latency{Fixed: 120 * time.Millisecond, PerInputToken: 400 * time.Microsecond, PerOutputToken: 25 * time.Millisecond}
}
