package cli

import (
	"fmt"
	"runtime/debug"
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

// Version is the version line every command prints for --version:
// "svcrecon", the module version and the VCS revision it was built from
// ("+dirty" for uncommitted changes), from the build information Go embeds
// (go build stamps it; go run does not, and shows "(devel)").
func Version() string {
	version, rev, dirty := "(devel)", "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	out := "svcrecon " + version
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		out += " " + rev
		if dirty {
			out += "+dirty"
		}
	}
	return out
}
