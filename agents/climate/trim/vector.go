package trim

import (
	"cmp"
	"slices"
)

// Match is one vector-search hit.
type Match struct {
	Filename   string
	FilePath   string
	ChunkIndex int
	Score      float64
	Distance   float64
	Content    string
}

// Vector keeps the best topK matches (by score, descending, stable) without FilePath and Distance (zeroed).
//
// A topK of zero or less keeps none; a NaN score ranks last. ms is not reordered.
func Vector(ms []Match, topK int) []Match {
	out := slices.Clone(ms)
	slices.SortStableFunc(out, func(a, b Match) int { return cmp.Compare(b.Score, a.Score) })
	out = out[:max(0, min(topK, len(out)))]
	for i := range out {
		out[i].FilePath = ""
		out[i].Distance = 0
	}
	return slices.Clip(out)
}
