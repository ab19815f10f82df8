package redact

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// plantedSecret is the client secret the fuzzer's documents may quote; it
// holds characters JSON escapes, so only a scrub of the decoded strings
// catches every spelling of it.
const plantedSecret = `S3cr&t<"K>`

// FuzzRedact: JSON and RawJSON never panic; what they return never holds
// the planted secret (raw or JSON-escaped), nor the value of a removed key,
// and RawJSON's result is always JSON. The seed corpus is in
// testdata/fuzz/FuzzRedact.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		`{"pidData":"PIDPIDPID","status":"ok"}`,
		`{"a":{"b":[{"Aadhaar_Number":"123412341234"}]}}`,
		`{"status":"bad secret S3cr&t<\"K> given"}`,
		`{"status":"bad secret S3cr\u0026t\u003c\"K\u003e given"}`,
		`not json S3cr&t<"K> at all`,
		`{"hmac":null,"cardPin":1234,"sessionKey":{"x":"y"}}`,
		`[1,"S3cr&t<\"K>",{"S3cr&t<\"K>":"key"}]`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		escaped, _ := json.Marshal(plantedSecret)
		forms := [][]byte{[]byte(plantedSecret), escaped[1 : len(escaped)-1]}
		for name, out := range map[string][]byte{"JSON": JSON(doc, plantedSecret), "RawJSON": RawJSON(doc, plantedSecret)} {
			for _, form := range forms {
				if bytes.Contains(out, form) {
					t.Fatalf("%s(%q) = %q holds the secret", name, doc, out)
				}
			}
		}
		raw := RawJSON(doc, plantedSecret)
		if len(raw) > 0 && !json.Valid(raw) {
			t.Fatalf("RawJSON(%q) = %q, not JSON", doc, raw)
		}
		// A removed key's value never survives a document that decodes.
		var v any
		if json.Unmarshal(doc, &v) == nil {
			var walk func(any)
			walk = func(v any) {
				switch x := v.(type) {
				case map[string]any:
					for k, val := range x {
						if s, ok := val.(string); ok && IsRemovedKey(k) && len(s) >= 4 && s != Marker &&
							!strings.Contains(Marker, s) && bytes.Contains(raw, []byte(s)) {
							t.Fatalf("RawJSON(%q) = %q keeps %s's value", doc, raw, k)
						}
						walk(val)
					}
				case []any:
					for _, e := range x {
						walk(e)
					}
				}
			}
			walk(v)
		}
	})
}

// FuzzScrubber: a Scrubber never panics on any text, and a secret planted
// in any of its spellings (spellings) between two texts is gone from what
// it returns.
func FuzzScrubber(f *testing.F) {
	f.Add("before ", " after", uint8(0))
	f.Add(`{"status":"`, `"}`, uint8(3))
	f.Add("%", "\\", uint8(7))
	f.Add("YWJj", "ZGVm", uint8(12))
	names := make([]string, 0)
	forms := spellings(marker)
	for name := range forms {
		names = append(names, name)
	}
	slices.Sort(names)
	s := NewScrubber(marker)
	f.Fuzz(func(t *testing.T, pre, post string, which uint8) {
		s.String(pre + post) // never panics
		form := forms[names[int(which)%len(names)]]
		// Text that would make the spelling mean something else (an
		// escape begun before it, base64 running into it) is not a plant.
		if strings.ContainsAny(pre+post, "\\%") || pre != "" && isB64(pre[len(pre)-1]) || post != "" && isB64(post[0]) {
			return
		}
		if out := s.String(pre + form + post); leaks(out, marker) {
			t.Fatalf("String(%q) = %q, still holds the secret", pre+form+post, out)
		}
	})
}
