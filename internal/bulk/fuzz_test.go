package bulk

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

// FuzzBuild reads any bytes as a bulk CSV file and builds its requests
// (seed corpus in testdata/fuzz/FuzzBuild): no panic; either an error, or
// one problem list in line order, or one request per record whose body is
// valid UTF-8 JSON.
func FuzzBuild(f *testing.F) {
	op, ok := svcapi.Lookup(svcapi.OpVerifyPanPlusV2)
	if !ok {
		f.Fatal("no verifyPanPlusV2")
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		table, err := ParseTable("f.csv", raw)
		if err != nil {
			return
		}
		Extra(op, table)
		rows, err := Build(op, table, Sets{"consent": "Y"}, "RUN42")
		var ie *InvalidError
		switch {
		case errors.As(err, &ie):
			last := 0
			for _, p := range ie.Problems {
				if p.Line < 1 || p.Line < last {
					t.Fatalf("problem lines out of order or below 1: %+v", ie.Problems)
				}
				last = p.Line
			}
		case err != nil:
			t.Fatalf("Build = %v, want nil or an *InvalidError", err)
		default:
			if len(rows) != len(table.Records) {
				t.Fatalf("%d rows of %d records", len(rows), len(table.Records))
			}
			for _, r := range rows {
				if _, err := json.Marshal(r.Body); err != nil || !validText(r.Body) {
					t.Fatalf("line %d: body %q, %v; want JSON of valid UTF-8 (nothing sent as U+FFFD)", r.Line, r.Body, err)
				}
			}
		}
	})
}

// validText reports whether every string (key or value) in v is valid UTF-8.
func validText(v any) bool {
	switch x := v.(type) {
	case string:
		return utf8.ValidString(x)
	case map[string]any:
		for k, e := range x {
			if !utf8.ValidString(k) || !validText(e) {
				return false
			}
		}
	}
	return true
}

// flattenData is what a flatDoc loads from envelope, as a list.
func flattenData(envelope []byte) []KV {
	var d flatDoc
	if d.load(envelope); d.slow != nil {
		return d.slow
	}
	out := make([]KV, len(d.items))
	for i := range d.items {
		out[i] = KV{string(d.key(i)), d.value(i)}
	}
	return out
}

// FuzzFlattenData reads any bytes as a response envelope: a flatDoc (the
// lean scanner, where it takes the document) flattens it exactly as
// encoding/json does.
func FuzzFlattenData(f *testing.F) {
	for _, s := range []string{
		`{"statuscode":"TXN","data":{"pan":"ABCDE1234F","pool":{"amount":"1.50","n":1.5e3},"list":[1, {"a":2}],"none":null,"ok":true}}`,
		`{"data":"text","data":{"a":"\u00e9\"x\\"}}`,
		`{"data":[1,2]}`, `{"data" : { "a" : { } , "b":"\xff"} }`, `{"data":{"a":1,"a":2}}`, `[]`, `null`, `{"data":1} x`,
		`{"data":{"k\u0065y":{"\u00e9":"v"},"x":"\ud800"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		orig := string(b)
		if got, want := flattenData(b), flattenJSON(b); !slices.Equal(got, want) {
			t.Fatalf("flatDoc(%q) = %q, encoding/json %q", b, got, want)
		}
		if string(b) != orig {
			t.Fatalf("flatDoc changed its input %q to %q", orig, b)
		}
	})
}

// TestFlatDocTakesAnswers: the lean scanner takes the answers the service
// gives (nested objects, arrays, escapes), so that a results file does
// not fall back to encoding/json for them.
func TestFlatDocTakesAnswers(t *testing.T) {
	for _, s := range []string{
		`{"actcode":"","data":{"externalRef":"R1","panPlusDataV2":{"aadhaarLinkedStatus":true,"userAddress":{"city":"Bengaluru","line2":""},"userFullNameSplit":["RAHUL","","KULKARNI"]},"pool":{"amount":"1.50"}},"status":"ok"}`,
		`{"data":{"na\u006de":"caf\u00e9 \"x\"","n":-1.5e3,"z":null}}`,
		`{"data":[1,2]}`, `{"status":"no data"}`,
	} {
		var d flatDoc
		if !d.read([]byte(s)) {
			t.Errorf("flatDoc.read(%s) = false: the lean scanner refused it", s)
		}
	}
}
