package cli

import (
	"fmt"
	"strings"
)

// Suggest returns the candidate nearest to name (case ignored), when it is
// near enough to be what was meant: at most two edits away, or a prefix of
// at least three letters. "" when none is.
func Suggest(name string, candidates []string) string {
	best, bestDist := "", 3
	lname := strings.ToLower(name)
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if lc == lname {
			return c
		}
		d := editDistance(lname, lc)
		if len(lname) >= 3 && strings.HasPrefix(lc, lname) {
			d = min(d, 1)
		}
		if d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// didYouMean renders Suggest's answer as the end of an error message.
func didYouMean(name string, candidates []string, prefix string) string {
	if s := Suggest(name, candidates); s != "" {
		return fmt.Sprintf("; did you mean %s%s?", prefix, s)
	}
	return ""
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
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
