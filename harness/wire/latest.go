package wire

import "slices"

// latest keeps values by id, the latest max of them: past max, the oldest
// is forgotten, so a long recording's memory stays bounded. The zero
// value is empty; it is not safe for concurrent use (Threads locks it).
type latest[V any] struct {
	m     map[string]V
	order []string // the ids of m, oldest first
}

// put keeps v under id, forgetting the oldest value when more than max
// are kept.
func (l *latest[V]) put(id string, v V, max int) {
	if l.m == nil {
		l.m = map[string]V{}
	}
	if _, ok := l.m[id]; !ok {
		l.order = append(l.order, id)
	}
	l.m[id] = v
	if len(l.order) > max {
		delete(l.m, l.order[0])
		l.order = l.order[1:]
	}
}

// get is the value kept under id, and whether one is.
func (l *latest[V]) get(id string) (V, bool) {
	v, ok := l.m[id]
	return v, ok
}

// drop forgets the value kept under id, if one is.
func (l *latest[V]) drop(id string) {
	if _, ok := l.m[id]; !ok {
		return
	}
	delete(l.m, id)
	l.order = slices.DeleteFunc(l.order, func(o string) bool { return o == id })
}
