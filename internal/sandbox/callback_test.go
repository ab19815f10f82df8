package sandbox

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/svcrecon/svcrecon/internal/svcapi"
)

func TestCallbackValuesDecode(t *testing.T) {
	vals, err := CallbackValues(7, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) != 5 {
		t.Fatalf("CallbackValues(7, 5) gave %d values, want 5", len(vals))
	}
	key := CallbackKey(7)
	if len(key) != 32 {
		t.Fatalf("CallbackKey(7) has %d bytes, want 32", len(key))
	}
	seen := map[string]bool{}
	for i, v := range vals {
		got, err := svcapi.DecodeCallback(v.Value, key)
		if err != nil || !bytes.Equal(got, v.Payload) {
			t.Errorf("DecodeCallback(value %d) = %s, %v; want %s", i, got, err, v.Payload)
		}
		var p callbackPayload
		if err := json.Unmarshal(v.Payload, &p); err != nil || len(p.UID) != 12 || p.Name == "" {
			t.Errorf("payload %d = %s (%v); want a name and a 12-digit uid", i, v.Payload, err)
		}
		if seen[v.Value[:24]] {
			t.Errorf("value %d repeats an IV", i)
		}
		seen[v.Value[:24]] = true
	}
	again, err := CallbackValues(7, 5)
	if err != nil || again[4].Value != vals[4].Value {
		t.Errorf("CallbackValues(7, 5) differs between calls")
	}
	if other := CallbackKey(8); bytes.Equal(other, key) {
		t.Errorf("CallbackKey(8) = CallbackKey(7)")
	}
}

func TestEncryptCallbackSizes(t *testing.T) {
	if _, err := EncryptCallback([]byte("x"), make([]byte, 16), make([]byte, 16)); err == nil {
		t.Error("EncryptCallback with a 16-byte key = nil error, want one")
	}
	if _, err := EncryptCallback([]byte("x"), make([]byte, 32), make([]byte, 8)); err == nil {
		t.Error("EncryptCallback with an 8-byte IV = nil error, want one")
	}
}
