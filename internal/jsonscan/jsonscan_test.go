package jsonscan

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestScanStringAgreesWithEncodingJSON: on random strings of quotes,
// backslashes, control characters and plain bytes, around the eight-byte
// boundaries of the fast scan, scanString accepts exactly what
// encoding/json accepts and finds the same end.
func TestScanStringAgreesWithEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{'a', 'Z', ' ', '"', '\\', 'n', 'u', '0', 'f', 0x01, 0x1f, 0x7f, 0xc3, 0xa9, 0x80}
	for range 200_000 {
		n := rng.IntN(24)
		b := []byte{'"'}
		for range n {
			b = append(b, alphabet[rng.IntN(len(alphabet))])
		}
		b = append(b, '"')
		end, _, ok := scanString(b, 0)
		var s string
		valid := json.Unmarshal(b, &s) == nil
		if ok && end == len(b) != valid {
			t.Fatalf("scanString(%q) = %d, %v; encoding/json valid: %v", b, end, ok, valid)
		}
		if !ok && valid {
			t.Fatalf("scanString(%q) refused a valid string", b)
		}
	}
}

// TestScanObject: the values of the named keys are found; a key spelt
// otherwise only in case, a repeated key or bad JSON is refused.
func TestScanObject(t *testing.T) {
	keys := []string{"a", "bb"}
	for _, tc := range []struct {
		in   string
		ok   bool
		a, b string
	}{
		{`{"a":1,"x":[1,{"y":null}],"bb":"t"}`, true, `1`, `"t"`},
		{`{ "bb" : {"a":2} , "a" : true }`, true, `true`, `{"a":2}`},
		{`{"A":1}`, false, "", ""},
		{`{"a":1,"a":2}`, false, "", ""},
		{`{"a":1,}`, false, "", ""},
		{`{"a":01}`, false, "", ""},
		{`{"c":"\u00"}`, false, "", ""},
	} {
		var out [2]Span
		end, ok := ScanObject([]byte(tc.in), 0, keys, out[:])
		if ok != tc.ok || ok && (end != len(tc.in) || tc.in[out[0].From:out[0].To] != tc.a || tc.in[out[1].From:out[1].To] != tc.b) {
			t.Errorf("ScanObject(%s) = %d %v %+v, want ok %v a %s bb %s", tc.in, end, ok, out, tc.ok, tc.a, tc.b)
		}
	}
}

// TestStopsRun holds the eight-byte test to the byte table: for every
// byte in every position, stopsRun says yes exactly when plain says no.
func TestStopsRun(t *testing.T) {
	for pos := range 8 {
		for c := range 256 {
			var w [8]byte
			for i := range w {
				w[i] = 'a'
			}
			w[pos] = byte(c)
			x := uint64(0)
			for i := 7; i >= 0; i-- {
				x = x<<8 | uint64(w[i])
			}
			if got := stopsRun(x); got != !plain[c] {
				t.Fatalf("stopsRun(byte %#x at %d) = %v, want %v", c, pos, got, !plain[c])
			}
		}
	}
	// Neighbours must not hide or invent one (borrows between bytes).
	for _, w := range []string{"\x00\x00\x00\x00\x00\x00\x00\x00", "\xff\xff\xff\xff\xff\xff\xff\xff", "\x20\x21\x23\x5b\x5d\xff\x80\x7f", "\x21\x1f\x20\x20\x20\x20\x20\x20"} {
		x := uint64(0)
		stop := false
		for i := 7; i >= 0; i-- {
			x = x<<8 | uint64(w[i])
			stop = stop || !plain[w[i]]
		}
		if stopsRun(x) != stop {
			t.Errorf("stopsRun(%q) = %v, want %v", w, !stop, stop)
		}
	}
}

// TestObjects: each element of an array of objects is read as ScanObject
// reads it (its keys' values, none carried over from the element before);
// an element that is not an object or that ScanObject refuses, and fn's
// false, stop it.
func TestObjects(t *testing.T) {
	keys := []string{"a", "bb"}
	for _, tc := range []struct {
		in   string
		ok   bool
		got  string // each element's a and bb, "|" after each
		stop int    // fn returns false at this element (1-based), 0 never
	}{
		{`[]`, true, "", 0},
		{`[ ]`, true, "", 0},
		{`[{"a":1,"bb":"x"}, {"bb":[2]} ,{}]`, true, `1 "x"| [2]| |`, 0},
		{`[{"a":1},2]`, false, `1 |`, 0},
		{`[{"a":1},{"A":2}]`, false, `1 |`, 0},
		{`[{"a":1},{"a":2,"a":3}]`, false, `1 |`, 0},
		{`[{"a":1},{"a":2}]`, false, `1 |`, 1},
		{`[{"a":1},]`, false, `1 |`, 0},
		{`[{"a":1} {"a":2}]`, false, `1 |`, 0},
		{`{"a":1}`, false, "", 0},
	} {
		var out [2]Span
		var got string
		n := 0
		end, ok := Objects([]byte(tc.in), 0, keys, out[:], func(e Span) bool {
			if tc.in[e.From] != '{' || tc.in[e.To-1] != '}' {
				t.Errorf("%s: element %q", tc.in, tc.in[e.From:e.To])
			}
			got += tc.in[out[0].From:out[0].To] + " " + tc.in[out[1].From:out[1].To] + "|"
			n++
			return n != tc.stop
		})
		if ok != tc.ok || got != tc.got || ok && end != len(tc.in) {
			t.Errorf("Objects(%s) = %d %v, read %q; want ok %v, read %q", tc.in, end, ok, got, tc.ok, tc.got)
		}
	}
}
