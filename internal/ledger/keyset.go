package ledger

import (
	"hash/maphash"
	"iter"
	"slices"
)

// keySet is a set of strings read once from the database, kept as their
// sorted 64-bit hashes (8 bytes a string, and a byte for its state)
// rather than the strings: the duplicates stage's externalRefs (or
// clientOrderIds) that occur more than once. A string found is then
// checked exactly, so a string outside the set that shares a hash with
// one in it (about one chance in 10⁸ at 10,000,000 look-ups into 250,000
// strings) costs a look-up, never a wrong answer; and the state of a hash
// two of the set's strings share is kept by string.
type keySet struct {
	seed     maphash.Seed
	bits     []uint64 // a hash's bit (its low bits) is set when it may be in hashes
	hashes   []uint64
	states   []verdict          // by index in hashes
	shared   map[uint64]bool    // the hashes two strings of the set share
	byString map[string]verdict // the states of their strings
}

// verdict is where a string of the set stands.
type verdict uint8

const (
	unmet   verdict = iota // not met yet
	metOnce                // met once: checked exactly when met again
	single                 // checked: not a duplicate
	twice                  // checked: a duplicate
)

// newKeySet reads keys (distinct strings) into a set.
func newKeySet(keys iter.Seq2[string, error]) (*keySet, error) {
	s := &keySet{seed: maphash.MakeSeed()}
	for k, err := range keys {
		if err != nil {
			return nil, err
		}
		s.hashes = append(s.hashes, maphash.String(s.seed, k))
	}
	slices.Sort(s.hashes)
	for i := 1; i < len(s.hashes); i++ {
		if s.hashes[i] == s.hashes[i-1] {
			if s.shared == nil {
				s.shared, s.byString = map[uint64]bool{}, map[string]verdict{}
			}
			s.shared[s.hashes[i]] = true
		}
	}
	s.hashes = slices.Compact(s.hashes)
	s.hashes = slices.Clip(s.hashes)
	s.states = make([]verdict, len(s.hashes))
	s.bits = make([]uint64, bitWords(len(s.hashes)))
	for _, h := range s.hashes {
		s.bits[h>>6%uint64(len(s.bits))] |= 1 << (h & 63)
	}
	return s, nil
}

// bitWords is the size in words of the bit filter in front of n hashes:
// 16 bits a hash (a power of two, 512 KiB for 250,000), so that about 15
// look-ups in 16 of strings outside the set end at one word, which stays
// in the processor's cache, instead of a binary search through hashes
// that does not (4.5 of 119 CPU-s at 10M calls).
func bitWords(n int) int {
	w := 1
	for w*64 < 16*n {
		w *= 2
	}
	return w
}

// state reports whether k may be in the set and where it stands; i is
// its place for set.
func (s *keySet) state(k string) (in bool, v verdict, i int) {
	h := maphash.String(s.seed, k)
	if s.bits[h>>6%uint64(len(s.bits))]&(1<<(h&63)) == 0 {
		return false, unmet, -1
	}
	i, found := slices.BinarySearch(s.hashes, h)
	switch {
	case !found:
		return false, unmet, -1
	case s.shared[h]:
		return true, s.byString[k], -1
	}
	return true, s.states[i], i
}

// set sets the state of k, at i (from state).
func (s *keySet) set(k string, i int, v verdict) {
	if i < 0 {
		s.byString[k] = v
		return
	}
	s.states[i] = v
}
