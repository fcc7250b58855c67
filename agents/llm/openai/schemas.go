package openai

import (
	"encoding/json"
	"sync"
)

// schemas keeps each tool's parameters as decoded, by their JSON text: an
// agent sends the same tools on every call of a conversation, and the SDK
// only reads the decoded schema to encode it. Copies of a client (a
// streaming one) share it; a nil *schemas keeps nothing.
type schemas struct {
	mu sync.Mutex
	m  map[string]map[string]any
}

// decode returns params decoded into a JSON object, decoding each distinct
// text once. The map is shared: callers must not change it.
func (s *schemas) decode(params json.RawMessage) (map[string]any, error) {
	if s != nil {
		s.mu.Lock()
		v, ok := s.m[string(params)]
		s.mu.Unlock()
		if ok {
			return v, nil
		}
	}
	var v map[string]any
	if err := json.Unmarshal(params, &v); err != nil {
		return nil, err
	}
	if s != nil {
		s.mu.Lock()
		if s.m == nil {
			s.m = map[string]map[string]any{}
		}
		s.m[string(params)] = v
		s.mu.Unlock()
	}
	return v, nil
}
