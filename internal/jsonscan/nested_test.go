package jsonscan

import "testing"

// nestedScan reads doc's "in" object (and its own "in", and so on) in the
// one pass of ScanNested, each level's values of keys in its own spans.
type nestedScan struct {
	doc   []byte
	spans [4][2]Span
	odd   [4]bool
	seen  [4]bool
}

var nestedKeys = []string{"in", "v"}

func (s *nestedScan) at(level int) Nested {
	return func(k, i, depth int) (int, bool) {
		if k != 0 || level+1 >= len(s.spans) {
			return SkipValue(s.doc, i, depth-1)
		}
		end, odd, ok := ScanNested(s.doc, i, depth, nestedKeys, s.spans[level+1][:], s.at(level+1))
		s.odd[level+1], s.seen[level+1] = odd, true
		return end, ok
	}
}

// checkNested holds one pass of ScanNested to the passes of ScanObject it
// replaces: the document's own scan (the same end, and refused alike), and
// each inner object scanned again on its own, whose spans, moved by where
// the object lies, are the one pass's, and which ScanObject refuses exactly
// when the one pass calls it irregular.
func checkNested(t *testing.T, doc []byte) {
	s := &nestedScan{doc: doc}
	end, odd, ok := ScanNested(doc, 0, 0, nestedKeys, s.spans[0][:], s.at(0))
	var top [2]Span
	wantEnd, wantOK := ScanObject(doc, 0, nestedKeys, top[:])
	if ok && !odd != wantOK || wantOK && end != wantEnd {
		t.Fatalf("ScanNested(%q) = %d, odd %v, ok %v; ScanObject: %d, %v", doc, end, odd, ok, wantEnd, wantOK)
	}
	if !ok {
		return
	}
	s.odd[0] = odd
	from := 0
	for level := 1; level < len(s.spans); level++ {
		in := s.spans[level-1][0]
		if s.odd[level-1] || !in.Set() || doc[in.From] != '{' {
			return
		}
		if !s.seen[level] {
			t.Fatalf("ScanNested(%q): the object at level %d was not handed on", doc, level)
		}
		from = in.From
		var inner [2]Span
		_, innerOK := ScanObject(doc[from:in.To], 0, nestedKeys, inner[:])
		if innerOK == s.odd[level] {
			t.Fatalf("ScanNested(%q) level %d: irregular %v, ScanObject alone ok %v", doc, level, s.odd[level], innerOK)
		}
		for k, sp := range inner {
			if innerOK && sp.Set() && (sp.From+from != s.spans[level][k].From || sp.To+from != s.spans[level][k].To) {
				t.Fatalf("ScanNested(%q) level %d key %q: %+v, alone %+v at %d", doc, level, nestedKeys[k], s.spans[level][k], sp, from)
			}
		}
	}
}

// TestScanNested: objects within objects read in one pass, as their own
// scans would read them; a key refused within (repeated, escaped, in
// another case) makes only that object irregular.
func TestScanNested(t *testing.T) {
	for _, doc := range []string{
		`{"in":{"v":1,"in":{"v":"x","in":{"v":[1,{"in":2}]}}},"v":true}`,
		`{"v":1,"in":{"v":1,"v":2}}`,
		`{"in":{"V":1}}`,
		`{"in":{"\u0076":1}}`,
		`{"in":{"in":{"v":1,"in":[]}},"x":{"in":{"v":1,"v":1}}}`,
		`{"in":{"v":1}}x`,
		`{"in":{"v":01}}`,
		`{"in":{"v":1},"in":{"v":2}}`,
		`{}`, `{"in":null}`, `{"in":"{"}`,
	} {
		checkNested(t, []byte(doc))
	}
	s := &nestedScan{doc: []byte(`{"in":{"v":1,"v":2},"v":3}`)}
	if _, odd, ok := ScanNested(s.doc, 0, 0, nestedKeys, s.spans[0][:], s.at(0)); !ok || odd || !s.odd[1] {
		t.Errorf("a repeated key within: ok %v, odd %v, inner odd %v; want the inner object alone irregular", ok, odd, s.odd[1])
	}
}

func FuzzScanNested(f *testing.F) {
	for _, s := range []string{
		`{"in":{"v":1,"in":{"v":"x"}},"v":true}`, `{"in":{"v":1,"v":2}}`, `{"in":{"IN":{}}}`,
		`{"in":[{"in":1}]}`, `{"in":{"in":{"in":{"in":{"v":1}}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		checkNested(t, doc)
	})
}
