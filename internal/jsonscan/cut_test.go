package jsonscan

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// checkCut holds Cut to encoding/json: whatever Cut accepts is valid JSON,
// its rest decodes to the document without the member, and the value's
// place holds that member's value.
func checkCut(t *testing.T, doc []byte, key string) (ok bool) {
	t.Helper()
	rest, val, ok := Cut(doc, key)
	if !ok {
		return false
	}
	if !json.Valid(doc) {
		t.Fatalf("Cut(%q) accepted what encoding/json refuses", doc)
	}
	var whole, cut map[string]json.RawMessage
	if err := json.Unmarshal(doc, &whole); err != nil {
		t.Fatalf("Cut(%q) accepted what is not an object: %v", doc, err)
	}
	if err := json.Unmarshal(rest, &cut); err != nil {
		t.Fatalf("Cut(%q) rest %q: %v", doc, rest, err)
	}
	want, had := whole[key]
	if had != val.Set() {
		t.Fatalf("Cut(%q): value %+v, but the member present is %v", doc, val, had)
	}
	if had && !bytes.Equal(doc[val.From:val.To], want) {
		t.Fatalf("Cut(%q): value %q, want %q", doc, doc[val.From:val.To], want)
	}
	if !had && &rest[0] != &doc[0] {
		t.Fatalf("Cut(%q): nothing to cut, yet a copy", doc)
	}
	delete(whole, key)
	if !reflect.DeepEqual(compact(whole), compact(cut)) {
		t.Fatalf("Cut(%q) = %q: other members changed", doc, rest)
	}
	return true
}

func compact(m map[string]json.RawMessage) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		var b bytes.Buffer
		_ = json.Compact(&b, v)
		out[k] = b.String()
	}
	return out
}

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		in   string
		ok   bool
		rest string
	}{
		{`{"statuscode":"TXN","data":{"a":[1,2]},"status":"ok"}`, true, `{"statuscode":"TXN","status":"ok"}`},
		{`{"data":[1,{"b":"}"}] , "status":"ok"}`, true, `{"status":"ok"}`},
		{`{"status":"ok", "data" : null}`, true, `{"status":"ok"}`},
		{` {"data":1} `, true, ` {} `},
		{`{"status":"ok"}`, true, `{"status":"ok"}`},
		{`{}`, true, `{}`},
		{`{"Data":1}`, false, ``},          // encoding/json would take it as data
		{`{"data":1,"data":2}`, false, ``}, // twice
		{`{"d\u0061ta":1}`, false, ``},     // escaped key
		{`{"data":1,}`, false, ``},         // not JSON
		{`{"data":[1,2}`, false, ``},       // broken off
		{`{"data":1} x`, false, ``},        // trailing text
		{`[{"data":1}]`, false, ``},        // not an object
		{`{"a":"\x01"}`, false, ``},        // control character
		{`{"status":"ok","data":{}}{}`, false, ``},
	} {
		rest, _, ok := Cut([]byte(tc.in), "data")
		if ok != tc.ok || ok && string(rest) != tc.rest {
			t.Errorf("Cut(%s) = %q %v, want %q %v", tc.in, rest, ok, tc.rest, tc.ok)
			continue
		}
		checkCut(t, []byte(tc.in), "data")
	}
}

func FuzzCut(f *testing.F) {
	for _, s := range []string{
		`{"statuscode":"TXN","data":{"a":[1,2]},"status":"ok"}`,
		`{"data":[1,{"b":"}"}] , "status":"ok"}`,
		` {"data":1} `, `{}`, `{"DATA":1}`, `{"a":1,"data":"x","b":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		checkCut(t, doc, "data")
	})
}
