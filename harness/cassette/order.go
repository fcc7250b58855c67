package cassette

import (
	"context"
	"time"
)

// OrderWait bounds how long a replayed request waits for the requests
// recorded before it (replayer.inOrder).
var OrderWait = 50 * time.Millisecond

// order makes a replay answer its requests in the order they were
// recorded: a program that sends some at once (tools run in parallel, model
// calls fanned out) sends them in whatever order its threads get to, and
// each answer is observed, put on the scenario's clock and in its trace,
// as it is given. A request waits, OrderWait at most, until every
// interaction recorded before its own has been answered; those still not
// asked for by then are waived, never waited for again (a program that
// no longer makes a call, or makes its calls in a new order, pays OrderWait
// once each). A program sending its requests one after the other, as
// recorded, waits for nothing. The zero value is ready; r.mu guards it.
type order struct {
	answered []bool // by interaction: answered, or waived
	floor    int    // the first interaction neither answered nor waived
	wake     chan struct{}
}

// inOrder waits until the interactions before i are answered or waived
// (r.mu held, and held again on return). It returns false when ctx ended.
func (r *replayer) inOrder(ctx context.Context, i int) bool {
	o := &r.order
	if o.answered == nil {
		o.answered = make([]bool, len(r.items))
	}
	if o.floor >= i {
		return true
	}
	timer := time.NewTimer(OrderWait)
	defer timer.Stop()
	for o.floor < i {
		if o.wake == nil {
			o.wake = make(chan struct{})
		}
		wake := o.wake
		r.mu.Unlock()
		select {
		case <-wake:
			r.mu.Lock()
		case <-timer.C:
			r.mu.Lock()
			for j := o.floor; j < i; j++ {
				o.answered[j] = true // waived
			}
			o.advance()
		case <-ctx.Done():
			r.mu.Lock()
			return false
		}
	}
	return true
}

// answer notes interaction i answered (r.mu held).
func (r *replayer) answer(i int) {
	o := &r.order
	if o.answered == nil {
		o.answered = make([]bool, len(r.items))
	}
	o.answered[i] = true
	o.advance()
}

// advance moves floor past the answered interactions and wakes the
// requests waiting, if it moved.
func (o *order) advance() {
	f := o.floor
	for o.floor < len(o.answered) && o.answered[o.floor] {
		o.floor++
	}
	if o.floor != f && o.wake != nil {
		close(o.wake)
		o.wake = nil
	}
}
