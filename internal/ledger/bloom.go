package ledger

import "hash/maphash"

// bloom is a scalable Bloom filter of strings: a set that may answer
// "maybe" for a string never added (rarely: each answer is then checked
// exactly), never "no" for one added. It takes about 4 bytes per string,
// so the check can tell which externalRefs it met before without keeping
// them: a growing series of filters, each twice the size of the last, each
// holding as many strings as it was made for. A string's bits lie in one
// 64-bit word of each filter (a blocked filter): one memory access a
// filter.
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
// bits a string sets (a slice has 32 bits a string, 8 of them set in the
// string's word: about 1 false "maybe" in 10,000 a slice).
const (
	bloomFirst = 1 << 14
	bloomK     = 8
)

func newBloom() *bloom { return &bloom{seed: maphash.MakeSeed()} }

// probe returns the word index (of n words) and the bits of s.
func probe(h uint64, n int) (int, uint64) {
	w := int((h >> 32) % uint64(n))
	h *= 0x9e3779b97f4a7c15 // the bits' positions: independent of the word's
	var bits uint64
	for i := 0; i < bloomK; i++ {
		bits |= 1 << (h & 63)
		h = h>>6 | h<<58
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
		if sl.words[w]&bits == bits {
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
		b.slices = append(b.slices, bloomSlice{words: make([]uint64, c/2), cap: c})
	}
	i := len(b.slices) - 1
	sl := &b.slices[i]
	w, bits := probe(maphash.String(b.seed, s)*uint64(2*i+1), len(sl.words))
	sl.words[w] |= bits
	sl.n++
}
