package scenario

import "strings"

// suggest returns the allowed key that key is most likely a typo of, or "".
func suggest(key string, allowed []string) string {
	norm := func(s string) string {
		return strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(s))
	}
	best, bestDist := "", 3
	for _, a := range allowed {
		if norm(a) == norm(key) {
			return a
		}
		if dist := distance(key, a); dist < bestDist && dist < len(key) {
			best, bestDist = a, dist
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
