package tokens

// BuildEncoding builds an encoding afresh, as New does once per process, for
// the benchmark of that cost.
func BuildEncoding(name string) error {
	_, err := newBPE(name)
	return err
}

// Ranks builds an encoding afresh and returns its ranks, for the spec that
// compares them with tiktoken-go's loader.
func Ranks(name string) (map[string]int, error) {
	b, err := newBPE(name)
	if err != nil {
		return nil, err
	}
	return b.ranks, nil
}

// NewChunked is New with lines of minChunk bytes or more counted on their
// own (New's is 4096), so that specs and the fuzz target can cut short
// texts at every point where Count may cut.
func NewChunked(encoding string, minChunk int) (*Counter, error) {
	c, err := New(encoding)
	if err != nil {
		return nil, err
	}
	c.minChunk = minChunk
	return c, nil
}

// MaxPiece is the length over which a piece is merged in parts.
const MaxPiece = maxPiece
