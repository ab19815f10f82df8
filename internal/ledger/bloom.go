package ledger

import "hash/maphash"

// bloom is a scalable Bloom filter of strings: a set that may answer
// "maybe" for a string never added (rarely: each answer is then checked
// exactly), never "no" for one added. It takes 2 bytes per string (4 at
// most, while its last filter fills), so the check can tell which
// externalRefs it met before without keeping them: a growing series of
// filters, each twice the size of the last, each holding as many strings
// as it was made for. A string's bits lie in one 128-bit block of each
// filter (a blocked filter): one cache line a filter.
type bloom struct {
	seed   maphash.Seed
	slices []bloomSlice
}

type bloomSlice struct {
	words []uint64
	n     int // strings held
	cap   int // strings it takes before the next slice starts
}

// bloomFirst is how many strings the first slice takes; bloomK how many
// bits a string sets (a slice has 16 bits a string, 8 of them set in the
// string's block of two words: a few false "maybe" in 1,000 a slice).
const (
	bloomFirst = 1 << 14
	bloomK     = 8
)

func newBloom() *bloom { return &bloom{seed: maphash.MakeSeed()} }

// probe returns the block of s (the index of its first word, of n words)
// and its bits in the block's two words.
func probe(h uint64, n int) (int, [2]uint64) {
	w := 2 * int((h>>32)%uint64(n/2))
	h *= 0x9e3779b97f4a7c15 // the bits' positions: independent of the block's
	var bits [2]uint64
	for i := 0; i < bloomK; i++ {
		bits[h>>6&1] |= 1 << (h & 63)
		h = h>>7 | h<<57
	}
	return w, bits
}

// has reports whether s may have been added.
func (b *bloom) has(s string) bool {
	if len(b.slices) == 0 {
		return false
	}
	h := maphash.String(b.seed, s)
	for i := range b.slices {
		sl := &b.slices[i]
		w, bits := probe(h*uint64(2*i+1), len(sl.words))
		if sl.words[w]&bits[0] == bits[0] && sl.words[w+1]&bits[1] == bits[1] {
			return true
		}
	}
	return false
}

// add adds s.
func (b *bloom) add(s string) {
	if len(b.slices) == 0 || b.slices[len(b.slices)-1].n >= b.slices[len(b.slices)-1].cap {
		c := bloomFirst
		if len(b.slices) > 0 {
			c = 2 * b.slices[len(b.slices)-1].cap
		}
		b.slices = append(b.slices, bloomSlice{words: make([]uint64, c/4), cap: c})
	}
	i := len(b.slices) - 1
	sl := &b.slices[i]
	w, bits := probe(maphash.String(b.seed, s)*uint64(2*i+1), len(sl.words))
	sl.words[w] |= bits[0]
	sl.words[w+1] |= bits[1]
	sl.n++
}
