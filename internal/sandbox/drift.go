package sandbox

import "sort"

// Page drift (Faults.PageDrift) hides about 1% of a day's records (or
// collect orders) until a page 1 of a range covering the day was served:
// positions n/4, n/4+step, ... of the day's n, one in every step over the
// middle half of the day.

// revealKey is a day whose drifted records a page 1 revealed.
type revealKey struct {
	orders bool
	dn     int
}

// driftCount is how many records of a day with n records drift.
func driftCount(n int) int {
	if n < 4 {
		return 0
	}
	return max(1, n/100)
}

// driftStep is the distance between two drifted positions of a day with n
// records.
func driftStep(n int) int {
	return max(1, (n/2)/max(1, n/100))
}

// driftHidden reports whether record position p of a day with n records is
// one of the records hidden until the day's first page was served.
func driftHidden(n, p int) bool {
	h, step := driftCount(n), driftStep(n)
	q := p - n/4
	return h > 0 && q >= 0 && q%step == 0 && q/step < h
}

// hiddenThrough counts the hidden positions up to p of a day with n
// records.
func hiddenThrough(n, p int) int {
	if p < n/4 {
		return 0
	}
	return min(driftCount(n), (p-n/4)/driftStep(n)+1)
}

// visiblePositions returns the positions in the day's list of n of the
// records a client sees at [from, to) (from < to): the same with nothing
// hidden, else skipping the hidden ones.
func visiblePositions(n, from, to int, hidden bool) []int {
	out := make([]int, 0, to-from)
	if !hidden {
		for p := from; p < to; p++ {
			out = append(out, p)
		}
		return out
	}
	// The first: the least p with from+1 records visible up to it.
	p := from + sort.Search(driftCount(n)+1, func(k int) bool {
		return from+k+1-hiddenThrough(n, from+k) >= from+1
	})
	for ; len(out) < to-from; p++ {
		if !driftHidden(n, p) {
			out = append(out, p)
		}
	}
	return out
}
