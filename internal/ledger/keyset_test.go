package ledger

import (
	"fmt"
	"hash/maphash"
	"iter"
	"testing"
)

// keys yields n strings of a prefix.
func keys(prefix string, n int) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for i := range n {
			if !yield(fmt.Sprintf("%s%012d", prefix, i), nil) {
				return
			}
		}
	}
}

// TestKeySet: every string read is in the set, with its state kept; the
// strings never read are not (a 64-bit hash shared with one of 300,000
// would be a one-in-10¹³ chance per string).
func TestKeySet(t *testing.T) {
	const n = 300_000
	s, err := newKeySet(keys("RC", n))
	if err != nil {
		t.Fatal(err)
	}
	for k := range keys("RC", n) {
		in, v, i := s.state(k)
		if !in || v != unmet {
			t.Fatalf("state(%s) = %v, %v before any meeting", k, in, v)
		}
		s.set(k, i, metOnce)
	}
	for k := range keys("RC", n) {
		if _, v, _ := s.state(k); v != metOnce {
			t.Fatalf("state(%s) = %v after set", k, v)
		}
	}
	for k := range keys("RF", n) {
		if in, _, _ := s.state(k); in {
			t.Fatalf("%s, never read, is in the set", k)
		}
	}
}

// TestKeySetSharedHash: two strings of the set whose hashes are equal
// keep their states apart (by string).
func TestKeySetSharedHash(t *testing.T) {
	s := &keySet{seed: maphash.MakeSeed()}
	h := maphash.String(s.seed, "A")
	s.hashes, s.states, s.bits = []uint64{h}, []verdict{unmet}, make([]uint64, bitWords(1))
	s.bits[h>>6%uint64(len(s.bits))] |= 1 << (h & 63)
	s.shared, s.byString = map[uint64]bool{h: true}, map[string]verdict{}
	in, v, i := s.state("A")
	if !in || v != unmet || i >= 0 {
		t.Fatalf("state(A) = %v, %v, %d; want in, unmet, by string", in, v, i)
	}
	s.set("A", i, twice)
	if _, v, _ := s.state("A"); v != twice {
		t.Errorf("A's state %v after set, want twice", v)
	}
	if s.states[0] != unmet {
		t.Errorf("the shared hash's slot changed to %v", s.states[0])
	}
}

// BenchmarkKeySet: look-ups of strings outside a set of 250,000 (most of
// a 10M-call month's look-ups), and of strings in it.
func BenchmarkKeySet(b *testing.B) {
	s, err := newKeySet(keys("RC", 250_000))
	if err != nil {
		b.Fatal(err)
	}
	var out, in []string
	for k := range keys("RF", 1<<16) {
		out = append(out, k)
	}
	for k := range keys("RC", 1<<16) {
		in = append(in, k)
	}
	for _, c := range []struct {
		name string
		keys []string
	}{{"outside", out}, {"inside", in}} {
		b.Run(c.name, func(b *testing.B) {
			for i := range b.N {
				s.state(c.keys[i&(1<<16-1)])
			}
		})
	}
}
