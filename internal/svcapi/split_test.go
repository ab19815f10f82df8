package svcapi

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestSplitAgreesWithEncodingJSON holds the lean split of a body (one scan
// that finds its data) to the ordinary path, on every response fixture and
// on bodies the scanner refuses: the envelope decoded is the same, and so
// is the body the call log keeps without its data.
func TestSplitAgreesWithEncodingJSON(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "responses", "*.json"))
	if err != nil || len(paths) < 20 {
		t.Fatalf("fixtures: %v, %d files", err, len(paths))
	}
	bodies := map[string][]byte{
		"data null":       []byte(`{"statuscode":"TXN","status":"ok","data":null,"orderid":"null"}`),
		"data last":       []byte(` {"statuscode":"ERR","status":"bad","data":{"a":[1,2,{"b":"}"}]}} `),
		"no data":         []byte(`{"statuscode":"TUP","status":"pending"}`),
		"Data, any case":  []byte(`{"statuscode":"TXN","Data":{"x":1}}`),
		"escaped key":     []byte(`{"statuscode":"TXN","d\u0061ta":{"x":1}}`),
		"data twice":      []byte(`{"statuscode":"TXN","data":1,"data":2}`),
		"number statuses": []byte(`{"statuscode":"TXN","actcode":12,"data":[1]}`),
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		bodies[filepath.Base(p)] = b
	}
	for name, body := range bodies {
		split := splitData(body)
		got, gerr := decodeEnvelope(body, split)
		want, werr := decodeEnvelope(body, dataSplit{})
		if (gerr == nil) != (werr == nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: split %+v, %v; whole %+v, %v", name, got, gerr, want, werr)
		}
		if !split.ok {
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(body, &m) != nil {
			continue
		}
		delete(m, "data")
		var cut map[string]json.RawMessage
		if err := json.Unmarshal(split.rest, &cut); err != nil {
			t.Errorf("%s: the body without its data is not JSON: %v", name, err)
			continue
		}
		if len(cut) != len(m) {
			t.Errorf("%s: without data %d members, want %d", name, len(cut), len(m))
		}
		for k, v := range m {
			if !bytes.Equal(bytes.TrimSpace(cut[k]), bytes.TrimSpace(v)) {
				t.Errorf("%s: member %s = %s, want %s", name, k, cut[k], v)
			}
		}
		if !bytes.Equal(WithoutData(body), split.rest) {
			t.Errorf("%s: WithoutData = %s, want the split's %s", name, WithoutData(body), split.rest)
		}
	}
}
