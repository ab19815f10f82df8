package ledger

import "hash/maphash"

// bloom is a scalable Bloom filter of strings: a set that may answer
// "maybe" for a string never added (rarely: each answer is then checked
// exactly), never "no" for one added. It takes about 2 bytes per string,
// so the check can tell which externalRefs it met before without keeping
// them: a growing series of filters, each twice the size of the last, each
// holding as many strings as it was made for.
type bloom struct {
	seed   maphash.Seed
	slices []bloomSlice
}

type bloomSlice struct {
	bits []uint64
	m    uint64 // bits
	n, k int    // strings held, hashes per string
	cap  int    // strings it takes before the next slice starts
}

// bloomFirst is how many strings the first slice takes.
const bloomFirst = 1 << 14

func newBloom() *bloom { return &bloom{seed: maphash.MakeSeed()} }

func newBloomSlice(capacity int) bloomSlice {
	m := uint64(capacity) * 16 // 16 bits a string, 11 hashes: about 1 false "maybe" in 2000
	return bloomSlice{bits: make([]uint64, (m+63)/64), m: m, k: 11, cap: capacity}
}

func (b *bloom) hashes(s string) (uint64, uint64) {
	h := maphash.String(b.seed, s)
	return h, (h >> 33) | 1
}

// has reports whether s may have been added.
func (b *bloom) has(s string) bool {
	if len(b.slices) == 0 {
		return false
	}
	h1, h2 := b.hashes(s)
	for i := range b.slices {
		if b.slices[i].has(h1, h2) {
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
		b.slices = append(b.slices, newBloomSlice(c))
	}
	h1, h2 := b.hashes(s)
	sl := &b.slices[len(b.slices)-1]
	for i := 0; i < sl.k; i++ {
		bit := (h1 + uint64(i)*h2) % sl.m
		sl.bits[bit/64] |= 1 << (bit % 64)
	}
	sl.n++
}

func (sl *bloomSlice) has(h1, h2 uint64) bool {
	for i := 0; i < sl.k; i++ {
		bit := (h1 + uint64(i)*h2) % sl.m
		if sl.bits[bit/64]&(1<<(bit%64)) == 0 {
			return false
		}
	}
	return true
}
